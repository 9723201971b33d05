//! A provider's own kinds (`#[derive(CustomResource)]` roots) convert losslessly through the
//! conversion-data annotation, whichever of upstream's texts the annotation holds; failures
//! render each piece of context once.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use capi_diagnostics::error_chain;
use capi_machinepool_api::constants::CONVERSION_DATA_ANNOTATION;
use capi_machinepool_conversion::{
    ApiVersionResolver, ConversionError, Hub, HubSpokeConverter, LosslessSpoke, ObjectConverter,
    StaticResolver, conversion_data, machine_pool_converter, review,
};
use kube::CustomResource;
use kube_core::ObjectMeta;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

mod v2 {
    use super::*;

    /// The hub: `zone` and `status` are what v1 lacks.
    #[derive(
        CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema,
    )]
    #[kube(
        group = "example.com",
        version = "v2",
        kind = "Widget",
        namespaced,
        status = "WidgetStatus",
        derive = "PartialEq"
    )]
    #[serde(rename_all = "camelCase")]
    pub struct WidgetSpec {
        #[serde(default)]
        pub size: i32,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pub zone: String,
    }

    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
    pub struct WidgetStatus {
        #[serde(default)]
        pub ready: bool,
    }
}

mod v1 {
    use super::*;

    #[derive(
        CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema,
    )]
    #[kube(group = "example.com", version = "v1", kind = "Widget", namespaced)]
    pub struct WidgetSpec {
        #[serde(default)]
        pub size: i32,
    }
}

impl Hub for v2::Widget {}

impl LosslessSpoke<v2::Widget> for v1::Widget {
    fn to_hub_fields(self, _: &dyn ApiVersionResolver) -> Result<v2::Widget, ConversionError> {
        Ok(v2::Widget::new(
            "",
            v2::WidgetSpec {
                size: self.spec.size,
                zone: String::new(),
            },
        ))
    }

    fn from_hub_fields(
        hub: &v2::Widget,
        _: &dyn ApiVersionResolver,
    ) -> Result<Self, ConversionError> {
        Ok(v1::Widget::new(
            "",
            v1::WidgetSpec {
                size: hub.spec.size,
            },
        ))
    }

    fn restore(hub: &mut v2::Widget, saved: v2::Widget) {
        hub.spec.zone = saved.spec.zone;
        hub.status = saved.status;
    }
}

fn converter() -> HubSpokeConverter<v2::Widget> {
    HubSpokeConverter::new(StaticResolver::new()).with_spoke::<v1::Widget>()
}

fn hub() -> Value {
    json!({"apiVersion": "example.com/v2", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default", "labels": {"app": "x"}},
        "spec": {"size": 3, "zone": "eu-1"}, "status": {"ready": true}})
}

/// The issue's blocker: `marshal` cuts `"metadata":{},` (as upstream does), and the next
/// up-conversion of a kube-derive hub failed with "missing field `metadata`".
#[test]
fn a_down_converted_kube_derive_object_converts_back_equal() {
    let converter = converter();
    let spoke = converter.convert_value(&hub(), "example.com/v1").unwrap();
    assert_eq!(
        spoke["metadata"]["annotations"][CONVERSION_DATA_ANNOTATION],
        r#"{"apiVersion":"example.com/v2","kind":"Widget","spec":{"size":3,"zone":"eu-1"},"status":{"ready":true}}"#
    );
    assert_eq!(spoke["spec"], json!({"size": 3}));
    let back = converter.convert_value(&spoke, "example.com/v2").unwrap();
    assert_eq!(back, hub());
}

/// A spoke written by a user (no annotation) converts up and back to itself, less the
/// annotation (upstream's `FuzzTestFunc` "spoke-hub-spoke" removes it before comparing).
#[test]
fn a_spoke_without_annotation_converts_up_and_back() {
    let converter = converter();
    let spoke = json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "annotations": {"note": "kept"}}, "spec": {"size": 1}});
    let up = converter.convert_value(&spoke, "example.com/v2").unwrap();
    assert_eq!(up["spec"], json!({"size": 1}));
    assert_eq!(up["metadata"]["annotations"], json!({"note": "kept"}));
    let mut down = converter.convert_value(&up, "example.com/v1").unwrap();
    down["metadata"]["annotations"]
        .as_object_mut()
        .unwrap()
        .remove(CONVERSION_DATA_ANNOTATION);
    assert_eq!(down, spoke);
}

