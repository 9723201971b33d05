//! Inputs found by the cargo-fuzz targets (`fuzz/`), kept as regression tests: each goes through
//! the same code path as its target and must give an answer, not a panic. Files named
//! `crash-*` once broke a target's assertion (see `fuzz/README.md`); the others are
//! coverage-increasing inputs the fuzzer kept.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_machinepool_conversion::{StaticResolver, machine_pool_converter, review};
use serde_json::Value;

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
    for (name, data) in capi_test_support::fuzz_inputs("conversion_review") {
        let response = review::handle_bytes(&converter, &data);
        let value: Value = serde_json::from_slice(&response.body).unwrap();
        assert_eq!(value["kind"], "ConversionReview", "{name}");
        assert!(response.status == 200 || response.status == 400, "{name}");
    }
}
