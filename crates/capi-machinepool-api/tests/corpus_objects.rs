//! Every MachinePool in the corpus parses and re-serializes to the same JSON (and bytes, in
//! Go's field order); TypeMeta is checked.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_machinepool_api::{v1beta1, v1beta2};
use capi_test_support::corpus_machine_pools;
use serde_json::json;

#[test]
fn corpus_machine_pools_round_trip_exactly() {
    for doc in corpus_machine_pools() {
        let typed: v1beta2::MachinePool = serde_json::from_value(doc.clone()).unwrap();
        assert_eq!(serde_json::to_value(&typed).unwrap(), doc);
    }
}

#[test]
fn v1beta1_value_fields_are_always_emitted() {
    let doc = json!({
        "apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachinePool",
        "metadata": {"name": "mp", "namespace": "default"},
        "spec": {"clusterName": "c", "template": {"spec": {"clusterName": "c",
            "bootstrap": {"configRef": {"apiVersion": "bootstrap.cluster.x-k8s.io/v1beta1", "kind": "KubeadmConfig", "name": "k"}},
            "infrastructureRef": {"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "DockerMachinePool", "name": "d"},
            "nodeDrainTimeout": "90s"}}}
    });
    let mp: v1beta1::MachinePool = serde_json::from_value(doc).unwrap();
    let out = serde_json::to_value(&mp).unwrap();
    assert_eq!(
        out["status"],
        json!({"replicas": 0, "bootstrapReady": false, "infrastructureReady": false})
    );
    assert_eq!(out["spec"]["template"]["metadata"], json!({}));
    // Go re-formats durations with time.Duration.String().
    assert_eq!(out["spec"]["template"]["spec"]["nodeDrainTimeout"], "1m30s");
}

#[test]
fn v1beta2_pointers_distinguish_zero_from_unset() {
    let mut mp = v1beta2::MachinePool::new("mp", Default::default());
    assert!(serde_json::to_value(&mp).unwrap().get("status").is_none());
    mp.status.replicas = Some(0);
    mp.status.initialization.infrastructure_provisioned = Some(false);
    let out = serde_json::to_value(&mp).unwrap();
    assert_eq!(
        out["status"],
        json!({"replicas": 0, "initialization": {"infrastructureProvisioned": false}})
    );
}

#[test]
fn wrong_api_version_or_kind_is_rejected() {
    let err = serde_json::from_value::<v1beta2::MachinePool>(
        json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachinePool"}),
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains(r#"unexpected apiVersion "cluster.x-k8s.io/v1beta1""#),
        "{err}"
    );
    let err = serde_json::from_value::<v1beta1::MachinePool>(
        json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachineDeployment"}),
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains(r#"unexpected kind "MachineDeployment""#),
        "{err}"
    );
}

#[test]
fn unknown_fields_do_not_fail_deserialization() {
    let mp: v1beta2::MachinePool = serde_json::from_value(
        json!({"spec": {"clusterName": "c", "futureField": 1}, "extra": true}),
    )
    .unwrap();
    assert_eq!(mp.spec.cluster_name, "c");
}

/// Byte for byte: the corpus MachinePool printed in Go's field order (TypeMeta `kind` first, then
/// struct declaration order: spec clusterName/replicas/template, MachineSpec clusterName/
/// bootstrap/infrastructureRef/version, ContractVersionedObjectReference kind/name/apiGroup).
#[test]
fn corpus_machine_pool_bytes_follow_go_field_order() {
    let doc = corpus_machine_pools().remove(0);
    let typed: v1beta2::MachinePool = serde_json::from_value(doc).unwrap();
    let expected = concat!(
        r#"{"kind":"MachinePool","apiVersion":"cluster.x-k8s.io/v1beta2","metadata":{"name":"worker-mp-0","namespace":"default"},"#,
        r#""spec":{"clusterName":"my-cluster","replicas":2,"template":{"spec":{"clusterName":"my-cluster","#,
        r#""bootstrap":{"configRef":{"kind":"KubeadmConfig","name":"worker-mp-0-config","apiGroup":"bootstrap.cluster.x-k8s.io"}},"#,
        r#""infrastructureRef":{"kind":"DockerMachinePool","name":"worker-dmp-0","apiGroup":"infrastructure.cluster.x-k8s.io"},"#,
        r#""version":"v1.37.0-rc.1"}}}}"#
    );
    assert_eq!(serde_json::to_string(&typed).unwrap(), expected);
}
