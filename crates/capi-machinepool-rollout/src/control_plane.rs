//! Which kube-apiserver versions each MachinePool's kubelets must respect, found in a
//! manifest stream.
//!
//! A MachinePool belongs to the Cluster named by its `spec.clusterName` (same namespace). The
//! Cluster's `spec.controlPlaneRef` names its control plane by group, kind and name (v1beta2
//! `apiGroup`; v1beta1 `apiVersion`): whatever kind that is (KubeadmControlPlane,
//! RKE2ControlPlane, TalosControlPlane, KamajiControlPlane, K0smotronControlPlane,
//! AWSManagedControlPlane, ...), its versions are read as the Cluster API control-plane
//! contract writes them (`docs/book/src/developer/providers/contracts/control-plane.md` at
//! ae7ff047, "ControlPlane: version"):
//!
//! * `status.versions` "is the preferred source of truth for surfacing control plane versions"
//!   (entries ordered older to newer): every listed version runs;
//! * `status.version` "can be used as an alternative or as a fallback mechanism" (deprecated):
//!   read when `status.versions` is absent;
//! * `spec.version` is required only of providers "which allow control of the version": it is
//!   the *desired* version, not one that runs ([`ControlPlaneVersionSet::desired`]). A control
//!   plane reporting no running version is judged against it, labelled as desired.
//!
//! Not every control plane has every field: a managed control plane may report only
//! `status.versions`, or set no `spec.version`.
//!
//! `Cluster.spec.topology.version` is the version the topology controller *wants*, not one
//! that runs: it is used only when the Cluster's control plane object is not in the input,
//! and then said so.
//!
//! Without the Cluster object, a control plane (any kind in the `controlplane.cluster.x-k8s.io`
//! group) labelled `cluster.x-k8s.io/cluster-name` belongs to that Cluster; when the input has
//! exactly one such control plane and no Cluster, every MachinePool is judged against it.
//!
//! Clusters are read as [`views::Cluster`](capi_machinepool_api::views::Cluster), the one
//! Cluster model (either API version). A controller holding typed objects uses
//! [`ControlPlaneVersions::of`] (a Cluster and its control plane as any typed
//! `kube_core::Resource`), [`ControlPlaneVersions::of_dynamic`] (the control plane as a
//! `DynamicObject`, its kind known at run time) or [`ControlPlaneVersions::of_cluster`] (the
//! control plane not read); a control plane the Cluster does not name is an error, never
//! ignored.

use std::collections::BTreeMap;

use capi_machinepool_api::constants::{CLUSTER_NAME_LABEL, GROUP};
use capi_machinepool_api::views::{Cluster, ClusterSpec, ObjectRef};
use kube_core::{ApiResource, DynamicObject, GroupVersionKind, Resource};
use serde::Serialize;
use serde_json::Value;

use crate::apiservers::{ApiServerOutlook, RolloutModel};
use crate::document::{group_of, object_label, str_at};
use crate::skew::VersionAt;
use crate::topology::TopologyInputs;

/// The API group every Cluster API control plane provider uses for its kinds.
pub const CONTROL_PLANE_GROUP: &str = "controlplane.cluster.x-k8s.io";

/// `(namespace, name)`.
type Key = (String, String);

/// Why typed inputs give no control plane versions: an input would be ignored otherwise.
#[derive(Debug, thiserror::Error)]
pub enum ControlPlaneInputError {
    /// The Cluster names no control plane, yet one was given.
    #[error("{cluster} names no control plane (spec.controlPlaneRef), but {given} was given")]
    ClusterNamesNone {
        /// `Cluster ns/name`.
        cluster: String,
        /// The control plane given (`Kind.group name`).
        given: String,
    },
    /// The control plane given is not the one the Cluster names.
    #[error("{given} is not the control plane of {cluster}, which names {named}")]
    NotNamed {
        /// `Cluster ns/name`.
        cluster: String,
        /// `spec.controlPlaneRef` of the Cluster.
        named: ObjectRef,
        /// The control plane given (`Kind.group name`).
        given: String,
    },
    /// The control plane given is in another namespace than the Cluster (a Cluster's
    /// `controlPlaneRef` names an object in its own namespace).
    #[error("{given} is in namespace {namespace}, not in the namespace of {cluster}")]
    OtherNamespace {
        /// `Cluster ns/name`.
        cluster: String,
        /// The control plane given (`Kind.group name`).
        given: String,
        /// Its namespace.
        namespace: String,
    },
    /// A `DynamicObject` without `apiVersion` and `kind` (`types`): what it is is unknown.
    #[error("the control plane object {name} has no apiVersion and kind")]
    NoTypeMeta {
        /// `metadata.name`.
        name: String,
    },
    /// The control plane object did not serialize to JSON.
    #[error("the control plane {given} could not be read as JSON")]
    Serialize {
        /// The control plane given (`Kind.group name`).
        given: String,
        /// The serializer's error.
        #[source]
        source: serde_json::Error,
    },
}

