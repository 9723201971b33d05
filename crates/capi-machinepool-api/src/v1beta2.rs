//! `cluster.x-k8s.io/v1beta2` MachinePool: the storage version and conversion hub.
//!
//! JSON field presence follows the Go types exactly: `omitempty` strings, numbers and lists are
//! omitted when empty, `omitzero` structs are omitted when every field is zero, pointers
//! (`Option`) are omitted when `None` and emitted when `Some`, even `Some(0)`.

use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition as MetaCondition, ListMeta};
use kube_core::ObjectMeta as KubeObjectMeta;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use crate::common::{
    LegacyCondition, MachineReadinessGate, MachineTaint, ObjectMeta, StatusVersion,
};
use crate::common::{node_refs_schema, phase_schema};
use crate::omit::is_zero;
use crate::schema::metav1_conditions_schema;

const DNS_SUBDOMAIN_PATTERN: &str =
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

/// A v1beta2 MachinePool.
///
/// ```
/// use capi_machinepool_api::v1beta2::MachinePool;
/// let mp: MachinePool = serde_json::from_str(r#"{
///   "apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
///   "metadata": {"name": "mp-0", "namespace": "default"},
///   "spec": {"clusterName": "c1", "template": {"spec": {"clusterName": "c1",
///     "bootstrap": {"dataSecretName": "s"},
///     "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DevMachinePool", "name": "d"}}}}
/// }"#).unwrap();
/// assert_eq!(mp.spec.template.spec.infrastructure_ref.kind, "DevMachinePool");
/// // No status was given, none is emitted (omitzero).
/// assert!(serde_json::to_value(&mp).unwrap().get("status").is_none());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MachinePool {
    /// Standard object metadata.
    pub metadata: KubeObjectMeta,
    /// Desired state.
    pub spec: MachinePoolSpec,
    /// Observed state.
    pub status: MachinePoolStatus,
}

/// Desired state of a v1beta2 MachinePool.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(transform = required_machine_pool_spec)]
pub struct MachinePoolSpec {
    /// Name of the Cluster this object belongs to.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(min = 1, max = 63))]
    pub cluster_name: String,
    /// Number of desired machines (defaulted by the webhook).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::wire::int::option"
    )]
    pub replicas: Option<i32>,
    /// Template of the machines of the pool.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub template: MachineTemplateSpec,
    /// Provider IDs of the machine instances, as seen on the Node objects.
    #[serde(
        rename = "providerIDList",
        default,
        skip_serializing_if = "crate::omit::is_empty_list"
    )]
    #[schemars(length(max = 10000), inner(length(min = 1, max = 512)))]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub provider_id_list: Option<Vec<String>>,
    /// Failure domains the pool should be attached to.
    #[serde(default, skip_serializing_if = "crate::omit::is_empty_list")]
    #[schemars(length(max = 100), inner(length(min = 1, max = 256)))]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub failure_domains: Option<Vec<String>>,
}

/// Template of the machines of a v1beta2 MachinePool.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = required_machine_template_spec)]
pub struct MachineTemplateSpec {
    /// Labels and annotations of the machines.
    #[serde(default, skip_serializing_if = "is_zero")]
    #[schemars(extend("minProperties" = 1))]
    pub metadata: ObjectMeta,
    /// Specification of the machines.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub spec: MachineSpec,
}

