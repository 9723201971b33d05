//! Control plane versions from typed objects (issue 33.3): a Cluster (either API version, read
//! into `views::Cluster`) plus its control plane as a typed `kube_core::Resource` or a
//! `DynamicObject`. The oracle is the manifest-stream path, `ControlPlanes::add` +
//! `for_cluster`, on the same documents of the real cluster dumps in `tests/fixtures/clusters/`
//! (each file's header cites its source): the typed path must give the same answer. An input
//! the Cluster does not name is an error.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_machinepool_api::views::{Cluster, KubeadmControlPlane};
use capi_machinepool_rollout::control_plane::{
    ControlPlaneInputError, ControlPlaneVersionSet, ControlPlaneVersions, ControlPlanes,
};
use kube_core::DynamicObject;
use serde_json::Value;

fn docs(fixture: &str) -> Vec<Value> {
    capi_test_support::yaml_docs(&format!("clusters/{fixture}"))
}

fn kind<'a>(docs: &'a [Value], kind: &str) -> &'a Value {
    docs.iter().find(|d| d["kind"] == kind).unwrap()
}

/// The answer of the stream path for the Cluster `ns/name` of `docs`.
fn stream_answer(docs: &[Value], ns: &str, name: &str) -> ControlPlaneVersions {
    let mut cps = ControlPlanes::new();
    for d in docs {
        cps.add(d);
    }
    cps.for_cluster(ns, name)
}

/// Three control plane kinds: KubeadmControlPlane (v1beta2 Cluster, `status.versions`), CAPA's
/// AWSManagedControlPlane (v1beta1 Cluster, `status.version` behind `spec.version`), and a
/// control plane reporting only `status.versions` (v1beta2 Cluster).
#[test]
fn dynamic_control_plane_agrees_with_the_stream() {
    for (fixture, cp_kind, ns, name) in [
        ("aws-kubeadm.yaml", "KubeadmControlPlane", "default", "prod"),
        (
            "eks-managed.yaml",
            "AWSManagedControlPlane",
            "team-a",
            "eks",
        ),
        ("versions-only.yaml", "FooControlPlane", "default", "foo"),
    ] {
        let docs = docs(fixture);
        let cluster: Cluster = serde_json::from_value(kind(&docs, "Cluster").clone()).unwrap();
        assert_eq!(
            (
                cluster.metadata.namespace.as_deref(),
                cluster.metadata.name.as_deref()
            ),
            (Some(ns), Some(name)),
            "{fixture}"
        );
        let cp: DynamicObject = serde_json::from_value(kind(&docs, cp_kind).clone()).unwrap();
        let typed = ControlPlaneVersions::of_dynamic(&cluster, &cp).unwrap();
        assert!(
            matches!(typed, ControlPlaneVersions::Found(_)),
            "{fixture}: {typed:?}"
        );
        assert_eq!(typed, stream_answer(&docs, ns, name), "{fixture}");
    }
}

/// The KubeadmControlPlane as the typed view: same answer as the stream, and as the
/// `DynamicObject`.
#[test]
fn typed_control_plane_agrees_with_the_stream() {
    let docs = docs("aws-kubeadm.yaml");
    let cluster: Cluster = serde_json::from_value(kind(&docs, "Cluster").clone()).unwrap();
    let kcp: KubeadmControlPlane =
        serde_json::from_value(kind(&docs, "KubeadmControlPlane").clone()).unwrap();
    let typed = ControlPlaneVersions::of(&cluster, &kcp).unwrap();
    assert_eq!(typed, stream_answer(&docs, "default", "prod"));
    let set = ControlPlaneVersionSet::of(&kcp).unwrap();
    assert_eq!(
        set,
        ControlPlaneVersionSet::from_value(
            "KubeadmControlPlane",
            kind(&docs, "KubeadmControlPlane")
        )
    );
    let dynamic: DynamicObject =
        serde_json::from_value(kind(&docs, "KubeadmControlPlane").clone()).unwrap();
    assert_eq!(ControlPlaneVersionSet::of_dynamic(&dynamic).unwrap(), set);
}