/// An object that may be a control plane: its versions and its cluster-name label.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Candidate {
    cluster_label: Option<String>,
    versions: ControlPlaneVersionSet,
}

/// The kube-apiserver versions of a control plane, as the contract publishes them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ControlPlaneVersionSet {
    /// Versions that run: every `status.versions[].version`, else `status.version`.
    pub running: Vec<VersionAt>,
    /// `spec.version`: where the control plane is going, not necessarily what runs.
    pub desired: Option<VersionAt>,
    /// How this kind turns `desired` into running kube-apiservers
    /// ([`outlook`](Self::outlook)).
    pub model: RolloutModel,
}

impl ControlPlaneVersionSet {
    /// Reads `status.versions`, `status.version` and `spec.version` of a control plane object
    /// of kind `kind`, labelled with where each was read. Empty strings are unset.
    ///
    /// ```
    /// use capi_machinepool_rollout::control_plane::ControlPlaneVersionSet;
    /// let set = ControlPlaneVersionSet::from_value("KubeadmControlPlane", &serde_json::json!({
    ///     "metadata": {"name": "cp", "namespace": "ns"},
    ///     "spec": {"version": "v1.35.0"},
    ///     "status": {"version": "v1.34.2", "versions": [
    ///         {"version": "v1.34.2", "replicas": 1}, {"version": "v1.35.0", "replicas": 2}]}}));
    /// let running: Vec<&str> = set.running.iter().map(|v| v.at.as_str()).collect();
    /// assert_eq!(running, ["KubeadmControlPlane ns/cp status.versions[0].version",
    ///                      "KubeadmControlPlane ns/cp status.versions[1].version"]);
    /// assert_eq!(set.desired.unwrap().at, "KubeadmControlPlane ns/cp spec.version");
    /// ```
    #[must_use]
    pub fn from_value(kind: &str, doc: &Value) -> Self {
        let ns = str_at(doc, "/metadata/namespace").unwrap_or_default();
        let name = str_at(doc, "/metadata/name").unwrap_or_default();
        Self::read(kind, (ns, name), doc)
    }

    /// The versions of a typed control plane (any kind: KubeadmControlPlane, a provider's
    /// managed control plane type, the [`views::KubeadmControlPlane`] view), read as
    /// [`from_value`](Self::from_value) reads any control plane, its kind from its
    /// `kube_core::Resource` implementation.
    ///
    /// [`views::KubeadmControlPlane`]: capi_machinepool_api::views::KubeadmControlPlane
    ///
    /// ```
    /// use capi_machinepool_api::views::KubeadmControlPlane;
    /// use capi_machinepool_rollout::control_plane::ControlPlaneVersionSet;
    /// let kcp: KubeadmControlPlane = serde_json::from_value(serde_json::json!({
    ///     "metadata": {"namespace": "ns", "name": "cp"},
    ///     "spec": {"version": "v1.35.0"},
    ///     "status": {"version": "v1.34.2", "versions": [
    ///         {"version": "v1.34.2", "replicas": 1}, {"version": "v1.35.0", "replicas": 2}]}})).unwrap();
    /// let set = ControlPlaneVersionSet::of(&kcp).unwrap();
    /// assert_eq!(set.running.len(), 2);
    /// assert_eq!(set.desired.unwrap().at, "KubeadmControlPlane ns/cp spec.version");
    /// ```
    ///
    /// # Errors
    /// When the object does not serialize to JSON.
    pub fn of<K>(control_plane: &K) -> Result<Self, ControlPlaneInputError>
    where
        K: Resource<DynamicType = ()> + Serialize,
    {
        Self::of_with(control_plane, &())
    }

