//! `FooMachinePool`: a minimal InfraMachinePool provider API, in two versions, built with
//! `#[derive(CustomResource)]` (kube-derive) on the workspace crates. Copy it to start a
//! provider:
//!
//! * [`v1beta1`] (storage, hub) implements the v1beta2 contract (`status.initialization.provisioned`,
//!   `metav1.Condition`s); [`v1alpha1`] is an older version on the v1beta1 contract (`status.ready`).
//! * [`crds`] merges the derived CRDs of both versions and adds the contract labels; a unit
//!   test runs the contract check on them through `capi_contract_check::check`.
//! * The versions convert through [`capi_machinepool_conversion`]'s generic hub/spoke handler
//!   ([`converter`]).
//! * [`ready_condition`] computes `Ready` with [`capi_conditions`].
#![deny(missing_docs)]

pub mod v1alpha1;
pub mod v1beta1;

use capi_conditions::summary::{SummaryOptions, summary};
use capi_contract::Contract;
use capi_machinepool_conversion::{ApiVersionResolver, HubSpokeConverter};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResourceExt;

/// The API group.
pub const GROUP: &str = "infrastructure.foo.example.com";

/// The conversion handler for FooMachinePool (hub v1beta1, spoke v1alpha1).
#[must_use]
pub fn converter(
    resolver: impl ApiVersionResolver + 'static,
) -> HubSpokeConverter<v1beta1::FooMachinePool> {
    HubSpokeConverter::new(resolver).with_spoke::<v1alpha1::FooMachinePool>()
}

/// Adds a contract label: which CRD versions implement which Cluster API contract
/// (`cluster.x-k8s.io/<contract>: <version>_<version>`).
fn label(
    mut crd: CustomResourceDefinition,
    labels: &[(Contract, &str)],
) -> CustomResourceDefinition {
    let map = crd.metadata.labels.get_or_insert_with(Default::default);
    for (contract, versions) in labels {
        map.insert(contract.label().to_owned(), (*versions).to_owned());
    }
    crd
}

/// The FooMachinePool CRD (both versions, v1beta1 stored) and the FooMachinePoolTemplate CRD,
/// with their contract labels.
///
/// # Panics
/// Never: the derived CRDs have the same group, kind and scope, which is all `merge_crds` checks.
#[must_use]
pub fn crds() -> Vec<CustomResourceDefinition> {
    #[allow(clippy::expect_used)]
    let pool = kube::core::crd::merge_crds(
        vec![
            v1alpha1::FooMachinePool::crd(),
            v1beta1::FooMachinePool::crd(),
        ],
        "v1beta1",
    )
    .expect("both versions derive the same kind");
    vec![
        label(
            pool,
            &[
                (Contract::V1Beta1, "v1alpha1"),
                (Contract::V1Beta2, "v1beta1"),
            ],
        ),
        label(
            v1beta1::FooMachinePoolTemplate::crd(),
            &[(Contract::V1Beta2, "v1beta1")],
        ),
    ]
}

/// Types of the conditions the provider reports and summarises into `Ready`.
pub const READY_INPUTS: [&str; 2] = ["ScalingGroupReady", "LaunchTemplateReady"];

/// The `Ready` condition: a summary of [`READY_INPUTS`] (a missing one counts as Unknown).
#[must_use]
pub fn ready_condition(pool: &v1beta1::FooMachinePool) -> Condition {
    let opts = SummaryOptions {
        for_condition_types: READY_INPUTS.iter().map(|s| (*s).to_owned()).collect(),
        ..Default::default()
    };
    summary(pool, "Ready", &opts).unwrap_or_else(|e| {
        capi_conditions::new_condition("Ready", "Unknown", "InternalError", &e.to_string())
    })
}
