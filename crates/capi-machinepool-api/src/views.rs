//! Minimal typed views of the objects a MachinePool works with, for controllers: the fields
//! the contract and the MachinePool conditions need, nothing else (unknown fields are
//! ignored; they are views to read, not types to write back). Each implements
//! `kube_core::Resource`, so `kube::Api::<views::Cluster>` works without hand-written
//! `DynamicObject` code.
//!
//! ```
//! use capi_machinepool_api::views::{Cluster, owner_machine_pool};
//! let cluster: Cluster = serde_json::from_value(serde_json::json!({
//!   "apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
//!   "metadata": {"name": "c1"}, "spec": {"paused": true, "topology": {"version": "v1.34.2"}}})).unwrap();
//! assert!(cluster.is_paused());
//! assert_eq!(cluster.topology_version(), Some("v1.34.2"));
//! ```

use std::collections::BTreeMap;

use capi_versions::GroupVersion;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, OwnerReference};
use kube_core::ObjectMeta;
use serde::{Deserialize, Serialize};

use crate::constants::{CLUSTER_NAME_LABEL, GROUP, KIND, MACHINE_POOL_NAME_LABEL};

/// A reference to a contract object (`apiGroup`, `kind`, `name`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectRef {
    /// API group.
    #[serde(default)]
    pub api_group: String,
    /// Kind.
    #[serde(default)]
    pub kind: String,
    /// Name.
    #[serde(default)]
    pub name: String,
}

/// A `cluster.x-k8s.io/v1beta2` Cluster, as far as a MachinePool is concerned.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cluster {
    /// Metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// `spec.paused`, `spec.controlPlaneRef`, `spec.topology.version`.
    #[serde(default)]
    pub spec: ClusterSpec,
}

/// The Cluster fields read.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterSpec {
    /// Reconciliation of the Cluster and its objects is paused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused: Option<bool>,
    /// The control plane object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_plane_ref: Option<ObjectRef>,
    /// The managed topology (ClusterClass), when used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<ClusterTopology>,
}

/// The Cluster topology fields read.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClusterTopology {
    /// Kubernetes version of the control plane (and, by default, the workers).
    #[serde(default)]
    pub version: String,
}

impl Cluster {
    /// True when `spec.paused` is set (the MachinePool's `Paused` condition and every
    /// provider controller honour it).
    #[must_use]
    pub fn is_paused(&self) -> bool {
        self.spec.paused == Some(true)
    }

    /// `spec.topology.version`, when the Cluster has a topology with a version.
    #[must_use]
    pub fn topology_version(&self) -> Option<&str> {
        self.spec
            .topology
            .as_ref()
            .map(|t| t.version.as_str())
            .filter(|v| !v.is_empty())
    }
}

crate::resource::namespaced_resource!(Cluster, GROUP, "v1beta2", "Cluster", "clusters");

/// A `cluster.x-k8s.io/v1beta2` Machine (a MachinePool Machine), as far as the pool is
/// concerned.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// Metadata (labels `cluster.x-k8s.io/pool-name` and `cluster.x-k8s.io/cluster-name`).
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// `spec.version`, `spec.providerID`.
    #[serde(default)]
    pub spec: MachineSpec,
    /// `status.conditions`, `status.nodeRef`.
    #[serde(default)]
    pub status: MachineStatus,
}

/// The Machine spec fields read.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MachineSpec {
    /// Kubernetes version of the Machine's kubelet.
    #[serde(default)]
    pub version: String,
    /// Provider ID of the instance.
    #[serde(default, rename = "providerID")]
    pub provider_id: String,
}

/// The Machine status fields read.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MachineStatus {
    /// v1beta2 conditions (`Ready`, `Available`, `UpToDate`, ...).
    #[serde(
        default,
        deserialize_with = "crate::wire::condition::deserialize_list",
        skip_serializing_if = "Option::is_none"
    )]
    pub conditions: Option<Vec<Condition>>,
    /// The Node of the Machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_ref: Option<NodeRef>,
}

/// The Node a Machine runs as.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeRef {
    /// Node name.
    #[serde(default)]
    pub name: String,
}