    /// [`of`](Self::of) for a `DynamicObject` (as `kube::Api::<DynamicObject>` returns the
    /// object `spec.controlPlaneRef` names): its kind is its `apiVersion`/`kind`.
    ///
    /// # Errors
    /// When the object has no `apiVersion` and `kind`.
    pub fn of_dynamic(control_plane: &DynamicObject) -> Result<Self, ControlPlaneInputError> {
        Self::of_with(control_plane, &dynamic_type(control_plane)?)
    }

    /// [`of`](Self::of) for a resource whose kind is known at run time (`dyntype`).
    ///
    /// # Errors
    /// When the object does not serialize to JSON.
    pub fn of_with<K>(
        control_plane: &K,
        dyntype: &K::DynamicType,
    ) -> Result<Self, ControlPlaneInputError>
    where
        K: Resource + Serialize,
    {
        let kind = K::kind(dyntype);
        let doc = serde_json::to_value(control_plane).map_err(|source| {
            ControlPlaneInputError::Serialize {
                given: resource_ref(control_plane, dyntype).to_string(),
                source,
            }
        })?;
        Ok(Self::read(&kind, meta_key(control_plane), &doc))
    }

    /// Reads the versions of `doc`, a control plane of kind `kind` named `(ns, name)`.
    fn read(kind: &str, (ns, name): (&str, &str), doc: &Value) -> Self {
        let at = |field: &str| label(kind, (ns, name), field);
        let mut running: Vec<VersionAt> = doc
            .pointer("/status/versions")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                let v = str_at(v, "/version").filter(|v| !v.is_empty())?;
                Some(VersionAt::new(
                    v,
                    at(&format!("status.versions[{i}].version")),
                ))
            })
            .collect();
        if running.is_empty()
            && let Some(v) = str_at(doc, "/status/version").filter(|v| !v.is_empty())
        {
            running.push(VersionAt::new(v, at("status.version")));
        }
        let desired = str_at(doc, "/spec/version")
            .filter(|v| !v.is_empty())
            .map(|v| VersionAt::new(v, at("spec.version")));
        Self {
            running,
            desired,
            model: RolloutModel::for_kind(kind),
        }
    }

    /// What runs now and next by this control plane's [`RolloutModel`]
    /// ([`apiservers::outlook`](crate::apiservers::outlook)).
    ///
    /// ```
    /// use capi_machinepool_rollout::control_plane::ControlPlaneVersionSet;
    /// // KubeadmControlPlane asked to upgrade: 1.35 machines are rolled out now.
    /// let kcp = ControlPlaneVersionSet::from_value("KubeadmControlPlane", &serde_json::json!({
    ///     "metadata": {"name": "cp", "namespace": "ns"},
    ///     "spec": {"version": "v1.35.0"}, "status": {"version": "v1.34.0"}}));
    /// let outlook = kcp.outlook();
    /// let now: Vec<&str> = outlook.now_and_next.iter().map(|v| v.version.as_str()).collect();
    /// assert_eq!(now, ["v1.34.0", "v1.35.0"]);
    /// ```
    #[must_use]
    pub fn outlook(&self) -> ApiServerOutlook {
        crate::apiservers::outlook(&self.running, self.desired.as_ref(), self.model)
    }

    /// True when no version is known.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.running.is_empty() && self.desired.is_none()
    }

    fn merge(&mut self, other: &Self) {
        self.running.extend(other.running.iter().cloned());
        if self.desired.is_none() {
            self.desired.clone_from(&other.desired);
        }
    }
}

/// `(namespace, name)` of an object, empty when unset.
fn meta_key<K: Resource>(object: &K) -> (&str, &str) {
    let meta = object.meta();
    (
        meta.namespace.as_deref().unwrap_or_default(),
        meta.name.as_deref().unwrap_or_default(),
    )
}

/// A typed object as a reference (`Kind.group name`).
fn resource_ref<K: Resource>(object: &K, dyntype: &K::DynamicType) -> ObjectRef {
    ObjectRef {
        api_group: K::group(dyntype).into_owned(),
        kind: K::kind(dyntype).into_owned(),
        name: meta_key(object).1.to_owned(),
    }
}