/// Specification of the machines of a v1beta2 MachinePool.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(transform = required_machine_spec)]
pub struct MachineSpec {
    /// Name of the Cluster this object belongs to.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(min = 1, max = 63))]
    pub cluster_name: String,
    /// Bootstrap configuration reference or data secret.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub bootstrap: Bootstrap,
    /// Reference to the provider-specific infrastructure object (the InfraMachinePool).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub infrastructure_ref: ContractVersionedObjectReference,
    /// Kubernetes version of the machines (e.g. `v1.33.1`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(min = 1, max = 256))]
    pub version: String,
    /// Provider ID (informational for pools).
    #[serde(
        rename = "providerID",
        default,
        skip_serializing_if = "String::is_empty"
    )]
    #[schemars(length(min = 1, max = 512))]
    pub provider_id: String,
    /// Failure domain of the machines.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(min = 1, max = 256))]
    pub failure_domain: String,
    /// Seconds a new machine must be ready before it is considered available.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::wire::int::option"
    )]
    #[schemars(range(min = 0))]
    pub min_ready_seconds: Option<i32>,
    /// Extra conditions that must hold for a Machine to be Ready.
    #[serde(default, skip_serializing_if = "crate::omit::is_empty_list")]
    #[schemars(length(min = 1, max = 32))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["conditionType"]))]
    pub readiness_gates: Option<Vec<MachineReadinessGate>>,
    /// Node drain, volume detach and Node deletion timeouts.
    #[serde(default, skip_serializing_if = "is_zero")]
    #[schemars(extend("minProperties" = 1))]
    pub deletion: MachineDeletionSpec,
    /// Taints to apply to the Nodes.
    #[serde(default, skip_serializing_if = "crate::omit::is_empty_list")]
    #[schemars(length(min = 1, max = 64))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["key", "effect"]))]
    pub taints: Option<Vec<MachineTaint>>,
}

/// Bootstrap configuration of the machines.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Bootstrap {
    /// Reference to the bootstrap provider's config object (undefined when all fields are empty).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub config_ref: ContractVersionedObjectReference,
    /// Name of a Secret holding the bootstrap data (set by the controller or by the user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 0, max = 253))]
    pub data_secret_name: Option<String>,
}

/// A reference to an object whose version is derived from the contract labels of its CRD.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(transform = required_contract_versioned_object_reference)]
pub struct ContractVersionedObjectReference {
    /// Kind of the referenced object.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(min = 1, max = 63))]
    #[schemars(extend("pattern" = "^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$"))]
    pub kind: String,
    /// Name of the referenced object.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(min = 1, max = 253), extend("pattern" = DNS_SUBDOMAIN_PATTERN))]
    pub name: String,
    /// API group of the referenced object.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(min = 1, max = 253), extend("pattern" = DNS_SUBDOMAIN_PATTERN))]
    pub api_group: String,
}

impl ContractVersionedObjectReference {
    /// True when at least one of kind, name or apiGroup is set (upstream `IsDefined`).
    #[must_use]
    pub fn is_defined(&self) -> bool {
        !(self.kind.is_empty() && self.name.is_empty() && self.api_group.is_empty())
    }
}

/// Timeouts applied when machines are deleted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MachineDeletionSpec {
    /// Seconds to drain a Node (0 = no limit).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::wire::int::option"
    )]
    #[schemars(range(min = 0))]
    pub node_drain_timeout_seconds: Option<i32>,
    /// Seconds to wait for volumes to detach (0 = no limit).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::wire::int::option"
    )]
    #[schemars(range(min = 0))]
    pub node_volume_detach_timeout_seconds: Option<i32>,
    /// Seconds to retry deleting a Node (0 = forever; the webhook defaults 10).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::wire::int::option"
    )]
    #[schemars(range(min = 0))]
    pub node_deletion_timeout_seconds: Option<i32>,
}

/// Observed state of a v1beta2 MachinePool.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("minProperties" = 1))]
pub struct MachinePoolStatus {
    /// Current v1beta2 conditions.
    #[serde(
        default,
        skip_serializing_if = "crate::omit::is_empty_list",
        serialize_with = "crate::wire::condition::serialize_list",
        deserialize_with = "crate::wire::condition::deserialize_list"
    )]
    #[schemars(schema_with = "metav1_conditions_schema")]
    pub conditions: Option<Vec<MetaCondition>>,
    /// Initialization progress.
    #[serde(default, skip_serializing_if = "is_zero")]
    #[schemars(extend("minProperties" = 1))]
    pub initialization: MachinePoolInitializationStatus,
    /// References to the Nodes of the pool.
    #[serde(
        default,
        skip_serializing_if = "crate::omit::is_empty_list",
        serialize_with = "crate::wire::reference::serialize_list"
    )]
    #[schemars(schema_with = "node_refs_schema_atomic")]
    pub node_refs: Option<Vec<ObjectReference>>,
    /// Most recently observed number of replicas.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::wire::int::option"
    )]
    pub replicas: Option<i32>,
    /// Machines with Ready=True.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::wire::int::option"
    )]
    pub ready_replicas: Option<i32>,
    /// Machines with Available=True.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::wire::int::option"
    )]
    pub available_replicas: Option<i32>,
    /// Machines with UpToDate=True.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::wire::int::option"
    )]
    pub up_to_date_replicas: Option<i32>,
    /// Kubernetes versions of the replicas.
    #[serde(default, skip_serializing_if = "crate::omit::is_empty_list")]
    #[schemars(length(min = 1, max = 100))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["version"]))]
    pub versions: Option<Vec<StatusVersion>>,
    /// Phase (a string; see [`crate::MachinePoolPhase`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(schema_with = "phase_schema")]
    pub phase: String,
    /// Latest generation observed by the controller.
    #[serde(
        default,
        skip_serializing_if = "is_zero",
        deserialize_with = "crate::wire::int::value"
    )]
    #[schemars(range(min = 1))]
    pub observed_generation: i64,
    /// Fields kept only for the deprecated v1beta1 API.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deprecated: Option<MachinePoolDeprecatedStatus>,
}

