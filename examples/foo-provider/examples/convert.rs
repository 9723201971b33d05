//! A FooMachinePool v1beta1 (hub) with conditions and fields v1alpha1 lacks, converted to
//! v1alpha1 and back through the provider's conversion handler, as the API server asks the
//! webhook to:
//!
//! `cargo run -p foo-provider --example convert`

use capi_machinepool::conversion::{ObjectConverter, StaticResolver};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let converter = foo_provider::converter(StaticResolver::new());
    let hub = serde_json::json!({
        "apiVersion": "infrastructure.foo.example.com/v1beta1", "kind": "FooMachinePool",
        "metadata": {"name": "pool", "namespace": "default"},
        "spec": {"providerIDList": ["foo://a"], "instanceType": "large", "additionalTags": {"team": "infra"}},
        "status": {"initialization": {"provisioned": false}, "replicas": 1,
            "conditions": [{"type": "Ready", "status": "False", "lastTransitionTime": "2026-01-02T03:04:05Z",
                "reason": "IssuesReported", "message": "* LaunchTemplateReady: image not found"}]}
    });
    let spoke = converter.convert_value(&hub, "infrastructure.foo.example.com/v1alpha1")?;
    println!("v1alpha1:\n{}", serde_json::to_string_pretty(&spoke)?);
    let back = converter.convert_value(&spoke, "infrastructure.foo.example.com/v1beta1")?;
    println!("back to v1beta1, equal to the original: {}", back == hub);
    Ok(())
}