/// The dynamic type of a `DynamicObject`, from its `apiVersion` and `kind` (`types`).
fn dynamic_type(object: &DynamicObject) -> Result<ApiResource, ControlPlaneInputError> {
    object
        .types
        .as_ref()
        .filter(|t| !t.kind.is_empty())
        .and_then(|t| GroupVersionKind::try_from(t).ok())
        .map(|gvk| ApiResource::from_gvk(&gvk))
        .ok_or_else(|| ControlPlaneInputError::NoTypeMeta {
            name: meta_key(object).1.to_owned(),
        })
}

/// Where a pool's kube-apiserver versions come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ControlPlaneVersions {
    /// Read from a control plane object (`status.versions`, `status.version`, `spec.version`).
    Found(ControlPlaneVersionSet),
    /// Only the desired version of a topology Cluster is known (its control plane object is
    /// not in the input).
    Desired(VersionAt),
    /// Nothing is known; the reason says what is missing.
    Unknown(String),
}

impl ControlPlaneVersions {
    /// The versions of a Cluster whose control plane object was not read: the topology's
    /// desired version, or [`Unknown`](Self::Unknown) saying what is missing (as
    /// [`ControlPlanes::for_cluster`] says it for a stream with only the Cluster).
    #[must_use]
    pub fn of_cluster(cluster: &Cluster) -> Self {
        let mut control_planes = ControlPlanes::new();
        control_planes.add_cluster(cluster);
        let (ns, name) = meta_key(cluster);
        control_planes.for_cluster(ns, name)
    }

    /// The versions of a Cluster (either API version, read into the
    /// [`views::Cluster`](capi_machinepool_api::views::Cluster); a `DynamicObject` Cluster
    /// converts with `DynamicObject::try_parse`) and the control plane its
    /// `spec.controlPlaneRef` names, as any typed `kube_core::Resource`: the same answer as
    /// [`ControlPlanes::for_cluster`] on a stream of these two objects.
    ///
    /// ```
    /// use capi_machinepool_api::views::{Cluster, KubeadmControlPlane};
    /// use capi_machinepool_rollout::control_plane::ControlPlaneVersions;
    /// let cluster: Cluster = serde_json::from_value(serde_json::json!({
    ///     "metadata": {"namespace": "ns", "name": "c1"},
    ///     "spec": {"controlPlaneRef": {"apiGroup": "controlplane.cluster.x-k8s.io",
    ///                                  "kind": "KubeadmControlPlane", "name": "cp"}}})).unwrap();
    /// let kcp: KubeadmControlPlane = serde_json::from_value(serde_json::json!({
    ///     "metadata": {"namespace": "ns", "name": "cp"},
    ///     "spec": {"version": "v1.35.0"}, "status": {"version": "v1.34.2"}})).unwrap();
    /// match ControlPlaneVersions::of(&cluster, &kcp).unwrap() {
    ///     ControlPlaneVersions::Found(set) => assert_eq!(set.running[0].version, "v1.34.2"),
    ///     other => panic!("{other:?}"),
    /// }
    /// // Another control plane than the one the Cluster names is an error, not ignored.
    /// let other: KubeadmControlPlane = serde_json::from_value(serde_json::json!({
    ///     "metadata": {"namespace": "ns", "name": "other"}})).unwrap();
    /// assert!(ControlPlaneVersions::of(&cluster, &other).is_err());
    /// ```
    ///
    /// # Errors
    /// When the Cluster names no control plane or another one ([`ControlPlaneInputError`]),
    /// or the control plane does not serialize to JSON.
    pub fn of<K>(cluster: &Cluster, control_plane: &K) -> Result<Self, ControlPlaneInputError>
    where
        K: Resource<DynamicType = ()> + Serialize,
    {
        Self::of_with(cluster, control_plane, &())
    }

    /// [`of`](Self::of) with the control plane as a `DynamicObject` (its kind known at run
    /// time, from its `apiVersion` and `kind`).
    ///
    /// # Errors
    /// As [`of`](Self::of), and when the object has no `apiVersion` and `kind`.
    pub fn of_dynamic(
        cluster: &Cluster,
        control_plane: &DynamicObject,
    ) -> Result<Self, ControlPlaneInputError> {
        Self::of_with(cluster, control_plane, &dynamic_type(control_plane)?)
    }

