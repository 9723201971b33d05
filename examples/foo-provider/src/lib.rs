//! `FooMachinePool`: a minimal InfraMachinePool provider API, in two versions, built with
//! `#[derive(CustomResource)]` (kube-derive) on the workspace crates, using public APIs only.
//! Copy it to start a provider:
//!
//! * [`v1beta1`] (storage, hub) implements the v1beta2 contract (`status.initialization.provisioned`,
//!   `metav1.Condition`s); [`v1alpha1`] is an older version on the v1beta1 contract (`status.ready`).
//! * [`converter`]: the versions convert losslessly through
//!   [`capi_machinepool::conversion::LosslessSpoke`]: v1alpha1 writes only its field mappings
//!   and what to restore; what it cannot hold travels in the conversion-data annotation.
//! * [`crds`] merges the derived CRDs of both versions and adds the contract labels with
//!   [`capi_machinepool::contract::labels::add_contract_labels`]; the unit tests run the contract check on
//!   them through `capi_machinepool::check::check`.
//! * [`status_update`]: what the pool controller applies: `Paused`
//!   ([`capi_machinepool::conditions::paused::set_paused`]) and `Ready` ([`ready_condition`], a
//!   [`capi_machinepool::conditions::summary::summary`]) in a server-side apply body for the status
//!   subresource ([`capi_machinepool::api::ssa::apply`]); [`provider_id_list_apply`]: the
//!   apply body for `spec.providerIDList` alone.
//! * [`skew_gate`]: the version skew policy against the control plane the Cluster names
//!   (typed control plane versions); [`upgrade_gate`]: has the owning MachinePool (either API
//!   version) finished its upgrade (typed status computation).
#![deny(missing_docs)]

pub mod v1alpha1;
pub mod v1beta1;

use capi_machinepool::api::ssa::{Apply, Unset, apply};
use capi_machinepool::api::views::Cluster;
use capi_machinepool::conditions::paused::set_paused;
use capi_machinepool::conditions::set;
use capi_machinepool::conditions::summary::{SummaryOptions, summary};
use capi_machinepool::contract::Contract;
use capi_machinepool::contract::labels::{ContractLabelError, add_contract_labels};
use capi_machinepool::contract::provider_ids::{NodeReport, match_node_objects};
use capi_machinepool::conversion::{ApiVersionResolver, HubSpokeConverter};
use capi_machinepool::rollout::control_plane::{ControlPlaneInputError, ControlPlaneVersions};
use capi_machinepool::rollout::skew::{SkewFinding, VersionAt};
use capi_machinepool::status::typed::{
    AnyMachinePool, ExternalObject, TypedInputError, apply_to, verdict_of,
};
use capi_machinepool::status::{External, Inputs, MachinePoolMachines, UpgradeVerdict};
use k8s_openapi::api::core::v1::Node;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use kube::CustomResourceExt;
use kube::core::DynamicObject;
use kube::core::crd::MergeError;

/// The API group.
pub const GROUP: &str = "infrastructure.foo.example.com";

/// The conversion handler for FooMachinePool (hub v1beta1, spoke v1alpha1): what the
/// provider's conversion webhook serves.
#[must_use]
pub fn converter(
    resolver: impl ApiVersionResolver + 'static,
) -> HubSpokeConverter<v1beta1::FooMachinePool> {
    HubSpokeConverter::new(resolver).with_spoke::<v1alpha1::FooMachinePool>()
}

/// Why the CRDs could not be built.
#[derive(Debug, thiserror::Error)]
pub enum CrdError {
    /// The derived versions do not merge.
    #[error("failed to merge the FooMachinePool CRD versions")]
    Merge(#[source] MergeError),
    /// A contract label names a version the CRD lacks.
    #[error(transparent)]
    Label(#[from] ContractLabelError),
}

/// The FooMachinePool CRD (both versions, v1beta1 stored) and the FooMachinePoolTemplate CRD,
/// with their contract labels.
///
/// FooMachinePool's labels are added after `merge_crds`, which keeps the storage version's
/// metadata only: a `#[kube(label(..))]` on the v1alpha1 derive would vanish. The template
/// has one version, so its label is on its derive.
///
/// # Errors
/// When the derived CRDs do not merge or a label names a missing version (never for these
/// types; the unit tests build them).
pub fn try_crds() -> Result<Vec<CustomResourceDefinition>, CrdError> {
    let mut pool = kube::core::crd::merge_crds(
        vec![
            v1alpha1::FooMachinePool::crd(),
            v1beta1::FooMachinePool::crd(),
        ],
        "v1beta1",
    )
    .map_err(CrdError::Merge)?;
    add_contract_labels(
        &mut pool,
        &[
            (Contract::V1Beta1, &["v1alpha1"]),
            (Contract::V1Beta2, &["v1beta1"]),
        ],
    )?;
    Ok(vec![pool, v1beta1::FooMachinePoolTemplate::crd()])
}

/// [`try_crds`] for callers that print or install the CRDs.
///
/// # Panics
/// Never: [`try_crds`] fails only for types that do not merge, and the unit tests build
/// these.
#[must_use]
pub fn crds() -> Vec<CustomResourceDefinition> {
    #[allow(clippy::expect_used)]
    try_crds().expect("the FooMachinePool versions merge and are labelled")
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
        capi_machinepool::conditions::new_condition(
            "Ready",
            "Unknown",
            "InternalError",
            &e.to_string(),
        )
    })
}

