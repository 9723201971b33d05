//! Golden tests: hand-written objects covering every moved field, their expected conversion,
//! and the way back.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use capi_machinepool_api::constants::CONVERSION_DATA_ANNOTATION;
use capi_machinepool_conversion::{ObjectConverter, machine_pool_converter};
use common::{golden, resolver, yaml};

#[test]
fn v1beta1_to_v1beta2_and_back() {
    let converter = machine_pool_converter(resolver());
    let spoke = yaml("conversion/v1beta1-every-field.yaml");
    let hub = converter
        .convert_value(&spoke, "cluster.x-k8s.io/v1beta2")
        .unwrap();
    golden("conversion/v1beta1-every-field.to-v1beta2.yaml", &hub);
    let mut back = converter
        .convert_value(&hub, "cluster.x-k8s.io/v1beta1")
        .unwrap();
    golden("conversion/v1beta1-every-field.round-trip.yaml", &back);
    // What v1beta1 cannot keep through the hub: sub-second durations, ref uid/resourceVersion.
    let annotations = back["metadata"]["annotations"].as_object_mut().unwrap();
    assert!(annotations.remove(CONVERSION_DATA_ANNOTATION).is_some());
    assert_eq!(
        back["spec"]["template"]["spec"]["nodeDrainTimeout"],
        "5m30s"
    );
    assert!(
        back["spec"]["template"]["spec"]["bootstrap"]["configRef"]
            .get("uid")
            .is_none()
    );
    assert_eq!(back["status"], spoke["status"]);
}

#[test]
fn v1beta2_to_v1beta1_and_back_is_lossless() {
    let converter = machine_pool_converter(resolver());
    let hub = yaml("conversion/v1beta2-every-field.yaml");
    let spoke = converter
        .convert_value(&hub, "cluster.x-k8s.io/v1beta1")
        .unwrap();
    golden("conversion/v1beta2-every-field.to-v1beta1.yaml", &spoke);
    let back = converter
        .convert_value(&spoke, "cluster.x-k8s.io/v1beta2")
        .unwrap();
    assert_eq!(back, hub, "hub -> spoke -> hub must return the original");
}

#[test]
fn false_vs_unset_initialization_is_recovered_only_through_the_annotation() {
    let converter = machine_pool_converter(resolver());
    let hub = yaml("conversion/v1beta2-every-field.yaml");
    let mut spoke = converter
        .convert_value(&hub, "cluster.x-k8s.io/v1beta1")
        .unwrap();
    assert_eq!(spoke["status"]["infrastructureReady"], false);
    spoke["metadata"]["annotations"]
        .as_object_mut()
        .unwrap()
        .remove(CONVERSION_DATA_ANNOTATION);
    let back = converter
        .convert_value(&spoke, "cluster.x-k8s.io/v1beta2")
        .unwrap();
    // Without the annotation, `false` means "not reported".
    assert!(
        back["status"]["initialization"]
            .get("infrastructureProvisioned")
            .is_none()
    );
    assert_eq!(
        back["status"]["initialization"]["bootstrapDataSecretCreated"],
        true
    );
}
