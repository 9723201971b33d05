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
use std::fmt;

use capi_versions::GroupVersion;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, OwnerReference};
use kube_core::{ObjectMeta, Resource};
use serde::{Deserialize, Serialize};

use crate::constants::{CLUSTER_NAME_LABEL, GROUP, KIND, MACHINE_POOL_NAME_LABEL};

/// `Serialize` for a view: `apiVersion` and `kind` (from its `kube_core::Resource`), then the
/// fields, so that a serialized view is an object document again (as k8s-openapi's types do).
macro_rules! typed_serialize {
    ($ty:ident, [$($field:ident),*]) => {
        impl Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeStruct;
                let mut s = serializer.serialize_struct(stringify!($ty), 2 $(+ { let _ = stringify!($field); 1 })*)?;
                s.serialize_field("apiVersion", &<Self as Resource>::api_version(&()))?;
                s.serialize_field("kind", &<Self as Resource>::kind(&()))?;
                $(s.serialize_field(stringify!($field), &self.$field)?;)*
                s.end()
            }
        }
    };
}

/// A reference to a contract object (`apiGroup`, `kind`, `name`).
///
/// Read from either API version: v1beta2's `apiGroup`, or the group of v1beta1's `apiVersion`
/// (a `corev1.ObjectReference`); written as v1beta2. `Display` is `Kind.group name`.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", from = "wire::ObjectRef")]
pub struct ObjectRef {
    /// API group.
    pub api_group: String,
    /// Kind.
    pub kind: String,
    /// Name.
    pub name: String,
}

impl ObjectRef {
    /// True when the reference names a kind and a name (a group may be empty: the core group).
    #[must_use]
    pub fn is_named(&self) -> bool {
        !self.kind.is_empty() && !self.name.is_empty()
    }
}

impl fmt::Display for ObjectRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{} {}", self.kind, self.api_group, self.name)
    }
}

/// A Cluster API Cluster, as far as a MachinePool and its checks are concerned: the one model
/// of a Cluster in the workspace (rollout's control plane lookup and the contract checker's
/// topology rules read it too).
///
/// The view is `cluster.x-k8s.io/v1beta2` (what `kube::Api::<Cluster>` reads), and it reads a
/// v1beta1 Cluster as well: `controlPlaneRef.apiVersion` becomes the reference's group,
/// `topology.class` / `topology.classNamespace` the topology's `classRef`. It serializes as
/// v1beta2 with `apiVersion` and `kind`, so a serialized view is a Cluster document again.
///
/// Spec fields are read leniently, as the checks read manifests: a field of the wrong JSON
/// type reads as unset (the API server rejects such an object; a view reports what it can),
/// and a malformed entry of `topology.workers.machinePools` keeps its index.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct Cluster {
    /// Metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// `spec.paused`, `spec.controlPlaneRef`, `spec.topology`.
    #[serde(default, deserialize_with = "wire::lenient")]
    pub spec: ClusterSpec,
}

/// The Cluster fields read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterSpec {
    /// Reconciliation of the Cluster and its objects is paused.
    #[serde(
        default,
        deserialize_with = "wire::lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub paused: Option<bool>,
    /// The control plane object.
    #[serde(
        default,
        deserialize_with = "wire::lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub control_plane_ref: Option<ObjectRef>,
    /// The managed topology (ClusterClass), when used.
    #[serde(
        default,
        deserialize_with = "wire::lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub topology: Option<ClusterTopology>,
}

/// The Cluster topology fields read (v1beta2 spelling; v1beta1's `class` and `classNamespace`
/// are read into [`class_ref`](Self::class_ref)).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", from = "wire::ClusterTopology")]
pub struct ClusterTopology {
    /// The ClusterClass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class_ref: Option<ClusterClassRef>,
    /// Kubernetes version of the control plane (and, by default, the workers).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub version: String,
    /// The worker topologies.
    #[serde(skip_serializing_if = "WorkersTopology::is_empty")]
    pub workers: WorkersTopology,
}

/// The ClusterClass of a topology (v1beta2 `classRef`; v1beta1 `class`, `classNamespace`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterClassRef {
    /// Name of the ClusterClass.
    #[serde(default, deserialize_with = "wire::lenient")]
    pub name: String,
    /// Its namespace; empty means the Cluster's namespace.
    #[serde(
        default,
        deserialize_with = "wire::lenient",
        skip_serializing_if = "String::is_empty"
    )]
    pub namespace: String,
}

/// The worker topologies read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkersTopology {
    /// `machinePools`, in order (a malformed entry reads as an empty one, keeping indexes).
    #[serde(
        default,
        deserialize_with = "wire::lenient_list",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub machine_pools: Vec<MachinePoolTopology>,
}

impl WorkersTopology {
    fn is_empty(&self) -> bool {
        self.machine_pools.is_empty()
    }
}

/// One MachinePool of a Cluster topology.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MachinePoolTopology {
    /// The MachinePoolClass of the ClusterClass.
    #[serde(default, deserialize_with = "wire::lenient")]
    pub class: String,
    /// Name of the pool in the topology.
    #[serde(default, deserialize_with = "wire::lenient")]
    pub name: String,
}