    /// [`of`](Self::of) for a control plane resource whose kind is known at run time
    /// (`dyntype`).
    ///
    /// # Errors
    /// As [`of`](Self::of).
    pub fn of_with<K>(
        cluster: &Cluster,
        control_plane: &K,
        dyntype: &K::DynamicType,
    ) -> Result<Self, ControlPlaneInputError>
    where
        K: Resource + Serialize,
    {
        let (ns, name) = meta_key(cluster);
        let cluster_at = object_label("Cluster", ns, name);
        let given = resource_ref(control_plane, dyntype);
        let Some(named) = cluster.spec.control_plane() else {
            return Err(ControlPlaneInputError::ClusterNamesNone {
                cluster: cluster_at,
                given: given.to_string(),
            });
        };
        if *named != given {
            return Err(ControlPlaneInputError::NotNamed {
                cluster: cluster_at,
                named: named.clone(),
                given: given.to_string(),
            });
        }
        let cp_ns = meta_key(control_plane).0;
        if !cp_ns.is_empty() && !ns.is_empty() && cp_ns != ns {
            return Err(ControlPlaneInputError::OtherNamespace {
                cluster: cluster_at,
                given: given.to_string(),
                namespace: cp_ns.to_owned(),
            });
        }
        let versions = ControlPlaneVersionSet::of_with(control_plane, dyntype)?;
        let mut control_planes = ControlPlanes::new();
        control_planes.add_cluster(cluster);
        control_planes.candidates.insert(
            (given.api_group, given.kind, ns.to_owned(), given.name),
            Candidate {
                cluster_label: None,
                versions,
            },
        );
        Ok(control_planes.for_cluster(ns, name))
    }
}

/// The Clusters and control planes of a stream.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ControlPlanes {
    /// `(namespace, name)` -> the Cluster's spec, read as [`views::Cluster`] reads it.
    ///
    /// [`views::Cluster`]: capi_machinepool_api::views::Cluster
    clusters: BTreeMap<Key, ClusterSpec>,
    /// `(group, kind, namespace, name)` -> candidate.
    candidates: BTreeMap<(String, String, String, String), Candidate>,
    /// What upstream's topology controller reads of the ClusterClass clusters.
    topology: TopologyInputs,
}

fn label(kind: &str, (ns, name): (&str, &str), field: &str) -> String {
    format!("{} {field}", object_label(kind, ns, name))
}

impl ControlPlanes {
    /// Nothing found yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The ClusterClass clusters of the stream, as upstream's topology controller reads them.
    #[must_use]
    pub fn topology(&self) -> &TopologyInputs {
        &self.topology
    }

    /// Reads a document: a `cluster.x-k8s.io` Cluster, or any object with a `spec.version`,
    /// `status.version` or `status.versions` (a control plane when a Cluster names it, or when it is in the
    /// `controlplane.cluster.x-k8s.io` group). Returns whether the document is a Cluster or
    /// a control plane of that group.
    pub fn add(&mut self, doc: &Value) -> bool {
        self.topology.add(doc);
        let api_version = str_at(doc, "/apiVersion").unwrap_or_default();
        let kind = str_at(doc, "/kind").unwrap_or_default();
        let group = group_of(api_version);
        if kind == "Cluster" && group == GROUP {
            let ns = str_at(doc, "/metadata/namespace").unwrap_or_default();
            let name = str_at(doc, "/metadata/name").unwrap_or_default();
            let spec = ClusterSpec::from_value(doc.get("spec").unwrap_or(&Value::Null));
            self.insert_cluster(ns, name, spec);
            return true;
        }
        if kind.is_empty() || kind == "MachinePool" {
            return false;
        }
        let ns = str_at(doc, "/metadata/namespace").unwrap_or_default();
        let name = str_at(doc, "/metadata/name").unwrap_or_default();
        let versions = ControlPlaneVersionSet::from_value(kind, doc);
        // A control plane without versions is kept (to say so); other objects without versions
        // are no control plane.
        if versions.is_empty() && group != CONTROL_PLANE_GROUP {
            return false;
        }
        let cluster_label = doc
            .pointer("/metadata/labels")
            .and_then(|l| l.get(CLUSTER_NAME_LABEL))
            .and_then(Value::as_str)
            .map(str::to_owned);
        self.candidates.insert(
            (
                group.to_owned(),
                kind.to_owned(),
                ns.to_owned(),
                name.to_owned(),
            ),
            Candidate {
                cluster_label,
                versions,
            },
        );
        group == CONTROL_PLANE_GROUP
    }

