//! Hostile input: deep nesting, huge lists, 1 MB strings, invalid UTF-8, duplicate keys and
//! numbers out of range. Each gets a clear error (or a correct verdict), never a panic.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;
use std::process::Command;

use capi_contract_check::{CheckOptions, Checker, Outcome};
use capi_machinepool_admission::{
    FeatureGates, FieldErrorType, default_machine_pool, validate_machine_pool,
};
use capi_machinepool_api::v1beta2;
use capi_machinepool_conversion::{StaticResolver, machine_pool_converter, review};
use capi_manifests::load::documents;
use capi_manifests::tree::read_file;
use capi_manifests::{Limits, ManifestError};
use serde_json::{Value, json};

fn pool() -> Value {
    json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool", "metadata": {"name": "mp", "namespace": "default"},
        "spec": {"clusterName": "c", "replicas": 1, "template": {"spec": {"clusterName": "c", "bootstrap": {"dataSecretName": "s"},
            "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DockerMachinePool", "name": "d"}}}}})
}

fn review_body(objects_json: &str) -> Vec<u8> {
    format!(r#"{{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{{"uid":"u","desiredAPIVersion":"cluster.x-k8s.io/v1beta1","objects":[{objects_json}]}}}}"#).into_bytes()
}

fn convert(body: &[u8]) -> (u16, Value) {
    let resolver = StaticResolver::new().with(
        "infrastructure.cluster.x-k8s.io",
        "DockerMachinePool",
        "infrastructure.cluster.x-k8s.io/v1beta2",
    );
    let converter = machine_pool_converter(resolver);
    let response = review::handle_bytes(&converter, body);
    (
        response.status,
        serde_json::from_slice(&response.body).unwrap(),
    )
}

fn temp(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("capi-bad-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let depth = 100_000;
    let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let object = format!(
        r#"{{"apiVersion":"cluster.x-k8s.io/v1beta2","kind":"MachinePool","metadata":{{"name":"x"}},"spec":{{"extra":{nested}}}}}"#
    );
    // Fast path: the nesting sits in an unknown field, which is skipped without recursion and
    // dropped (as the Go types and the API server's pruning drop it): no crash, no stack use.
    let (status, out) = convert(&review_body(&object));
    assert_eq!(status, 200);
    assert_eq!(out["response"]["result"]["status"], "Success");
    assert!(
        out["response"]["convertedObjects"][0]["spec"]
            .get("extra")
            .is_none()
    );
    // Through `serde_json::Value` (kube-core's ConversionReview) the depth limit is an error.
    let err = serde_json::from_slice::<capi_machinepool_conversion::conversion::ConversionReview>(
        &review_body(&object),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("recursion limit exceeded"),
        "{err}"
    );
    // The CLI names the file and document.
    let file = temp("deep.yaml", object.as_bytes());
    let out = Command::new(env!("CARGO_BIN_EXE_capi-machinepool"))
        .args(["validate", "-f", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("deep.yaml#0"), "{stderr}");
    let yaml = format!("a: {nested}\n");
    let err = documents(&yaml, "deep.yaml", &Limits::default())
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("deep.yaml#0 (line 1): "), "{err}");
}

#[test]
fn ten_thousand_provider_ids() {
    let ids: Vec<String> = (0..10_000)
        .map(|i| format!("aws:///us-east-1a/i-{i:08}"))
        .collect();
    let mut mp = pool();
    mp["spec"]["providerIDList"] = json!(ids);
    // Converts both ways and keeps every entry.
    let (status, out) = convert(&review_body(&mp.to_string()));
    assert_eq!(status, 200);
    assert_eq!(
        out["response"]["convertedObjects"][0]["spec"]["providerIDList"]
            .as_array()
            .unwrap()
            .len(),
        10_000
    );
    // 10,000 is the schema's limit; 10,001 is reported by `validate` at the field.
    let mut too_many = mp.clone();
    too_many["spec"]["providerIDList"]
        .as_array_mut()
        .unwrap()
        .push(json!("aws:///extra"));
    let file = temp("too-many.json", too_many.to_string().as_bytes());
    let out = Command::new(env!("CARGO_BIN_EXE_capi-machinepool"))
        .args(["validate", "-f", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("spec.providerIDList: Too many: 10001: must have at most 10000 items"),
        "{text}"
    );
    // And by the contract object check on an InfraMachinePool.
    let mut infra = json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "DockerMachinePool", "metadata": {"name": "d"}});
    infra["spec"]["providerIDList"] = too_many["spec"]["providerIDList"].clone();
    let mut checker = Checker::new(CheckOptions::default());
    checker.add_object(&infra, None);
    let report = checker.finish();
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.outcome == Outcome::Fail && f.message.contains("10001 entries"))
    );
}

