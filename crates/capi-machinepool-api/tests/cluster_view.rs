//! `views::Cluster`, the one Cluster model of the workspace, read from real Clusters of both API
//! versions (fixtures under `tests/fixtures/`, each file's header or SOURCE.md cites its origin).
//!
//! The two spellings it reads are upstream's API types at ae7ff047:
//! * v1beta2 (`api/core/v1beta2/cluster_types.go`): `controlPlaneRef` is a
//!   `ContractVersionedObjectReference` (`apiGroup`, `kind`, `name`), `topology.classRef` a
//!   `ClusterClassRef` (`name`, `namespace`);
//! * v1beta1 (`internal/api/core/v1beta1/cluster_types.go`): `controlPlaneRef` is a
//!   `corev1.ObjectReference` (`apiVersion`, `kind`, `name`), `topology.class` and
//!   `topology.classNamespace` name the ClusterClass.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_machinepool_api::views::{
    Cluster, ClusterClassRef, ClusterSpec, KubeadmControlPlane, MachinePoolTopology, ObjectRef,
};
use serde_json::{Value, json};

/// The first document of `kind` in a fixture.
fn doc(fixture: &str, kind: &str) -> Value {
    capi_test_support::yaml_docs(fixture)
        .into_iter()
        .find(|d| d["kind"] == kind)
        .unwrap()
}

fn pools(spec: &ClusterSpec) -> Vec<(&str, &str)> {
    spec.machine_pool_topologies()
        .iter()
        .map(|p| (p.name.as_str(), p.class.as_str()))
        .collect()
}

/// v1beta2 `controlPlaneRef` (`apiGroup`): the corpus Cluster (upstream's
/// `test/infrastructure/docker/examples/machine-pool.yaml`).
#[test]
fn v1beta2_control_plane_ref() {
    let cluster: Cluster =
        serde_json::from_value(doc("corpus/objects/machine-pool.yaml", "Cluster")).unwrap();
    assert_eq!(cluster.metadata.name.as_deref(), Some("my-cluster"));
    assert_eq!(
        cluster.spec.control_plane(),
        Some(&ObjectRef {
            api_group: "controlplane.cluster.x-k8s.io".into(),
            kind: "KubeadmControlPlane".into(),
            name: "controlplane".into(),
        })
    );
    assert!(!cluster.is_paused());
    assert_eq!(cluster.spec.class_ref(), None);
    assert_eq!(cluster.topology_version(), None);
}

/// v1beta1 `controlPlaneRef` (`apiVersion: controlplane.cluster.x-k8s.io/v1beta2`): its group
/// is the reference's group.
#[test]
fn v1beta1_control_plane_ref() {
    let cluster: Cluster =
        serde_json::from_value(doc("clusters/eks-managed.yaml", "Cluster")).unwrap();
    let cp = cluster.spec.control_plane().unwrap();
    assert_eq!(
        (cp.api_group.as_str(), cp.kind.as_str(), cp.name.as_str()),
        (
            "controlplane.cluster.x-k8s.io",
            "AWSManagedControlPlane",
            "eks-cp"
        )
    );
    assert_eq!(
        cp.to_string(),
        "AWSManagedControlPlane.controlplane.cluster.x-k8s.io eks-cp"
    );
}

/// v1beta2 topology: `classRef` with a namespace, the version, and the MachinePool topologies
/// (upstream's e2e `cluster-with-topology.yaml`).
#[test]
fn v1beta2_topology() {
    let cluster: Cluster =
        serde_json::from_value(doc("clusters/topology-v1beta2.yaml", "Cluster")).unwrap();
    assert_eq!(
        cluster.spec.class_ref(),
        Some(&ClusterClassRef {
            name: "quick-start".into(),
            namespace: "${CLUSTER_CLASS_NAMESPACE:-${NAMESPACE}}".into(),
        })
    );
    assert_eq!(cluster.topology_version(), Some("${KUBERNETES_VERSION}"));
    assert_eq!(pools(&cluster.spec), [("mp-0", "default-worker")]);
}

