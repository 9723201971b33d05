//! Version skew across the objects of a manifest stream: which control plane version each
//! MachinePool's kubelets must respect, and the skew policy's verdicts
//! ([`capi_machinepool_api::skew`]).
//!
//! A MachinePool is matched to its Cluster by `spec.clusterName` (same namespace); the
//! Cluster's control plane version is its `spec.topology.version` (ClusterClass) or the
//! `spec.version` / `status.version` of the KubeadmControlPlane its `spec.controlPlaneRef`
//! names. A KubeadmControlPlane labelled `cluster.x-k8s.io/cluster-name` belongs to that
//! Cluster even without the Cluster object; when the stream has exactly one control plane and
//! no Cluster, every MachinePool is checked against it.

use std::collections::BTreeMap;

use capi_machinepool_api::constants::CLUSTER_NAME_LABEL;
use capi_machinepool_api::skew::{self, SkewFinding, VersionAt};
use capi_machinepool_api::v1beta2;
use capi_machinepool_api::views::{Cluster, KubeadmControlPlane};
use serde_json::Value;

/// `(namespace, name)`.
type Key = (String, String);

/// The control plane versions found in a stream.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ControlPlanes {
    /// Cluster -> control plane ref name (KubeadmControlPlane).
    cluster_refs: BTreeMap<Key, String>,
    /// Cluster -> topology version.
    topology: BTreeMap<Key, VersionAt>,
    /// KubeadmControlPlane -> (cluster label, versions).
    control_planes: BTreeMap<Key, (Option<String>, Vec<VersionAt>)>,
}

fn key(meta: &kube_core::ObjectMeta) -> Key {
    (
        meta.namespace.clone().unwrap_or_default(),
        meta.name.clone().unwrap_or_default(),
    )
}

fn label(kind: &str, (ns, name): &Key, field: &str) -> String {
    if ns.is_empty() {
        format!("{kind} {name} {field}")
    } else {
        format!("{kind} {ns}/{name} {field}")
    }
}

impl ControlPlanes {
    /// Nothing found yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads a document: a `cluster.x-k8s.io` Cluster or a KubeadmControlPlane (any version);
    /// other documents are ignored. Returns whether it was one of these.
    pub fn add(&mut self, doc: &Value) -> bool {
        let api_version = doc["apiVersion"].as_str().unwrap_or_default();
        match doc["kind"].as_str() {
            Some("Cluster") if api_version.starts_with("cluster.x-k8s.io/") => {
                let Ok(cluster) = serde_json::from_value::<Cluster>(doc.clone()) else {
                    return false;
                };
                let k = key(&cluster.metadata);
                if let Some(version) = cluster.topology_version() {
                    self.topology.insert(
                        k.clone(),
                        VersionAt::new(version, label("Cluster", &k, "spec.topology.version")),
                    );
                }
                // v1beta1 control plane refs are ObjectReferences: kind and name are the same.
                if let Some(r) = cluster
                    .spec
                    .control_plane_ref
                    .filter(|r| r.kind == "KubeadmControlPlane")
                {
                    self.cluster_refs.insert(k, r.name);
                }
                true
            }
            Some("KubeadmControlPlane")
                if api_version.starts_with("controlplane.cluster.x-k8s.io/") =>
            {
                let Ok(cp) = serde_json::from_value::<KubeadmControlPlane>(doc.clone()) else {
                    return false;
                };
                let k = key(&cp.metadata);
                let mut versions = vec![VersionAt::new(
                    cp.spec.version,
                    label("KubeadmControlPlane", &k, "spec.version"),
                )];
                if let Some(v) = cp.status.version {
                    versions.push(VersionAt::new(
                        v,
                        label("KubeadmControlPlane", &k, "status.version"),
                    ));
                }
                let cluster = cp
                    .metadata
                    .labels
                    .as_ref()
                    .and_then(|l| l.get(CLUSTER_NAME_LABEL))
                    .cloned();
                self.control_planes.insert(k, (cluster, versions));
                true
            }
            _ => false,
        }
    }