/// The status a pool controller applies, and whether it should stop there (paused).
#[derive(Clone, Debug, PartialEq)]
pub struct StatusUpdate {
    /// The server-side apply body for the status subresource (`kube::Api::patch_status`
    /// with `Patch::Apply`).
    pub apply: Apply<v1beta1::FooMachinePool, Unset, v1beta1::FooMachinePoolStatus>,
    /// The pool is paused: reconcile nothing else.
    pub paused: bool,
}

/// One reconcile's status: sets `Paused` (the Cluster's `spec.paused`, or the pool's
/// `cluster.x-k8s.io/paused` annotation) and `Ready` on `pool`, and returns the apply body
/// holding its whole status.
#[must_use]
pub fn status_update(
    pool: &mut v1beta1::FooMachinePool,
    cluster_paused: bool,
    now: &Time,
) -> StatusUpdate {
    let paused = set_paused(pool, cluster_paused, now);
    let ready = ready_condition(pool);
    set(pool, ready, now);
    let name = pool.metadata.name.clone().unwrap_or_default();
    let namespace = pool.metadata.namespace.clone();
    let status = pool.status.clone().unwrap_or_default();
    StatusUpdate {
        apply: apply(&name, namespace.as_deref()).status(status),
        paused,
    }
}

/// The server-side apply body a pool controller sends (`Api::patch` with `Patch::Apply`,
/// its own field manager) to publish the instances it found: `spec.providerIDList` and
/// nothing else of the spec, so the manager owns that one field and never the user's
/// `instanceType` or tags.
#[must_use]
pub fn provider_id_list_apply(
    pool: &v1beta1::FooMachinePool,
    provider_ids: &[String],
) -> Apply<v1beta1::FooMachinePool, serde_json::Value> {
    let name = pool.metadata.name.as_deref().unwrap_or_default();
    apply(name, pool.metadata.namespace.as_deref())
        .spec(serde_json::json!({ "providerIDList": provider_ids }))
}

/// Matches the pool's `spec.providerIDList` with the workload cluster's Nodes, as the
/// MachinePool controller will: IDs without a Node, Nodes the list misses, near misses
/// (case, whitespace, slashes after the scheme), Nodes still tainted uninitialized and
/// duplicates. A controller runs it before it publishes a new list.
#[must_use]
pub fn node_report(pool: &v1beta1::FooMachinePool, nodes: &[Node]) -> NodeReport {
    match_node_objects(&pool.spec.provider_id_list, nodes)
}

/// The version skew gate a pool controller runs before it rolls out instances at
/// `kubelet_version` (the MachinePool's `spec.template.spec.version`): the policy's verdicts
/// against the versions of the control plane `cluster` names (`control_plane`, read with
/// `kube::Api::<DynamicObject>` since its kind is known only at run time: KubeadmControlPlane,
/// a managed control plane, ...), as the control-plane contract publishes them
/// ([`ControlPlaneVersions::of_dynamic`]). Roll out only when no finding is an error.
///
/// # Errors
/// When `control_plane` is not the control plane `cluster` names, or has no `apiVersion` and
/// `kind`: a gate never judges against an unrelated object.
pub fn skew_gate(
    pool: &v1beta1::FooMachinePool,
    cluster: &Cluster,
    control_plane: &DynamicObject,
    kubelet_version: &str,
) -> Result<Vec<SkewFinding>, ControlPlaneInputError> {
    let name = pool.metadata.name.as_deref().unwrap_or_default();
    let kubelet = VersionAt::new(kubelet_version, format!("FooMachinePool {name} rollout"));
    Ok(ControlPlaneVersions::of_dynamic(cluster, control_plane)?.check_kubelets(&[kubelet], None))
}

/// The upgrade gate for the MachinePool (either API version) that owns `infra`: has it
/// finished rolling out `spec.template.spec.version`? Upstream reports a MachinePool without
/// MachinePool Machines up to date right after a version bump (cluster-api#10059), so the
/// pool's conditions and counters are first computed from `infra` (typed, through
/// [`ExternalObject`]) with [`apply_to`] on a copy, then judged with [`verdict_of`]. The
/// bootstrap config is not read: its condition does not enter the verdict.
///
/// # Errors
/// When a v1beta1 pool does not convert to v1beta2 or `infra` does not serialize.
pub fn upgrade_gate<P: AnyMachinePool + Clone>(
    pool: &P,
    infra: &v1beta1::FooMachinePool,
    cluster_paused: bool,
    now: &Time,
) -> Result<UpgradeVerdict, TypedInputError> {
    let infra = ExternalObject::of(infra)?;
    let inputs = Inputs {
        infra: infra.found(),
        infra_contract: Contract::V1Beta2,
        bootstrap: External::NotFound,
        // FooMachinePool sets no `status.infrastructureMachineKind`: no MachinePool Machines.
        machines: MachinePoolMachines::detect(infra.found(), None),
        cluster_paused,
        now,
    };
    let mut pool = pool.clone();
    apply_to(&mut pool, &inputs)?;
    verdict_of(&pool)
}