crate::resource::namespaced_resource!(Machine, GROUP, "v1beta2", "Machine", "machines");

/// A `controlplane.cluster.x-k8s.io/v1beta2` KubeadmControlPlane: its versions.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KubeadmControlPlane {
    /// Metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// `spec.version`.
    #[serde(default)]
    pub spec: ControlPlaneSpec,
    /// `status.version`.
    #[serde(default)]
    pub status: ControlPlaneStatus,
}

/// The control plane spec fields read.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ControlPlaneSpec {
    /// Desired Kubernetes version.
    #[serde(default)]
    pub version: String,
}

/// The control plane status fields read.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ControlPlaneStatus {
    /// The oldest Kubernetes version of the control plane Machines (upstream's meaning;
    /// deprecated by the control-plane contract in favour of `versions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// `status.versions`: the Kubernetes versions the control plane runs, older to newer, with
    /// their replicas ("the preferred source of truth" of the control-plane contract).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub versions: Option<Vec<crate::common::StatusVersion>>,
}

crate::resource::namespaced_resource!(
    KubeadmControlPlane,
    "controlplane.cluster.x-k8s.io",
    "v1beta2",
    "KubeadmControlPlane",
    "kubeadmcontrolplanes"
);

/// The owner reference of the MachinePool owning an object (an InfraMachinePool, say), as
/// upstream's `GetOwnerMachinePool` finds it: kind `MachinePool` in the `cluster.x-k8s.io`
/// group, any version. Get the MachinePool by this name in the object's namespace.
///
/// ```
/// use capi_machinepool_api::views::owner_machine_pool;
/// use capi_machinepool_api::k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
/// let meta = ObjectMeta { owner_references: Some(vec![OwnerReference {
///     api_version: "cluster.x-k8s.io/v1beta2".into(), kind: "MachinePool".into(),
///     name: "workers".into(), uid: "u".into(), ..Default::default() }]), ..Default::default() };
/// assert_eq!(owner_machine_pool(&meta).unwrap().name, "workers");
/// ```
#[must_use]
pub fn owner_machine_pool(meta: &ObjectMeta) -> Option<&OwnerReference> {
    meta.owner_references
        .iter()
        .flatten()
        .find(|r| r.kind == KIND && GroupVersion::group_of(&r.api_version) == Some(GROUP))
}

/// The labels selecting the Machines (and InfraMachines) of a MachinePool, as a label selector
/// string for a list call: `cluster.x-k8s.io/cluster-name` is the cluster name and
/// `cluster.x-k8s.io/pool-name` the pool name formatted as upstream's MachinePool controller
/// does (`format.MustFormatValue`, see [`crate::label_format`]).
///
/// ```
/// use capi_machinepool_api::views::machine_pool_machines_selector;
/// assert_eq!(machine_pool_machines_selector("c1", "workers"),
///            "cluster.x-k8s.io/cluster-name=c1,cluster.x-k8s.io/pool-name=workers");
/// // A pool name that is not a valid label value (longer than 63 characters) is hashed.
/// let long = "my-machine-pool-with-a-very-long-name-that-exceeds-sixty-three-chars";
/// assert_eq!(machine_pool_machines_selector("c1", long),
///            "cluster.x-k8s.io/cluster-name=c1,cluster.x-k8s.io/pool-name=hash_Ou8XeA_z");
/// ```
#[must_use]
pub fn machine_pool_machines_selector(cluster_name: &str, pool_name: &str) -> String {
    let labels = machine_pool_machines_labels(cluster_name, pool_name);
    labels
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The labels MachinePool Machines and their InfraMachines carry (see
/// [`machine_pool_machines_selector`]): upstream's `reconcileMachines` selector.
#[must_use]
pub fn machine_pool_machines_labels(
    cluster_name: &str,
    pool_name: &str,
) -> BTreeMap<String, String> {
    BTreeMap::from([
        (CLUSTER_NAME_LABEL.to_owned(), cluster_name.to_owned()),
        (
            MACHINE_POOL_NAME_LABEL.to_owned(),
            crate::label_format::format_value(pool_name).into_owned(),
        ),
    ])
}
