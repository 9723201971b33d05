//! Converted objects validate against the target version's schema in upstream's CRD, checked
//! with a real JSON-schema validator.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use capi_machinepool_conversion::{ObjectConverter, machine_pool_converter};
use common::{fixture, resolver, yaml};
use serde_json::Value;

fn upstream_schema(version: &str) -> Value {
    let text = std::fs::read_to_string(fixture(
        "corpus/upstream-capi/cluster.x-k8s.io_machinepools.yaml",
    ))
    .unwrap();
    let crd: Value = serde_saphyr::from_multiple::<Value>(&text)
        .unwrap()
        .remove(0);
    crd["spec"]["versions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == version)
        .unwrap()["schema"]["openAPIV3Schema"]
        .clone()
}

fn validate(version: &str, object: &Value) -> Vec<String> {
    let schema = upstream_schema(version);
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .build(&schema)
        .unwrap();
    validator
        .iter_errors(object)
        .map(|e| format!("{e} @ {}", e.instance_path()))
        .collect()
}

#[test]
fn converted_objects_validate_against_target_schema() {
    let converter = machine_pool_converter(resolver());
    let cases = [
        ("conversion/v1beta1-every-field.yaml", "v1beta2"),
        ("conversion/v1beta2-every-field.yaml", "v1beta1"),
    ];
    for (file, target) in cases {
        let object = yaml(file);
        let converted = converter
            .convert_value(&object, &format!("cluster.x-k8s.io/{target}"))
            .unwrap();
        let errors = validate(target, &converted);
        assert!(errors.is_empty(), "{file} -> {target}: {errors:?}");
    }
    // The corpus example, up and down.
    let text = std::fs::read_to_string(fixture("corpus/objects/machine-pool.yaml")).unwrap();
    let docs: Vec<Value> = serde_saphyr::from_multiple(&text).unwrap();
    let pool = docs
        .into_iter()
        .find(|d| d["kind"] == "MachinePool")
        .unwrap();
    let down = converter
        .convert_value(&pool, "cluster.x-k8s.io/v1beta1")
        .unwrap();
    assert!(
        validate("v1beta1", &down).is_empty(),
        "{:?}",
        validate("v1beta1", &down)
    );
    let up = converter
        .convert_value(&down, "cluster.x-k8s.io/v1beta2")
        .unwrap();
    assert!(
        validate("v1beta2", &up).is_empty(),
        "{:?}",
        validate("v1beta2", &up)
    );
}

#[test]
fn the_validator_does_reject_bad_objects() {
    // Guard against a validator that accepts everything.
    let mut object = yaml("conversion/v1beta2-every-field.yaml");
    object["spec"]["clusterName"] = Value::String(String::new());
    object["status"]["observedGeneration"] = Value::from(0);
    let errors = validate("v1beta2", &object);
    assert_eq!(errors.len(), 2, "{errors:?}");
}
