//! Every kind converts an object without `spec` (and without `status`) through the webhook.
//!
//! The API server may send such objects: upstream's `util/conversion` FuzzTestFunc converts
//! a copy of the spoke with its spec cleared ("dstCopyNoSpec"), and the recipe
//! (`docs/provider-webhook.md`, step 1) says "Give every spec field a serde default". A type
//! without one fails with `missing field ...` and the review answers Failure.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_machinepool::conversion::{
    ApiVersionResolver, ConversionError, HubSpokeConverter, LosslessSpoke, StaticResolver,
};
use capi_machinepool::testing::convert_via_review;
use foo_provider::{converter, v1alpha1, v1beta1};
use serde_json::{Value, json};

fn specless(api_version: &str, kind: &str) -> Value {
    json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": "bare", "namespace": "default"}})
}

#[test]
fn a_specless_foo_machine_pool_converts_both_ways() {
    let converter = converter(StaticResolver::new());
    let v1alpha1 = "infrastructure.foo.example.com/v1alpha1";
    let v1beta1 = "infrastructure.foo.example.com/v1beta1";
    let up: v1beta1::FooMachinePool =
        convert_via_review(&converter, &specless(v1alpha1, "FooMachinePool"), v1beta1).unwrap();
    assert_eq!(up.spec, v1beta1::FooMachinePoolSpec::default());
    assert_eq!(up.status, None);
    let down: v1alpha1::FooMachinePool =
        convert_via_review(&converter, &specless(v1beta1, "FooMachinePool"), v1alpha1).unwrap();
    assert_eq!(down.spec, v1alpha1::FooMachinePoolSpec::default());
    assert_eq!(down.metadata.name.as_deref(), Some("bare"));
}

/// FooMachinePoolTemplate has one version; a provider that copies it and adds a second one
/// (here a test-local v1alpha1 with the same fields) must convert a spec-less template.
mod v1alpha1_template {
    use super::*;

    /// The template spec, as an older version would have it.
    #[derive(
        kube::CustomResource,
        Clone,
        Debug,
        Default,
        PartialEq,
        serde::Serialize,
        serde::Deserialize,
        schemars::JsonSchema,
    )]
    #[kube(
        group = "infrastructure.foo.example.com",
        version = "v1alpha1",
        kind = "FooMachinePoolTemplate",
        namespaced
    )]
    #[serde(default)]
    pub struct Spec {
        pub template: v1beta1::FooMachinePoolTemplateResource,
    }

    impl LosslessSpoke<v1beta1::FooMachinePoolTemplate> for FooMachinePoolTemplate {
        fn to_hub_fields(
            self,
            _: &dyn ApiVersionResolver,
        ) -> Result<v1beta1::FooMachinePoolTemplate, ConversionError> {
            let spec = v1beta1::FooMachinePoolTemplateSpec {
                template: self.spec.template,
            };
            Ok(v1beta1::FooMachinePoolTemplate::new("", spec))
        }
        fn from_hub_fields(
            hub: &v1beta1::FooMachinePoolTemplate,
            _: &dyn ApiVersionResolver,
        ) -> Result<Self, ConversionError> {
            Ok(Self::new(
                "",
                Spec {
                    template: hub.spec.template.clone(),
                },
            ))
        }
        fn restore(_: &mut v1beta1::FooMachinePoolTemplate, _: v1beta1::FooMachinePoolTemplate) {}
    }
}

#[test]
fn a_specless_foo_machine_pool_template_converts() {
    let converter =
        HubSpokeConverter::<v1beta1::FooMachinePoolTemplate>::new(StaticResolver::new())
            .with_spoke::<v1alpha1_template::FooMachinePoolTemplate>();
    let hub = specless(
        "infrastructure.foo.example.com/v1beta1",
        "FooMachinePoolTemplate",
    );
    let down: v1alpha1_template::FooMachinePoolTemplate =
        convert_via_review(&converter, &hub, "infrastructure.foo.example.com/v1alpha1").unwrap();
    assert_eq!(down.spec, v1alpha1_template::Spec::default());
}