fn with_annotation(data: &str) -> ObjectMeta {
    ObjectMeta {
        annotations: Some([(CONVERSION_DATA_ANNOTATION.to_owned(), data.to_owned())].into()),
        ..ObjectMeta::default()
    }
}

/// Each text upstream writes decodes into the kube-derive hub.
#[test]
fn every_upstream_text_decodes_into_a_kube_derive_hub() {
    let expected = |zone: &str, ready: Option<bool>| {
        let mut w = v2::Widget::new(
            "",
            v2::WidgetSpec {
                size: 3,
                zone: zone.into(),
            },
        );
        w.metadata = ObjectMeta::default();
        w.status = ready.map(|ready| v2::WidgetStatus { ready });
        w
    };
    let rows = [
        // util/conversion/conversion.go MarshalDataUnsafeNoCopy: Go field order, the empty
        // `"metadata":{},` cut out.
        (
            r#"{"kind":"Widget","apiVersion":"example.com/v2","spec":{"size":3,"zone":"z"},"status":{"ready":true}}"#,
            expected("z", Some(true)),
        ),
        // util/conversion/conversion.go MarshalData: unstructured, `metadata` deleted, keys sorted.
        (
            r#"{"apiVersion":"example.com/v2","kind":"Widget","spec":{"size":3,"zone":"z"}}"#,
            expected("z", None),
        ),
        // Older apimachinery printed the zero creationTimestamp as null, so the cut did not
        // match and the (cleared) metadata stayed: util/conversion/conversion_test.go
        // TestUnmarshalData's annotation text has that form.
        (
            r#"{"metadata":{"creationTimestamp":null},"spec":{"size":3}}"#,
            expected("", None),
        ),
    ];
    for (text, want) in rows {
        let mut meta = with_annotation(text);
        let got: Option<v2::Widget> = conversion_data::unmarshal(&mut meta).unwrap();
        assert_eq!(got, Some(want), "{text}");
        assert_eq!(meta.annotations, None, "annotation removed: {text}");
    }
}

/// util/conversion/conversion_test.go TestUnmarshalData "should return true when annotation
/// is found": upstream's own annotation text (metadata kept, with name and labels) restores
/// the metadata it holds, and the annotation is removed.
#[test]
fn upstream_unmarshal_data_row() {
    #[derive(
        CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema,
    )]
    #[kube(
        group = "cluster.x-k8s.io",
        version = "v1beta1",
        kind = "Machine",
        namespaced,
        status = "MachineStatus"
    )]
    #[serde(rename_all = "camelCase")]
    struct MachineSpec {
        cluster_name: String,
        bootstrap: Value,
        infrastructure_ref: Value,
    }
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
    #[serde(rename_all = "camelCase")]
    struct MachineStatus {
        bootstrap_ready: bool,
        infrastructure_ready: bool,
    }
    let mut meta = with_annotation(
        "{\"metadata\":{\"name\":\"test-1\",\"creationTimestamp\":null,\"labels\":{\"label1\":\"\"}},\"spec\":{\"clusterName\":\"\",\"bootstrap\":{},\"infrastructureRef\":{}},\"status\":{\"bootstrapReady\":true,\"infrastructureReady\":true}}",
    );
    let got: Machine = conversion_data::unmarshal(&mut meta).unwrap().unwrap();
    assert_eq!(got.metadata.name.as_deref(), Some("test-1"));
    assert_eq!(
        got.status,
        Some(MachineStatus {
            bootstrap_ready: true,
            infrastructure_ready: true
        })
    );
    assert_eq!(meta.annotations, None);
}

