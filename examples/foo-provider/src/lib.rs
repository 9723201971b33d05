//! `FooMachinePool`: a minimal InfraMachinePool provider API, in two versions, built on the
//! workspace crates. Copy it to start a provider:
//!
//! * [`v1beta1`] (storage, hub) implements the v1beta2 contract (`status.initialization.provisioned`,
//!   `metav1.Condition`s); [`v1alpha1`] is an older version on the v1beta1 contract (`status.ready`).
//! * [`crds`] derives both CRDs (pool and template) from the types, with the contract labels.
//! * The versions convert through [`capi_machinepool_conversion`]'s generic hub/spoke handler.
//! * [`ready_condition`] computes `Ready` with [`capi_conditions`].
#![deny(missing_docs)]

mod resource;
pub mod v1alpha1;
pub mod v1beta1;

use capi_conditions::summary::{SummaryOptions, summary};
use capi_machinepool_api::schema::structural_schema_for;
use capi_machinepool_conversion::{ApiVersionResolver, HubSpokeConverter};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use serde_json::{Value, json};

/// The API group.
pub const GROUP: &str = "infrastructure.foo.example.com";

/// The conversion handler for FooMachinePool (hub v1beta1, spoke v1alpha1).
#[must_use]
pub fn converter(
    resolver: &dyn ApiVersionResolver,
) -> HubSpokeConverter<'_, v1beta1::FooMachinePool> {
    HubSpokeConverter::new(resolver).with_spoke::<v1alpha1::FooMachinePool>()
}

fn crd(kind: &str, plural: &str, versions: Vec<Value>, status: bool) -> Value {
    let versions: Vec<Value> = versions
        .into_iter()
        .map(|mut v| {
            if status {
                v["subresources"] = json!({"status": {}});
            }
            v
        })
        .collect();
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": format!("{plural}.{GROUP}"),
            // Contract labels: which CRD versions implement which Cluster API contract.
            "labels": {"cluster.x-k8s.io/v1beta1": "v1alpha1", "cluster.x-k8s.io/v1beta2": "v1beta1"}
        },
        "spec": {
            "group": GROUP,
            "names": {"kind": kind, "listKind": format!("{kind}List"), "plural": plural, "singular": kind.to_lowercase(), "categories": ["cluster-api"]},
            "scope": "Namespaced",
            "versions": versions
        }
    })
}

fn version(name: &str, storage: bool, schema: Value) -> Value {
    json!({"name": name, "served": true, "storage": storage, "schema": {"openAPIV3Schema": schema}})
}

/// The FooMachinePool and FooMachinePoolTemplate CRDs.
#[must_use]
pub fn crds() -> Vec<Value> {
    vec![
        crd(
            "FooMachinePool",
            "foomachinepools",
            vec![
                version(
                    "v1alpha1",
                    false,
                    structural_schema_for::<v1alpha1::FooMachinePool>(),
                ),
                version(
                    "v1beta1",
                    true,
                    structural_schema_for::<v1beta1::FooMachinePool>(),
                ),
            ],
            true,
        ),
        crd(
            "FooMachinePoolTemplate",
            "foomachinepooltemplates",
            vec![
                version(
                    "v1alpha1",
                    false,
                    structural_schema_for::<v1beta1::FooMachinePoolTemplate>(),
                ),
                version(
                    "v1beta1",
                    true,
                    structural_schema_for::<v1beta1::FooMachinePoolTemplate>(),
                ),
            ],
            false,
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