fn node_refs_schema_atomic(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let mut schema = node_refs_schema(generator);
    schema.insert("x-kubernetes-list-type".into(), "atomic".into());
    schema
}

impl MachinePoolStatus {
    /// The typed phase (unknown strings map to `Unknown`).
    #[must_use]
    pub fn typed_phase(&self) -> crate::MachinePoolPhase {
        crate::MachinePoolPhase::parse(&self.phase)
    }
}

/// Initialization progress of a v1beta2 MachinePool.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MachinePoolInitializationStatus {
    /// The infrastructure provider reported the pool's infrastructure as provisioned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub infrastructure_provisioned: Option<bool>,
    /// The bootstrap data secret was created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bootstrap_data_secret_created: Option<bool>,
}

/// Deprecated status fields, grouped by the API version they belong to.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MachinePoolDeprecatedStatus {
    /// Fields of the v1beta1 API.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub v1beta1: Option<MachinePoolV1Beta1DeprecatedStatus>,
}

/// v1beta1 status fields kept on the v1beta2 object for conversion.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MachinePoolV1Beta1DeprecatedStatus {
    /// Legacy conditions (with severity).
    #[serde(default, skip_serializing_if = "crate::omit::is_empty_list")]
    pub conditions: Option<Vec<LegacyCondition>>,
    /// Terminal failure reason (legacy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<String>,
    /// Terminal failure message (legacy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 10240))]
    pub failure_message: Option<String>,
    /// Legacy ready replicas (Node Ready).
    #[serde(
        default,
        skip_serializing_if = "is_zero",
        deserialize_with = "crate::wire::int::value"
    )]
    pub ready_replicas: i32,
    /// Legacy available replicas.
    #[serde(
        default,
        skip_serializing_if = "is_zero",
        deserialize_with = "crate::wire::int::value"
    )]
    pub available_replicas: i32,
    /// Legacy unavailable replicas.
    #[serde(
        default,
        skip_serializing_if = "is_zero",
        deserialize_with = "crate::wire::int::value"
    )]
    pub unavailable_replicas: i32,
}

/// A list of v1beta2 MachinePools.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MachinePoolList {
    /// List metadata.
    pub metadata: ListMeta,
    /// The MachinePools.
    pub items: Vec<MachinePool>,
}

crate::resource::machine_pool_resource!(
    MachinePool,
    MachinePoolList,
    MachinePoolSpec,
    MachinePoolStatus,
    version = crate::constants::V1BETA2,
    api_version = crate::constants::API_VERSION_V1BETA2,
    omit_zero_spec_status = true,
    required = ["spec"]
);

fn required_machine_pool_spec(schema: &mut schemars::Schema) {
    crate::schema::require(schema, &["clusterName", "template"]);
}
fn required_machine_template_spec(schema: &mut schemars::Schema) {
    crate::schema::require(schema, &["spec"]);
}
fn required_machine_spec(schema: &mut schemars::Schema) {
    crate::schema::require(schema, &["bootstrap", "clusterName", "infrastructureRef"]);
}
fn required_contract_versioned_object_reference(schema: &mut schemars::Schema) {
    crate::schema::require(schema, &["apiGroup", "kind", "name"]);
}