    /// True when no control plane version was found.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.topology.is_empty() && self.control_planes.is_empty()
    }

    /// The control plane versions of the Cluster `cluster_name` in `namespace`.
    #[must_use]
    pub fn for_cluster(&self, namespace: &str, cluster_name: &str) -> Vec<VersionAt> {
        let k = (namespace.to_owned(), cluster_name.to_owned());
        if let Some(v) = self.topology.get(&k) {
            return vec![v.clone()];
        }
        if let Some(cp) = self.cluster_refs.get(&k).and_then(|name| {
            self.control_planes
                .get(&(namespace.to_owned(), name.clone()))
        }) {
            return cp.1.clone();
        }
        let labelled: Vec<VersionAt> = self
            .control_planes
            .iter()
            .filter(|((ns, _), (cluster, _))| {
                ns == namespace && cluster.as_deref() == Some(cluster_name)
            })
            .flat_map(|(_, (_, versions))| versions.iter().cloned())
            .collect();
        if !labelled.is_empty() {
            return labelled;
        }
        // One control plane and no Cluster in the stream: it is the pool's.
        if self.cluster_refs.is_empty()
            && self.topology.is_empty()
            && self.control_planes.len() == 1
        {
            return self
                .control_planes
                .values()
                .next()
                .map(|(_, v)| v.clone())
                .unwrap_or_default();
        }
        Vec::new()
    }
}

/// The kubelet versions of a MachinePool: `spec.template.spec.version` and each
/// `status.versions[].version`.
#[must_use]
pub fn kubelet_versions(pool: &v1beta2::MachinePool) -> Vec<VersionAt> {
    let k = key(&pool.metadata);
    let mut out = vec![VersionAt::new(
        pool.spec.template.spec.version.clone(),
        label("MachinePool", &k, "spec.template.spec.version"),
    )];
    for (i, v) in pool.status.versions.iter().flatten().enumerate() {
        out.push(VersionAt::new(
            v.version.clone(),
            label("MachinePool", &k, &format!("status.versions[{i}].version")),
        ));
    }
    out
}

/// The skew verdicts for a pool: against its Cluster's control plane when the stream has
/// it, else against `fallback` (`--control-plane-version`), else none.
#[must_use]
pub fn check_pool(
    pool: &v1beta2::MachinePool,
    control_planes: &ControlPlanes,
    fallback: Option<&str>,
) -> Vec<SkewFinding> {
    let namespace = pool.metadata.namespace.as_deref().unwrap_or_default();
    let mut cp = control_planes.for_cluster(namespace, &pool.spec.cluster_name);
    if cp.is_empty()
        && let Some(version) = fallback
    {
        cp.push(VersionAt::new(version, "--control-plane-version"));
    }
    skew::check(&cp, &kubelet_versions(pool))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pool(version: &str) -> v1beta2::MachinePool {
        serde_json::from_value(json!({"metadata": {"name": "mp", "namespace": "ns"},
            "spec": {"clusterName": "c1", "template": {"spec": {"version": version}}}}))
        .unwrap()
    }

    #[test]
    fn control_plane_found_through_the_cluster() {
        let mut cps = ControlPlanes::new();
        assert!(cps.add(&json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
            "metadata": {"name": "c1", "namespace": "ns"},
            "spec": {"controlPlaneRef": {"apiGroup": "controlplane.cluster.x-k8s.io", "kind": "KubeadmControlPlane", "name": "cp"}}})));
        assert!(cps.add(&json!({"apiVersion": "controlplane.cluster.x-k8s.io/v1beta2", "kind": "KubeadmControlPlane",
            "metadata": {"name": "cp", "namespace": "ns"}, "spec": {"version": "v1.34.0"}})));
        let found = check_pool(&pool("v1.35.0"), &cps, None);
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].control_plane.at,
            "KubeadmControlPlane ns/cp spec.version"
        );
        assert_eq!(
            found[0].kubelet.at,
            "MachinePool ns/mp spec.template.spec.version"
        );
        assert!(check_pool(&pool("v1.34.3"), &cps, None).is_empty());
    }

    #[test]
    fn topology_version_and_fallback() {
        let mut cps = ControlPlanes::new();
        cps.add(&json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
            "metadata": {"name": "c1", "namespace": "ns"}, "spec": {"topology": {"version": "v1.33.0"}}}));
        assert_eq!(check_pool(&pool("v1.34.0"), &cps, None).len(), 1);
        let empty = ControlPlanes::new();
        assert!(check_pool(&pool("v1.34.0"), &empty, None).is_empty());
        assert_eq!(
            check_pool(&pool("v1.34.0"), &empty, Some("v1.33.0")).len(),
            1
        );
    }
}