impl ClusterSpec {
    /// Reads the `spec` of a Cluster document of either API version (see [`Cluster`]); a
    /// `spec` that is no JSON object reads as empty.
    #[must_use]
    pub fn from_value(spec: &serde_json::Value) -> Self {
        Self::deserialize(spec).unwrap_or_default()
    }

    /// True when `spec.paused` is set.
    #[must_use]
    pub fn is_paused(&self) -> bool {
        self.paused == Some(true)
    }

    /// `spec.topology.version`, when the Cluster has a topology with a version.
    #[must_use]
    pub fn topology_version(&self) -> Option<&str> {
        self.topology
            .as_ref()
            .map(|t| t.version.as_str())
            .filter(|v| !v.is_empty())
    }

    /// `spec.controlPlaneRef`, when it names a kind and a name.
    #[must_use]
    pub fn control_plane(&self) -> Option<&ObjectRef> {
        self.control_plane_ref.as_ref().filter(|r| r.is_named())
    }

    /// The topology's ClusterClass, when it is named: a Cluster with a managed topology.
    #[must_use]
    pub fn class_ref(&self) -> Option<&ClusterClassRef> {
        self.topology
            .as_ref()
            .and_then(|t| t.class_ref.as_ref())
            .filter(|r| !r.name.is_empty())
    }

    /// `spec.topology.workers.machinePools`, in order.
    #[must_use]
    pub fn machine_pool_topologies(&self) -> &[MachinePoolTopology] {
        self.topology
            .as_ref()
            .map(|t| t.workers.machine_pools.as_slice())
            .unwrap_or_default()
    }
}

impl Cluster {
    /// True when `spec.paused` is set (the MachinePool's `Paused` condition and every
    /// provider controller honour it).
    #[must_use]
    pub fn is_paused(&self) -> bool {
        self.spec.is_paused()
    }

    /// `spec.topology.version`, when the Cluster has a topology with a version.
    #[must_use]
    pub fn topology_version(&self) -> Option<&str> {
        self.spec.topology_version()
    }
}

crate::resource::namespaced_resource!(Cluster, GROUP, "v1beta2", "Cluster", "clusters");
typed_serialize!(Cluster, [metadata, spec]);

/// A `cluster.x-k8s.io/v1beta2` Machine (a MachinePool Machine), as far as the pool is
/// concerned. Serializes with `apiVersion` and `kind`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
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
typed_serialize!(Machine, [metadata, spec, status]);

/// A `controlplane.cluster.x-k8s.io/v1beta2` KubeadmControlPlane: its versions. Serializes
/// with `apiVersion` and `kind`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
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
typed_serialize!(KubeadmControlPlane, [metadata, spec, status]);

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

/// How the views read both API versions, leniently.
mod wire {
    use capi_versions::GroupVersion;
    use serde::de::DeserializeOwned;
    use serde::{Deserialize, Deserializer};
    use serde_json::Value;

    /// A field of the wrong JSON type reads as its default.
    pub(super) fn lenient<'de, D, T>(deserializer: D) -> Result<T, D::Error>
    where
        D: Deserializer<'de>,
        T: DeserializeOwned + Default,
    {
        let value = Value::deserialize(deserializer)?;
        Ok(T::deserialize(value).unwrap_or_default())
    }

    /// A list whose malformed entries read as defaults (indexes kept); no list reads as empty.
    pub(super) fn lenient_list<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
    where
        D: Deserializer<'de>,
        T: DeserializeOwned + Default,
    {
        Ok(match Value::deserialize(deserializer)? {
            Value::Array(items) => items
                .into_iter()
                .map(|v| T::deserialize(v).unwrap_or_default())
                .collect(),
            _ => Vec::new(),
        })
    }

    /// `ObjectRef` as either API version writes it.
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub(super) struct ObjectRef {
        #[serde(default, deserialize_with = "lenient")]
        api_group: Option<String>,
        #[serde(default, deserialize_with = "lenient")]
        api_version: Option<String>,
        #[serde(default, deserialize_with = "lenient")]
        kind: String,
        #[serde(default, deserialize_with = "lenient")]
        name: String,
    }

    impl From<ObjectRef> for super::ObjectRef {
        fn from(r: ObjectRef) -> Self {
            let api_group = r
                .api_group
                .or_else(|| {
                    r.api_version
                        .as_deref()
                        .map(|v| GroupVersion::group_of(v).unwrap_or_default().to_owned())
                })
                .unwrap_or_default();
            Self {
                api_group,
                kind: r.kind,
                name: r.name,
            }
        }
    }

    /// `ClusterTopology` as either API version writes it.
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub(super) struct ClusterTopology {
        #[serde(default, deserialize_with = "lenient")]
        class_ref: Option<super::ClusterClassRef>,
        #[serde(default, deserialize_with = "lenient")]
        class: Option<String>,
        #[serde(default, deserialize_with = "lenient")]
        class_namespace: String,
        #[serde(default, deserialize_with = "lenient")]
        version: String,
        #[serde(default, deserialize_with = "lenient")]
        workers: super::WorkersTopology,
    }

    impl From<ClusterTopology> for super::ClusterTopology {
        fn from(t: ClusterTopology) -> Self {
            let class_ref = t.class_ref.or_else(|| {
                t.class.map(|name| super::ClusterClassRef {
                    name,
                    namespace: t.class_namespace,
                })
            });
            Self {
                class_ref,
                version: t.version,
                workers: t.workers,
            }
        }
    }
}