#[test]
fn one_megabyte_strings() {
    let big = "x".repeat(1024 * 1024);
    let mut mp: v1beta2::MachinePool = serde_json::from_value(pool()).unwrap();
    mp.spec.template.metadata.annotations = Some([("example.com/big".into(), big.clone())].into());
    default_machine_pool(&mut mp, None).unwrap();
    let errs = validate_machine_pool(&mp, None, &FeatureGates::default());
    assert!(
        errs.iter().any(|e| e.type_ == FieldErrorType::TooLong
            && e.field == "spec.template.metadata.annotations"),
        "{errs:?}"
    );
    // A 1 MB name converts and comes back intact (the API server would reject it; we do not truncate).
    let mut v = pool();
    v["spec"]["template"]["spec"]["infrastructureRef"]["name"] = json!(big);
    let (status, out) = convert(&review_body(&v.to_string()));
    assert_eq!(status, 200);
    assert_eq!(out["response"]["convertedObjects"][0]["spec"]["template"]["spec"]["infrastructureRef"]["name"].as_str().unwrap().len(), 1024 * 1024);
}

#[test]
fn invalid_utf8() {
    let file = temp(
        "latin1.yaml",
        b"kind: MachinePool\nmetadata:\n  name: caf\xe9\n",
    );
    match read_file(&file, &Limits::default()) {
        Err(ManifestError::Utf8 { line, .. }) => assert_eq!(line, 3),
        other => panic!("{other:?}"),
    }
    let (status, out) =
        convert(b"{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"Conversion\xffReview\"}");
    assert_eq!(status, 400);
    assert_eq!(out["response"]["result"]["status"], "Failure");
}

#[test]
fn duplicate_keys() {
    let err = documents(
        "spec:\n  clusterName: a\n  clusterName: b\n",
        "dup.yaml",
        &Limits::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("dup.yaml") && err.to_lowercase().contains("duplicate"),
        "{err}"
    );
    let object = r#"{"apiVersion":"cluster.x-k8s.io/v1beta2","kind":"MachinePool","metadata":{"name":"x"},"spec":{"replicas":1,"replicas":2}}"#;
    let (_, out) = convert(&review_body(object));
    assert!(
        out["response"]["result"]["message"]
            .as_str()
            .unwrap()
            .contains("duplicate field `replicas`")
    );
}