/// v1beta1 topology: `class` without `classNamespace` (the Cluster's namespace), two pools
/// (CAPZ's AKS topology template, `tests/fixtures/capz-sets/SOURCE.md`).
#[test]
fn v1beta1_topology() {
    let cluster: Cluster =
        serde_json::from_value(doc("capz-sets/aks-clusterclass.yaml", "Cluster")).unwrap();
    assert_eq!(
        cluster.spec.class_ref(),
        Some(&ClusterClassRef {
            name: "aks-class".into(),
            namespace: String::new(),
        })
    );
    assert_eq!(cluster.topology_version(), Some("v1.33.1"));
    assert_eq!(
        pools(&cluster.spec),
        [("mp-0", "default-system"), ("mp-1", "default-worker")]
    );
}

/// A view serializes as a v1beta2 document with `apiVersion` and `kind`, and reads back equal:
/// a v1beta1 Cluster comes out in v1beta2 spelling.
#[test]
fn serialized_view_is_a_v1beta2_cluster() {
    for (fixture, kind) in [
        ("clusters/eks-managed.yaml", "Cluster"),
        ("capz-sets/aks-clusterclass.yaml", "Cluster"),
        ("clusters/topology-v1beta2.yaml", "Cluster"),
    ] {
        let cluster: Cluster = serde_json::from_value(doc(fixture, kind)).unwrap();
        let written = serde_json::to_value(&cluster).unwrap();
        assert_eq!(
            written["apiVersion"], "cluster.x-k8s.io/v1beta2",
            "{fixture}"
        );
        assert_eq!(written["kind"], "Cluster", "{fixture}");
        assert!(
            written["spec"]["controlPlaneRef"]
                .get("apiVersion")
                .is_none()
        );
        assert!(written["spec"]["topology"].get("class").is_none());
        let back: Cluster = serde_json::from_value(written).unwrap();
        assert_eq!(back, cluster, "{fixture}");
    }
    let written = serde_json::to_value(Cluster::default()).unwrap();
    assert_eq!(
        written,
        json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster", "metadata": {}, "spec": {}})
    );
    let kcp: KubeadmControlPlane =
        serde_json::from_value(doc("clusters/aws-kubeadm.yaml", "KubeadmControlPlane")).unwrap();
    let written = serde_json::to_value(&kcp).unwrap();
    assert_eq!(
        written["apiVersion"],
        "controlplane.cluster.x-k8s.io/v1beta2"
    );
    assert_eq!(written["kind"], "KubeadmControlPlane");
}

/// Fields of the wrong JSON type read as unset, the rest of the Cluster still reads; a
/// malformed `machinePools` entry keeps the indexes of the others.
#[test]
fn wrong_types_read_as_unset() {
    let spec = ClusterSpec::from_value(&json!({
        "paused": "yes",
        "controlPlaneRef": {"apiGroup": 7, "apiVersion": "controlplane.cluster.x-k8s.io/v1beta1", "kind": "RKE2ControlPlane", "name": "cp"},
        "topology": {"classRef": "not-an-object", "class": "c", "classNamespace": ["x"],
            "version": 1, "workers": {"machinePools": ["bad", {"name": "mp-1", "class": "w"}]}}}));
    assert_eq!(spec.paused, None);
    assert_eq!(
        spec.control_plane().unwrap().api_group,
        "controlplane.cluster.x-k8s.io"
    );
    assert_eq!(
        spec.class_ref(),
        Some(&ClusterClassRef {
            name: "c".into(),
            namespace: String::new()
        })
    );
    assert_eq!(spec.topology_version(), None);
    assert_eq!(
        spec.machine_pool_topologies(),
        [
            MachinePoolTopology::default(),
            MachinePoolTopology {
                class: "w".into(),
                name: "mp-1".into()
            }
        ]
    );
    // A reference without a kind or name names nothing; no spec at all reads as empty.
    let unnamed =
        ClusterSpec::from_value(&json!({"controlPlaneRef": {"kind": "KubeadmControlPlane"}}));
    assert_eq!(unnamed.control_plane(), None);
    assert_eq!(
        ClusterSpec::from_value(&Value::Null),
        ClusterSpec::default()
    );
    // A classRef object without a name is no topology class, and `class` is not consulted.
    let nameless = ClusterSpec::from_value(
        &json!({"topology": {"classRef": {"namespace": "ns"}, "class": "c"}}),
    );
    assert_eq!(nameless.class_ref(), None);
}
