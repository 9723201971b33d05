//! ConversionReview handling never panics and always answers with a ConversionReview.
#![no_main]

use capi_machinepool_conversion::{StaticResolver, machine_pool_converter, review};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let resolver = StaticResolver::new()
        .with("infrastructure.cluster.x-k8s.io", "DockerMachinePool", "infrastructure.cluster.x-k8s.io/v1beta2")
        .with("bootstrap.cluster.x-k8s.io", "KubeadmConfig", "bootstrap.cluster.x-k8s.io/v1beta2");
    let converter = machine_pool_converter(&resolver);
    let (_, out) = review::handle_json_with_status(&converter, data);
    let value: serde_json::Value = serde_json::from_slice(&out).expect("the response is JSON");
    assert_eq!(value["kind"], "ConversionReview");
});