    /// Adds a typed Cluster (either API version read into the view; a `DynamicObject` Cluster
    /// converts with `DynamicObject::try_parse::<Cluster>`).
    pub fn add_cluster(&mut self, cluster: &Cluster) {
        let (ns, name) = meta_key(cluster);
        self.insert_cluster(ns, name, cluster.spec.clone());
    }

    fn insert_cluster(&mut self, ns: &str, name: &str, spec: ClusterSpec) {
        self.clusters.insert((ns.to_owned(), name.to_owned()), spec);
    }

    /// True when no Cluster and no control plane was found.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.clusters.is_empty() && !self.candidates.keys().any(|k| k.0 == CONTROL_PLANE_GROUP)
    }

    fn group_control_planes(
        &self,
    ) -> impl Iterator<Item = (&(String, String, String, String), &Candidate)> {
        self.candidates
            .iter()
            .filter(|(k, _)| k.0 == CONTROL_PLANE_GROUP)
    }

    /// The kube-apiserver versions of the Cluster `cluster_name` in `namespace`.
    #[must_use]
    pub fn for_cluster(&self, namespace: &str, cluster_name: &str) -> ControlPlaneVersions {
        let cluster_at = &object_label("Cluster", namespace, cluster_name);
        if let Some(cluster) = self
            .clusters
            .get(&(namespace.to_owned(), cluster_name.to_owned()))
        {
            return self.for_known_cluster(namespace, cluster_at, cluster);
        }
        let mut labelled = ControlPlaneVersionSet::default();
        for (_, c) in self
            .group_control_planes()
            .filter(|(k, c)| k.2 == namespace && c.cluster_label.as_deref() == Some(cluster_name))
        {
            labelled.merge(&c.versions);
        }
        if !labelled.is_empty() {
            return ControlPlaneVersions::Found(labelled);
        }
        let mut all = self.group_control_planes();
        if let (true, Some((key, only)), None) = (self.clusters.is_empty(), all.next(), all.next())
        {
            return Self::versions_of(only, &format!("{} {}", key.1, key.3));
        }
        ControlPlaneVersions::Unknown(format!(
            "{cluster_at} and its control plane are not in the input"
        ))
    }

    fn versions_of(cp: &Candidate, name: &str) -> ControlPlaneVersions {
        if cp.versions.is_empty() {
            ControlPlaneVersions::Unknown(format!(
                "the control plane {name} reports no version (status.versions, status.version, spec.version)"
            ))
        } else {
            ControlPlaneVersions::Found(cp.versions.clone())
        }
    }

    fn for_known_cluster(
        &self,
        namespace: &str,
        cluster_at: &str,
        cluster: &ClusterSpec,
    ) -> ControlPlaneVersions {
        let named = cluster.control_plane().and_then(|r| {
            self.candidates.get(&(
                r.api_group.clone(),
                r.kind.clone(),
                namespace.to_owned(),
                r.name.clone(),
            ))
        });
        if let (Some(cp), Some(r)) = (named, cluster.control_plane()) {
            return Self::versions_of(cp, &r.to_string());
        }
        if let Some(desired) = cluster.topology_version() {
            return ControlPlaneVersions::Desired(VersionAt::new(
                desired,
                format!("{cluster_at} spec.topology.version"),
            ));
        }
        ControlPlaneVersions::Unknown(match cluster.control_plane() {
            Some(r) => format!("the control plane {r} named by {cluster_at} is not in the input"),
            None => format!("{cluster_at} names no control plane (spec.controlPlaneRef)"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn versions(found: ControlPlaneVersions) -> Vec<String> {
        match found {
            ControlPlaneVersions::Found(v) => v
                .running
                .into_iter()
                .map(|v| format!("{} @ {}", v.version, v.at))
                .chain(
                    v.desired
                        .map(|v| format!("desired {} @ {}", v.version, v.at)),
                )
                .collect(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn any_control_plane_kind_through_the_cluster_ref() {
        let mut cps = ControlPlanes::new();
        cps.add(&json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster",
            "metadata": {"name": "c1", "namespace": "ns"},
            "spec": {"controlPlaneRef": {"apiVersion": "controlplane.cluster.x-k8s.io/v1beta1", "kind": "RKE2ControlPlane", "name": "cp"}}}));
        cps.add(&json!({"apiVersion": "controlplane.cluster.x-k8s.io/v1beta1", "kind": "RKE2ControlPlane",
            "metadata": {"name": "cp", "namespace": "ns"}, "spec": {"version": "v1.34.0+rke2r1"}}));
        assert_eq!(
            versions(cps.for_cluster("ns", "c1")),
            ["desired v1.34.0+rke2r1 @ RKE2ControlPlane ns/cp spec.version"]
        );
    }

    #[test]
    fn topology_version_only_without_the_control_plane_object() {
        let mut cps = ControlPlanes::new();
        cps.add(&json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
            "metadata": {"name": "c1", "namespace": "ns"},
            "spec": {"topology": {"version": "v1.35.0"},
                     "controlPlaneRef": {"apiGroup": "controlplane.cluster.x-k8s.io", "kind": "KubeadmControlPlane", "name": "cp"}}}));
        assert!(
            matches!(cps.for_cluster("ns", "c1"), ControlPlaneVersions::Desired(v) if v.version == "v1.35.0")
        );
        cps.add(&json!({"apiVersion": "controlplane.cluster.x-k8s.io/v1beta2", "kind": "KubeadmControlPlane",
            "metadata": {"name": "cp", "namespace": "ns"}, "spec": {"version": "v1.35.0"}, "status": {"version": "v1.34.2"}}));
        assert_eq!(
            versions(cps.for_cluster("ns", "c1")),
            [
                "v1.34.2 @ KubeadmControlPlane ns/cp status.version",
                "desired v1.35.0 @ KubeadmControlPlane ns/cp spec.version"
            ]
        );
    }

    #[test]
    fn unknown_says_what_is_missing() {
        let mut cps = ControlPlanes::new();
        cps.add(&json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
            "metadata": {"name": "c1", "namespace": "ns"},
            "spec": {"controlPlaneRef": {"apiGroup": "controlplane.cluster.x-k8s.io", "kind": "TalosControlPlane", "name": "tcp"}}}));
        assert_eq!(
            cps.for_cluster("ns", "c1"),
            ControlPlaneVersions::Unknown(
                "the control plane TalosControlPlane.controlplane.cluster.x-k8s.io tcp named by Cluster ns/c1 is not in the input".into()
            )
        );
        assert_eq!(
            ControlPlanes::new().for_cluster("ns", "c2"),
            ControlPlaneVersions::Unknown(
                "Cluster ns/c2 and its control plane are not in the input".into()
            )
        );
    }

    #[test]
    fn a_labelled_or_lone_control_plane_without_a_cluster() {
        let mut cps = ControlPlanes::new();
        cps.add(&json!({"apiVersion": "controlplane.cluster.x-k8s.io/v1alpha3", "kind": "KamajiControlPlane",
            "metadata": {"name": "k", "namespace": "ns", "labels": {"cluster.x-k8s.io/cluster-name": "c1"}},
            "spec": {"version": "v1.33.1"}}));
        assert_eq!(
            versions(cps.for_cluster("ns", "c1")),
            ["desired v1.33.1 @ KamajiControlPlane ns/k spec.version"]
        );
        assert_eq!(
            versions(cps.for_cluster("ns", "other")).len(),
            1,
            "the only control plane"
        );
        let mut empty = ControlPlanes::new();
        assert!(empty.add(&json!({"apiVersion": "controlplane.cluster.x-k8s.io/v1beta2", "kind": "KubeadmControlPlane",
            "metadata": {"name": "cp", "namespace": "ns"}, "spec": {"replicas": 1}})));
        assert_eq!(
            empty.for_cluster("ns", "c1"),
            ControlPlaneVersions::Unknown("the control plane KubeadmControlPlane cp reports no version (status.versions, status.version, spec.version)".into())
        );
        // A Machine has spec.version too, but is no control plane unless a Cluster names it.
        let mut machines = ControlPlanes::new();
        assert!(!machines.add(
            &json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Machine",
            "metadata": {"name": "m", "namespace": "ns"}, "spec": {"version": "v1.30.0"}})
        ));
        assert!(matches!(
            machines.for_cluster("ns", "c1"),
            ControlPlaneVersions::Unknown(_)
        ));
    }
}
