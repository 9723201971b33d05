//! Wire constants: API group, versions, kinds, finalizer, well-known labels and annotations.

/// The API group of MachinePool.
pub const GROUP: &str = "cluster.x-k8s.io";
/// The deprecated, still served version.
pub const V1BETA1: &str = "v1beta1";
/// The storage (hub) version.
pub const V1BETA2: &str = "v1beta2";
/// `apiVersion` of the v1beta1 MachinePool.
pub const API_VERSION_V1BETA1: &str = "cluster.x-k8s.io/v1beta1";
/// `apiVersion` of the v1beta2 MachinePool.
pub const API_VERSION_V1BETA2: &str = "cluster.x-k8s.io/v1beta2";
/// Kind of the MachinePool resource.
pub const KIND: &str = "MachinePool";
/// Kind of the MachinePool list.
pub const LIST_KIND: &str = "MachinePoolList";
/// Plural resource name.
pub const PLURAL: &str = "machinepools";
/// Singular resource name.
pub const SINGULAR: &str = "machinepool";
/// Short names of the resource.
pub const SHORT_NAMES: &[&str] = &["mp"];
/// Categories of the resource.
pub const CATEGORIES: &[&str] = &["cluster-api"];
/// Name of the MachinePool CustomResourceDefinition.
pub const CRD_NAME: &str = "machinepools.cluster.x-k8s.io";

/// Finalizer the MachinePool controller puts on MachinePools.
pub const MACHINE_POOL_FINALIZER: &str = "machinepool.cluster.x-k8s.io";

/// Label naming the Cluster an object belongs to.
pub const CLUSTER_NAME_LABEL: &str = "cluster.x-k8s.io/cluster-name";
/// Label naming the MachinePool a MachinePool Machine belongs to.
pub const MACHINE_POOL_NAME_LABEL: &str = "cluster.x-k8s.io/pool-name";
/// Annotation that pauses reconciliation of an object (any value).
pub const PAUSED_ANNOTATION: &str = "cluster.x-k8s.io/paused";
/// Annotation holding the hub object data used for lossless down-conversion round trips.
pub const CONVERSION_DATA_ANNOTATION: &str = "cluster.x-k8s.io/conversion-data";
/// Cluster autoscaler annotation: minimum size of the node group.
pub const AUTOSCALER_MIN_SIZE_ANNOTATION: &str =
    "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size";
/// Cluster autoscaler annotation: maximum size of the node group.
pub const AUTOSCALER_MAX_SIZE_ANNOTATION: &str =
    "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size";
/// Annotation telling that replicas are managed by an external autoscaler (any value but `"false"`).
pub const REPLICAS_MANAGED_BY_ANNOTATION: &str = "cluster.x-k8s.io/replicas-managed-by";

/// Default `spec.template.spec.deletion.nodeDeletionTimeoutSeconds` set by the defaulting webhook.
pub const DEFAULT_NODE_DELETION_TIMEOUT_SECONDS: i32 = 10;

/// The only failure reason constant upstream defines for MachinePools.
pub const INVALID_CONFIGURATION_FAILURE: &str = "InvalidConfiguration";

/// Whether a JSON object is a MachinePool of any `cluster.x-k8s.io` version (by `kind` and the
/// group of `apiVersion`; the version itself is not checked).
///
/// ```
/// use capi_machinepool_api::constants::is_machine_pool;
/// assert!(is_machine_pool(&serde_json::json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachinePool"})));
/// assert!(!is_machine_pool(&serde_json::json!({"apiVersion": "cluster.x-k8s.io.evil/v1", "kind": "MachinePool"})));
/// ```
#[must_use]
pub fn is_machine_pool(value: &serde_json::Value) -> bool {
    value["kind"] == KIND
        && value["apiVersion"]
            .as_str()
            .and_then(capi_versions::GroupVersion::group_of)
            == Some(GROUP)
}