#[test]
fn numbers_out_of_int32_range() {
    for (field, value) in [
        ("replicas", json!(2_147_483_648_i64)),
        ("replicas", json!(-2_147_483_649_i64)),
        ("replicas", json!(1.5)),
    ] {
        let mut v = pool();
        v["spec"][field] = value.clone();
        let err = serde_json::from_value::<v1beta2::MachinePool>(v.clone())
            .unwrap_err()
            .to_string();
        assert!(err.contains("expected i32"), "{value}: {err}");
        let (_, out) = convert(&review_body(&v.to_string()));
        let message = out["response"]["result"]["message"].as_str().unwrap();
        assert!(
            message.contains("object 0 (MachinePool default/mp")
                && message.contains("expected i32"),
            "{message}"
        );
    }
    // Durations beyond int32 seconds are capped as upstream does.
    let mut v1 = json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachinePool", "metadata": {"name": "x"},
        "spec": {"clusterName": "c", "template": {"spec": {"clusterName": "c", "bootstrap": {"dataSecretName": "s"}, "infrastructureRef": {}, "nodeDrainTimeout": "2000000h"}}}});
    let body = format!(
        r#"{{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{{"uid":"u","desiredAPIVersion":"cluster.x-k8s.io/v1beta2","objects":[{v1}]}}}}"#
    );
    let (_, out) = convert(body.as_bytes());
    assert_eq!(
        out["response"]["convertedObjects"][0]["spec"]["template"]["spec"]["deletion"]["nodeDrainTimeoutSeconds"],
        2_147_483_647
    );
    v1["spec"]["template"]["spec"]["nodeDrainTimeout"] = json!("9999999999h");
    let body = format!(
        r#"{{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{{"uid":"u","desiredAPIVersion":"cluster.x-k8s.io/v1beta2","objects":[{v1}]}}}}"#
    );
    let (_, out) = convert(body.as_bytes());
    assert!(
        out["response"]["result"]["message"]
            .as_str()
            .unwrap()
            .contains("invalid duration")
    );
}

/// A MachinePool nested `levels` deep through `managedFields[0].fieldsV1` (free-form JSON
/// the API keeps), with an unknown field `spec.extra`: `convert` gives the webhook's answer
/// for it (the webhook reads JSON text, whose parser stops at 128 levels; `convert` reads a
/// `Value` and sends objects deeper than the converter reads directly through the same text),
/// and warns about the unknown field either way.
#[test]
fn convert_answers_deeply_nested_objects_as_the_webhook_does() {
    // Debug builds of the parsers use far more stack per level than release builds: the
    // in-process webhook and YAML reads run on a thread with room for them.
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(deep_objects_through_convert_and_the_webhook)
        .unwrap()
        .join()
        .unwrap();
}

fn deep_objects_through_convert_and_the_webhook() {
    for levels in [90, 110, 140] {
        let mut chain = json!(1);
        // Root, metadata, managedFields and its item: four levels before the chain.
        for _ in 0..levels - 4 {
            chain = json!({ "f:a": chain });
        }
        let object = json!({
            "apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachinePool",
            "metadata": {"name": "deep", "managedFields": [{"manager": "m", "fieldsV1": chain}]},
            "spec": {"clusterName": "c", "extra": "x"},
        });
        let body = format!(
            r#"{{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{{"uid":"u","desiredAPIVersion":"cluster.x-k8s.io/v1beta2","objects":[{object}]}}}}"#
        );
        let (status, webhook) = convert(body.as_bytes());
        assert_eq!(status, 200);
        let webhook_converts = webhook["response"]["result"]["status"] == "Success";
        let file = temp(
            &format!("deep-{levels}.json"),
            object.to_string().as_bytes(),
        );
        let out = Command::new(env!("CARGO_BIN_EXE_capi-machinepool"))
            .args(["convert", "--to", "v1beta2", "-f", file.to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("spec.extra: unknown field"),
            "{levels}: {stderr}"
        );
        if webhook_converts {
            assert_eq!(out.status.code(), Some(0), "{levels}: {stderr}");
            let stdout = String::from_utf8_lossy(&out.stdout);
            let converted = documents(&stdout, "out", &Limits::default()).unwrap();
            assert_eq!(
                converted[0].value, webhook["response"]["convertedObjects"][0],
                "{levels}"
            );
        } else {
            assert_eq!(out.status.code(), Some(2), "{levels}: {stderr}");
            assert!(
                stderr.contains("recursion limit exceeded"),
                "{levels}: {stderr}"
            );
        }
        // Both outcomes occur: the limit is between 110 and 140 levels.
        assert_eq!(webhook_converts, levels < 128, "{levels}: {webhook}");
    }
}
