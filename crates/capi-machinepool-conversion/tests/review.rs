//! ConversionReview handling: several objects with mixed source versions, an invalid object,
//! an empty request, malformed reviews.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use capi_machinepool_conversion::{machine_pool_converter, review};
use common::{resolver, yaml};
use serde_json::{Value, json};

fn review_of(desired: &str, objects: Vec<Value>) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "request": {"uid": "705ab4f5-6393-11e8-b7cc-42010a800002", "desiredAPIVersion": desired, "objects": objects}
    })
}

fn run(body: &Value) -> Value {
    let converter = machine_pool_converter(resolver());
    let out = review::handle_bytes(&converter, &serde_json::to_vec(body).unwrap()).body;
    serde_json::from_slice(&out).unwrap()
}

#[test]
fn mixed_versions_convert_in_order() {
    let v1 = yaml("conversion/v1beta1-every-field.yaml");
    let v2 = yaml("conversion/v1beta2-every-field.yaml");
    let response = run(&review_of(
        "cluster.x-k8s.io/v1beta2",
        vec![v1.clone(), v2.clone(), v1],
    ));
    assert_eq!(response["apiVersion"], "apiextensions.k8s.io/v1");
    assert_eq!(response["kind"], "ConversionReview");
    let response = &response["response"];
    assert_eq!(response["uid"], "705ab4f5-6393-11e8-b7cc-42010a800002");
    assert_eq!(response["result"]["status"], "Success");
    let objects = response["convertedObjects"].as_array().unwrap();
    assert_eq!(objects.len(), 3);
    assert!(
        objects
            .iter()
            .all(|o| o["apiVersion"] == "cluster.x-k8s.io/v1beta2")
    );
    assert_eq!(
        objects[1], v2,
        "an object already at the desired version is returned unchanged"
    );
    assert_eq!(
        objects[0]["spec"]["template"]["spec"]["minReadySeconds"],
        30
    );
}

#[test]
fn one_invalid_object_fails_the_whole_review() {
    let good = yaml("conversion/v1beta1-every-field.yaml");
    let mut bad = good.clone();
    bad["metadata"]["name"] = json!("broken");
    bad["spec"]["template"]["spec"]["infrastructureRef"]["apiVersion"] = json!("a/b/c");
    let response = run(&review_of("cluster.x-k8s.io/v1beta2", vec![good, bad]));
    let response = &response["response"];
    assert_eq!(response["result"]["status"], "Failure");
    let message = response["result"]["message"].as_str().unwrap();
    assert!(
        message.contains("object 1 (MachinePool prod/broken, cluster.x-k8s.io/v1beta1)"),
        "{message}"
    );
    assert!(
        message.contains("unexpected GroupVersion string: a/b/c"),
        "{message}"
    );
    assert_eq!(
        response["convertedObjects"],
        json!([]),
        "no partial success"
    );
}

#[test]
fn unresolvable_reference_names_the_group_kind() {
    let mut hub = yaml("conversion/v1beta2-every-field.yaml");
    hub["spec"]["template"]["spec"]["infrastructureRef"]["kind"] = json!("GCPMachinePool");
    let response = run(&review_of("cluster.x-k8s.io/v1beta1", vec![hub]));
    let message = response["response"]["result"]["message"].as_str().unwrap();
    assert!(message.contains("GCPMachinePool"), "{message}");
    assert!(
        message.contains("infrastructure.cluster.x-k8s.io"),
        "{message}"
    );
}