/// A zero hub spec is left out by Go (`json:"spec,omitzero"`, as upstream's v1beta2 types
/// declare it): read as `{}`.
#[test]
fn a_spec_go_left_out_reads_as_empty() {
    let mut meta = with_annotation(r#"{"kind":"Widget","apiVersion":"example.com/v2"}"#);
    let got: v2::Widget = conversion_data::unmarshal(&mut meta).unwrap().unwrap();
    assert_eq!(
        got.spec,
        v2::WidgetSpec {
            size: 0,
            zone: String::new()
        }
    );
    assert_eq!(got.status, None);
}

/// `null` restores nothing (upstream decodes it into an empty hub); the annotation goes.
#[test]
fn null_restores_nothing() {
    let mut meta = with_annotation("null");
    let got: Option<v2::Widget> = conversion_data::unmarshal(&mut meta).unwrap();
    assert_eq!(got, None);
    assert_eq!(meta.annotations, None);
}

fn review_message(converter: &dyn ObjectConverter, desired: &str, object: Value) -> String {
    let body = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "request": {"uid": "u", "desiredAPIVersion": desired, "objects": [object]}});
    let out: Value = serde_json::from_slice(
        &review::handle_bytes(converter, &serde_json::to_vec(&body).unwrap()).body,
    )
    .unwrap();
    out["response"]["result"]["message"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The issue's item 6: each layer adds its context once. The full rendered text is pinned.
#[test]
fn a_bad_annotation_is_named_once() {
    let spoke = json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "ns", "annotations": {CONVERSION_DATA_ANNOTATION: "{\"spec\":{\"size\":\"three\"}}"}},
        "spec": {"size": 1}});
    assert_eq!(
        review_message(&converter(), "example.com/v2", spoke),
        "failed to convert object 0 (Widget ns/w, example.com/v1) to example.com/v2: failed to read the cluster.x-k8s.io/conversion-data annotation: invalid type: string \"three\", expected i32"
    );
}

/// Upstream's text for this failure is `failed to convert object: failed to map GroupKind
/// <kind> to version` (tests/fixtures/conversion-upstream); ours names the object and the
/// desired version in the first layer and does not repeat "failed to convert object".
#[test]
fn an_unresolvable_reference_is_named_once() {
    let converter = machine_pool_converter(StaticResolver::new());
    let hub = json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
        "metadata": {"name": "mp", "namespace": "default"},
        "spec": {"clusterName": "c", "template": {"spec": {"clusterName": "c",
            "bootstrap": {"dataSecretName": "s"},
            "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "FooMachinePool", "name": "f"}}}}});
    let message = review_message(&converter, "cluster.x-k8s.io/v1beta1", hub);
    assert_eq!(
        message,
        "failed to convert object 0 (MachinePool default/mp, cluster.x-k8s.io/v1beta2) to cluster.x-k8s.io/v1beta1: failed to get apiVersion for kind FooMachinePool (group \"infrastructure.cluster.x-k8s.io\"): no CustomResourceDefinition foomachinepools.infrastructure.cluster.x-k8s.io is known"
    );
    assert_eq!(message.matches("failed to convert object").count(), 1);
}

/// The error's own chain (what a CLI prints) has no repeated layer either.
#[test]
fn the_error_chain_of_a_bad_annotation() {
    let mut meta = with_annotation("[1]");
    let err = conversion_data::unmarshal::<v2::Widget>(&mut meta).unwrap_err();
    assert_eq!(
        error_chain(&err),
        "failed to read the cluster.x-k8s.io/conversion-data annotation: invalid type: integer `1`, expected ObjectMeta at line 1 column 2"
    );
}

/// The API server may send an object without `spec` (upstream's `FuzzTestFunc` checks that
/// `ConvertTo` handles one, "likely in the context of managedField conversion"): a
/// kube-derive root, which requires `spec`, reads it as `{}`.
#[test]
fn an_object_without_spec_converts() {
    let spoke = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "labels": {"a": "b"}}});
    let hub = converter().convert_value(&spoke, "example.com/v2").unwrap();
    assert_eq!(
        hub,
        json!({"apiVersion": "example.com/v2", "kind": "Widget", "metadata": {"name": "w", "labels": {"a": "b"}}, "spec": {"size": 0}})
    );
    // Through a review too, where the object is read by the decode that converts it (which
    // fails without `spec`) and then read whole, as `convert` reads it.
    let body = format!(
        r#"{{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{{"uid":"u","desiredAPIVersion":"example.com/v2","objects":[{spoke}]}}}}"#
    );
    let response = review::handle_bytes(&converter(), body.as_bytes());
    let response: Value = serde_json::from_slice(&response.body).unwrap();
    assert_eq!(response["response"]["result"]["status"], "Success");
    assert_eq!(response["response"]["convertedObjects"], json!([hub]));
}
