//! ConversionReview handling never panics and always answers with a ConversionReview (200
//! with a `response`, or a 4xx/5xx with a plain message).
#![no_main]

use std::sync::OnceLock;

use capi_machinepool_conversion::{ObjectConverter, StaticResolver, machine_pool_converter, review};
use libfuzzer_sys::fuzz_target;

fn converter() -> &'static dyn ObjectConverter {
    static CONVERTER: OnceLock<Box<dyn ObjectConverter>> = OnceLock::new();
    CONVERTER
        .get_or_init(|| {
            let resolver = StaticResolver::new()
                .with("infrastructure.cluster.x-k8s.io", "DockerMachinePool", "infrastructure.cluster.x-k8s.io/v1beta2")
                .with("bootstrap.cluster.x-k8s.io", "KubeadmConfig", "bootstrap.cluster.x-k8s.io/v1beta2");
            Box::new(machine_pool_converter(resolver))
        })
        .as_ref()
}

fuzz_target!(|data: &[u8]| {
    let response = review::handle_bytes(converter(), data);
    if response.status == 200 {
        let value: serde_json::Value =
            serde_json::from_slice(&response.body).expect("a 200 answer is JSON");
        assert_eq!(value["kind"], "ConversionReview");
        assert!(value["response"]["result"]["status"].is_string());
    }
});
