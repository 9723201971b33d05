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

use std::collections::BTreeMap;
use std::fmt;

use capi_machinepool_api::constants::{CLUSTER_NAME_LABEL, GROUP};
use capi_machinepool_api::views::KubeadmControlPlane;
use serde_json::Value;

use crate::document::{group_of, object_label, str_at};
use crate::skew::VersionAt;

/// The API group every Cluster API control plane provider uses for its kinds.
pub const CONTROL_PLANE_GROUP: &str = "controlplane.cluster.x-k8s.io";

/// `(namespace, name)`.
type Key = (String, String);

/// A reference to a control plane: group, kind, name (the Cluster's namespace).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ControlPlaneRef {
    /// API group.
    pub group: String,
    /// Kind.
    pub kind: String,
    /// Name.
    pub name: String,
}

impl fmt::Display for ControlPlaneRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{} {}", self.kind, self.group, self.name)
    }
}

/// A Cluster, as far as its control plane versions are concerned.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct ClusterInfo {
    control_plane_ref: Option<ControlPlaneRef>,
    topology_version: Option<VersionAt>,
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
        Self { running, desired }
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

/// The Clusters and control planes of a stream.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ControlPlanes {
    clusters: BTreeMap<Key, ClusterInfo>,
    /// `(group, kind, namespace, name)` -> candidate.
    candidates: BTreeMap<(String, String, String, String), Candidate>,
}

fn label(kind: &str, (ns, name): (&str, &str), field: &str) -> String {
    format!("{} {field}", object_label(kind, ns, name))
}

/// The versions a typed control plane view publishes under the contract, read as
/// [`ControlPlaneVersionSet::from_value`] reads any control plane: `status.versions` (running,
/// the contract's preferred source), else `status.version` (running, deprecated), and
/// `spec.version` (desired).
///
/// ```
/// use capi_machinepool_api::views::KubeadmControlPlane;
/// use capi_machinepool_rollout::control_plane::control_plane_versions;
/// let kcp: KubeadmControlPlane = serde_json::from_value(serde_json::json!({
///     "metadata": {"namespace": "ns", "name": "cp"},
///     "spec": {"version": "v1.35.0"},
///     "status": {"version": "v1.34.2", "versions": [
///         {"version": "v1.34.2", "replicas": 1}, {"version": "v1.35.0", "replicas": 2}]}})).unwrap();
/// let set = control_plane_versions("KubeadmControlPlane", &kcp);
/// assert_eq!(set.running.len(), 2);
/// assert_eq!(set.desired.unwrap().at, "KubeadmControlPlane ns/cp spec.version");
/// ```
#[must_use]
pub fn control_plane_versions(
    kind: &str,
    control_plane: &KubeadmControlPlane,
) -> ControlPlaneVersionSet {
    // A view of plain strings and integers always serializes; `Null` would read as no version.
    let doc = serde_json::to_value(control_plane).unwrap_or(Value::Null);
    ControlPlaneVersionSet::from_value(kind, &doc)
}

impl ControlPlanes {
    /// Nothing found yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads a document: a `cluster.x-k8s.io` Cluster, or any object with a `spec.version`,
    /// `status.version` or `status.versions` (a control plane when a Cluster names it, or when it is in the
    /// `controlplane.cluster.x-k8s.io` group). Returns whether the document is a Cluster or
    /// a control plane of that group.
    pub fn add(&mut self, doc: &Value) -> bool {
        let api_version = str_at(doc, "/apiVersion").unwrap_or_default();
        let kind = str_at(doc, "/kind").unwrap_or_default();
        let group = group_of(api_version);
        if kind == "Cluster" && group == GROUP {
            self.add_cluster(doc);
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

    fn add_cluster(&mut self, doc: &Value) {
        let ns = str_at(doc, "/metadata/namespace").unwrap_or_default();
        let name = str_at(doc, "/metadata/name").unwrap_or_default();
        let control_plane_ref = doc.pointer("/spec/controlPlaneRef").and_then(|r| {
            let group = str_at(r, "/apiGroup")
                .or_else(|| str_at(r, "/apiVersion").map(group_of))
                .unwrap_or_default();
            Some(ControlPlaneRef {
                group: group.to_owned(),
                kind: str_at(r, "/kind")?.to_owned(),
                name: str_at(r, "/name")?.to_owned(),
            })
        });
        let topology_version = str_at(doc, "/spec/topology/version")
            .filter(|v| !v.is_empty())
            .map(|v| VersionAt::new(v, label("Cluster", (ns, name), "spec.topology.version")));
        self.clusters.insert(
            (ns.to_owned(), name.to_owned()),
            ClusterInfo {
                control_plane_ref,
                topology_version,
            },
        );
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
        cluster: &ClusterInfo,
    ) -> ControlPlaneVersions {
        let named = cluster.control_plane_ref.as_ref().and_then(|r| {
            self.candidates.get(&(
                r.group.clone(),
                r.kind.clone(),
                namespace.to_owned(),
                r.name.clone(),
            ))
        });
        if let (Some(cp), Some(r)) = (named, &cluster.control_plane_ref) {
            return Self::versions_of(cp, &r.to_string());
        }
        if let Some(desired) = &cluster.topology_version {
            return ControlPlaneVersions::Desired(desired.clone());
        }
        ControlPlaneVersions::Unknown(match &cluster.control_plane_ref {
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