/// A serialized view is a Cluster document (it carries `apiVersion` and `kind`): the stream
/// path reads it (before, `add` ignored it silently), with the same answer as the original.
#[test]
fn serialized_views_are_read_by_the_stream() {
    let docs = docs("eks-managed.yaml");
    let cluster: Cluster = serde_json::from_value(kind(&docs, "Cluster").clone()).unwrap();
    let mut cps = ControlPlanes::new();
    assert!(cps.add(&serde_json::to_value(&cluster).unwrap()));
    assert!(cps.add(kind(&docs, "AWSManagedControlPlane")));
    assert_eq!(
        cps.for_cluster("team-a", "eks"),
        stream_answer(&docs, "team-a", "eks")
    );
    // The typed adder gives the same.
    let mut typed = ControlPlanes::new();
    typed.add_cluster(&cluster);
    typed.add(kind(&docs, "AWSManagedControlPlane"));
    assert_eq!(typed, cps);
}

/// Without the control plane object, the Cluster alone says what is missing, as the stream
/// does; a topology Cluster gives its desired version.
#[test]
fn cluster_alone() {
    let docs = docs("eks-managed.yaml");
    let cluster: Cluster = serde_json::from_value(kind(&docs, "Cluster").clone()).unwrap();
    let alone = ControlPlaneVersions::of_cluster(&cluster);
    assert_eq!(
        alone,
        ControlPlaneVersions::Unknown(
            "the control plane AWSManagedControlPlane.controlplane.cluster.x-k8s.io eks-cp named by Cluster team-a/eks is not in the input".into()
        )
    );
    let topology = capi_test_support::yaml("clusters/topology-v1beta2.yaml");
    let cluster: Cluster = serde_json::from_value(topology.clone()).unwrap();
    assert_eq!(
        ControlPlaneVersions::of_cluster(&cluster),
        stream_answer(&[topology], "default", "${CLUSTER_NAME}")
    );
    assert!(matches!(
        ControlPlaneVersions::of_cluster(&cluster),
        ControlPlaneVersions::Desired(v) if v.version == "${KUBERNETES_VERSION}"
    ));
}

/// Inputs that would be ignored are errors: a control plane the Cluster does not name (another
/// cluster's), one in another namespace, a Cluster naming none, an object of unknown kind.
#[test]
fn ignored_inputs_are_errors() {
    let kubeadm = docs("aws-kubeadm.yaml");
    let eks = docs("eks-managed.yaml");
    let eks_cluster: Cluster = serde_json::from_value(kind(&eks, "Cluster").clone()).unwrap();
    let kcp: DynamicObject =
        serde_json::from_value(kind(&kubeadm, "KubeadmControlPlane").clone()).unwrap();
    let err = ControlPlaneVersions::of_dynamic(&eks_cluster, &kcp).unwrap_err();
    assert!(
        matches!(&err, ControlPlaneInputError::NotNamed { named, .. } if named.name == "eks-cp"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "KubeadmControlPlane.controlplane.cluster.x-k8s.io prod-cp is not the control plane of Cluster team-a/eks, which names AWSManagedControlPlane.controlplane.cluster.x-k8s.io eks-cp"
    );

    let mut elsewhere: DynamicObject =
        serde_json::from_value(kind(&eks, "AWSManagedControlPlane").clone()).unwrap();
    elsewhere.metadata.namespace = Some("team-b".into());
    assert!(matches!(
        ControlPlaneVersions::of_dynamic(&eks_cluster, &elsewhere),
        Err(ControlPlaneInputError::OtherNamespace { namespace, .. }) if namespace == "team-b"
    ));

    let topology: Cluster =
        serde_json::from_value(capi_test_support::yaml("clusters/topology-v1beta2.yaml")).unwrap();
    assert!(matches!(
        ControlPlaneVersions::of_dynamic(&topology, &kcp),
        Err(ControlPlaneInputError::ClusterNamesNone { .. })
    ));

    let mut untyped: DynamicObject =
        serde_json::from_value(kind(&eks, "AWSManagedControlPlane").clone()).unwrap();
    untyped.types = None;
    assert!(matches!(
        ControlPlaneVersions::of_dynamic(&eks_cluster, &untyped),
        Err(ControlPlaneInputError::NoTypeMeta { name }) if name == "eks-cp"
    ));
}