/// Down-conversion resolves the references before it prints the conversion-data annotation
/// (the hub is converted without a copy): under a response limit the annotation alone would
/// pass, an unresolvable reference is still the answer, as when the annotation was printed
/// last; with every reference resolvable, the same limit is what fails.
#[test]
fn an_unresolvable_reference_wins_over_the_response_limit() {
    let converter = machine_pool_converter(resolver());
    let hub = yaml("conversion/v1beta2-every-field.yaml");
    let mut unresolvable = hub.clone();
    unresolvable["spec"]["template"]["spec"]["infrastructureRef"]["kind"] = json!("GCPMachinePool");
    // Room for the response envelope (1,024 bytes) and 200 bytes: less than the object's
    // conversion-data annotation alone.
    let limit = 1024 + 200;
    let answer = |object: Value| -> String {
        let body =
            serde_json::to_vec(&review_of("cluster.x-k8s.io/v1beta1", vec![object])).unwrap();
        let out = review::handle_bytes_within(&converter, &body, limit).body;
        let response: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(response["response"]["result"]["status"], "Failure");
        response["response"]["result"]["message"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let message = answer(unresolvable);
    assert!(message.contains("GCPMachinePool"), "{message}");
    let message = answer(hub);
    assert!(message.contains("response limit"), "{message}");
}

#[test]
fn empty_request_succeeds_with_no_objects() {
    let response = run(&review_of("cluster.x-k8s.io/v1beta1", vec![]));
    assert_eq!(response["response"]["result"]["status"], "Success");
    assert_eq!(response["response"]["convertedObjects"], json!([]));
}

#[test]
fn unknown_desired_version_and_wrong_kind_fail() {
    let v1 = yaml("conversion/v1beta1-every-field.yaml");
    let response = run(&review_of("cluster.x-k8s.io/v1alpha4", vec![v1]));
    let message = response["response"]["result"]["message"].as_str().unwrap();
    assert!(
        message.contains("unsupported apiVersion \"cluster.x-k8s.io/v1alpha4\""),
        "{message}"
    );
    let response = run(&review_of(
        "cluster.x-k8s.io/v1beta2",
        vec![json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachineDeployment"})],
    ));
    let message = response["response"]["result"]["message"].as_str().unwrap();
    assert!(
        message.contains("cannot convert kind \"MachineDeployment\""),
        "{message}"
    );
}

#[test]
fn malformed_reviews_get_a_failure_not_a_panic() {
    let converter = machine_pool_converter(resolver());
    for body in [
        &b"not json"[..],
        b"{}",
        b"{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"ConversionReview\"}",
        b"\xff\xfe",
    ] {
        let out: Value =
            serde_json::from_slice(&review::handle_bytes(&converter, body).body).unwrap();
        assert_eq!(
            out["response"]["result"]["status"],
            "Failure",
            "{}",
            String::from_utf8_lossy(body)
        );
        assert_eq!(out["response"]["uid"], "");
    }
    let wrong = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": "x", "desiredAPIVersion": "v", "objects": []}});
    let out = run(&wrong);
    assert_eq!(out["response"]["result"]["status"], "Failure");
    assert!(
        out["response"]["result"]["message"]
            .as_str()
            .unwrap()
            .contains("unsupported review")
    );
}

#[test]
fn object_type_errors_carry_the_field() {
    let mut v1 = yaml("conversion/v1beta1-every-field.yaml");
    v1["spec"]["replicas"] = json!("three");
    let response = run(&review_of("cluster.x-k8s.io/v1beta2", vec![v1]));
    let message = response["response"]["result"]["message"].as_str().unwrap();
    assert!(
        message.contains("failed to decode cluster.x-k8s.io/v1beta1 object"),
        "{message}"
    );
    assert!(
        message.contains("invalid type: string \"three\""),
        "{message}"
    );
}

#[test]
fn json_fast_path_matches_the_typed_handler() {
    let converter = machine_pool_converter(resolver());
    let v1 = yaml("conversion/v1beta1-every-field.yaml");
    let v2 = yaml("conversion/v1beta2-every-field.yaml");
    let mut bad = v1.clone();
    bad["spec"]["template"]["spec"]["infrastructureRef"]["apiVersion"] = json!("a/b/c");
    for (desired, objects) in [
        ("cluster.x-k8s.io/v1beta2", vec![v1.clone(), v2.clone()]),
        ("cluster.x-k8s.io/v1beta1", vec![v1.clone(), v2.clone()]),
        ("cluster.x-k8s.io/v1beta2", vec![v1.clone(), bad]),
        ("cluster.x-k8s.io/v1beta2", vec![]),
    ] {
        let body = review_of(desired, objects);
        let typed = review::handle(&converter, serde_json::from_value(body.clone()).unwrap());
        let fast: Value = serde_json::from_slice(
            &review::handle_bytes(&converter, &serde_json::to_vec(&body).unwrap()).body,
        )
        .unwrap();
        assert_eq!(fast, serde_json::to_value(&typed).unwrap(), "{desired}");
    }
}

#[test]
fn duplicate_keys_in_an_object_are_rejected() {
    let body = br#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"cluster.x-k8s.io/v1beta2","objects":[
      {"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"MachinePool","metadata":{"name":"a"},"spec":{"clusterName":"a","clusterName":"b"}}]}}"#;
    let converter = machine_pool_converter(resolver());
    let out: Value = serde_json::from_slice(&review::handle_bytes(&converter, body).body).unwrap();
    let message = out["response"]["result"]["message"].as_str().unwrap();
    assert!(
        message.contains("duplicate field `clusterName`"),
        "{message}"
    );
}

#[test]
fn minus_zero_is_an_integer_as_in_go() {
    let mut v1 = yaml("conversion/v1beta1-every-field.yaml");
    v1["spec"]["replicas"] = json!(0);
    let text = serde_json::to_string(&review_of("cluster.x-k8s.io/v1beta2", vec![v1]))
        .unwrap()
        .replace("\"replicas\":0,", "\"replicas\":-0,");
    assert!(text.contains("\"replicas\":-0"));
    let converter = machine_pool_converter(resolver());
    let out: Value =
        serde_json::from_slice(&review::handle_bytes(&converter, text.as_bytes()).body).unwrap();
    assert_eq!(out["response"]["result"]["status"], "Success", "{out}");
    assert_eq!(
        out["response"]["convertedObjects"][0]["spec"]["replicas"],
        0
    );
}

/// Issue 31: the response is bounded. The limit is checked against the bytes the unlimited
/// handler prints for the same review (a real fixture, converted down so that each object
/// gains its conversion-data annotation): with room for them the answer is the same bytes;
/// with less, HTTP 200 and a `Failure` result, code 422, naming the limit, no objects.
#[test]
fn the_response_limit_answers_a_failure_naming_it() {
    let converter = machine_pool_converter(resolver());
    let v2 = yaml("conversion/v1beta2-every-field.yaml");
    let body = serde_json::to_vec(&review_of("cluster.x-k8s.io/v1beta1", vec![v2; 20])).unwrap();
    let unlimited = review::handle_bytes(&converter, &body);
    assert_eq!(unlimited.status, 200);
    let printed = unlimited.body.len();
    // Room for the objects and the envelope's reserve: the same answer.
    let roomy = review::handle_bytes_within(&converter, &body, printed + 1024);
    assert_eq!(roomy, unlimited);
    for max in [printed / 2, printed - 1100, 100, 0] {
        let limited = review::handle_bytes_within(&converter, &body, max);
        assert_eq!(limited.status, 200);
        let answer: Value = serde_json::from_slice(&limited.body).unwrap();
        let result = &answer["response"]["result"];
        assert_eq!(result["status"], "Failure", "{max}");
        assert_eq!(result["code"], 422);
        assert!(
            result["message"]
                .as_str()
                .unwrap()
                .contains(&format!("response limit of {max} bytes")),
            "{result}"
        );
        assert_eq!(answer["response"]["convertedObjects"], json!([]));
        assert_eq!(
            answer["response"]["uid"],
            "705ab4f5-6393-11e8-b7cc-42010a800002"
        );
    }
}
