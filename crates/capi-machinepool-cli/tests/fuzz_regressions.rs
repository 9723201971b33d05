//! Inputs found by the cargo-fuzz targets (`fuzz/`), kept as regression tests: each goes through
//! the same code path as its target and must give an answer, not a panic. (No crash was found
//! in the runs so far; these are coverage-increasing inputs the fuzzer kept.)
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;

use capi_contract_check::{CheckOptions, Checker, CrdInput};
use capi_machinepool_admission::{FeatureGates, default_machine_pool, validate_machine_pool};
use capi_machinepool_api::{v1beta1, v1beta2};
use capi_machinepool_conversion::{StaticResolver, machine_pool_converter, review};
use capi_manifests::Limits;
use capi_manifests::load::documents;
use capi_test_support::go_normalized;
use serde_json::Value;

fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/fuzz")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty());
    files
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect()
}

#[test]
fn parse_machine_pool_inputs() {
    for (name, data) in inputs("parse_machine_pool") {
        let Ok(text) = std::str::from_utf8(&data) else {
            continue;
        };
        let Ok(docs) = documents(text, &name, &Limits::default()) else {
            continue;
        };
        for doc in docs {
            if let Ok(mut mp) = serde_json::from_value::<v1beta2::MachinePool>(doc.value.clone()) {
                let again: v1beta2::MachinePool =
                    serde_json::from_value(serde_json::to_value(&mp).unwrap()).unwrap();
                assert_eq!(again, go_normalized::v1beta2(mp.clone()), "{name}");
                if default_machine_pool(&mut mp, None).is_ok() {
                    let _ = validate_machine_pool(&mp, None, &FeatureGates::default());
                }
            }
            if let Ok(mp) = serde_json::from_value::<v1beta1::MachinePool>(doc.value) {
                let _ = capi_machinepool_conversion::machine_pool::to_hub(mp);
            }
        }
    }
}

#[test]
fn conversion_review_inputs() {
    let resolver = StaticResolver::new()
        .with(
            "infrastructure.cluster.x-k8s.io",
            "DockerMachinePool",
            "infrastructure.cluster.x-k8s.io/v1beta2",
        )
        .with(
            "bootstrap.cluster.x-k8s.io",
            "KubeadmConfig",
            "bootstrap.cluster.x-k8s.io/v1beta2",
        );
    let converter = machine_pool_converter(resolver);
    for (name, data) in inputs("conversion_review") {
        let response = review::handle_bytes(&converter, &data);
        let value: Value = serde_json::from_slice(&response.body).unwrap();
        assert_eq!(value["kind"], "ConversionReview", "{name}");
        assert!(response.status == 200 || response.status == 400, "{name}");
    }
}

#[test]
fn contract_check_inputs() {
    for (name, data) in inputs("contract_check") {
        let Ok(text) = std::str::from_utf8(&data) else {
            continue;
        };
        let Ok(docs) = documents(text, &name, &Limits::default()) else {
            continue;
        };
        let mut checker = Checker::new(CheckOptions::default());
        for d in &docs {
            checker.add_crd(&CrdInput::from(d.value.clone()));
            checker.add_object(&d.value, Some(&d.source));
        }
        let _ = checker.finish().to_string();
    }
}
