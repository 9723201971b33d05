//! CRDs submitted to the real API server: every CRD in tests/fixtures (providers/*, corpus,
//! provider-trees bases and rendered files) and ten classes of CRDs the server refuses.
//! Whatever the server refuses, `check` must FAIL under `crd-valid`; the test message carries
//! the server's reason. Our own MachinePool CRD must be accepted.
//!
//! Each CRD is created with `dryRun=All` (the server runs the whole create path, validation
//! included, and stores nothing), so that CRDs of one name from different provider releases
//! do not collide; our own CRD is really created and deleted.
#![allow(clippy::unwrap_used, clippy::panic, clippy::expect_used)]

use std::path::{Path, PathBuf};

use capi_contract_check::{CheckOptions, CrdInput, Outcome, check_crds};
use serde_json::{Value, json};

const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

async fn submit(client: &kube::Client, crd: &Value) -> Result<(), kube::Error> {
    let request = capi_e2e::http_request(
        "POST",
        &format!("{CRDS}?dryRun=All"),
        serde_json::to_vec(crd).unwrap(),
    );
    client.request::<Value>(request).await.map(|_| ())
}

/// `Some(report)` when `check` does not FAIL the CRD under `crd-valid`.
fn check_misses(crd: &Value) -> Option<String> {
    let report = check_crds(&[CrdInput::from(crd.clone())], &CheckOptions::default());
    let failed = report
        .findings
        .iter()
        .any(|f| f.rule.id == "crd-valid" && f.outcome == Outcome::Fail);
    (!failed).then(|| report.to_string())
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            // Kustomize patches are partial CRDs, not CRDs.
            if path.file_name().is_some_and(|n| n == "patches") {
                continue;
            }
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
}

/// Every CRD document of the fixtures named in the brief, with its file.
fn fixture_crds() -> Vec<(String, Value)> {
    let mut files = Vec::new();
    for dir in ["providers", "corpus", "provider-trees"] {
        yaml_files(&capi_test_support::fixture(dir), &mut files);
    }
    files.sort();
    let mut crds = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        if !text.contains("CustomResourceDefinition") {
            continue;
        }
        let Ok(docs) = serde_saphyr::from_multiple::<Value>(&text) else {
            continue;
        };
        let rel = file
            .strip_prefix(capi_test_support::fixture(""))
            .unwrap_or(&file)
            .display()
            .to_string();
        for doc in docs {
            if doc["kind"] == "CustomResourceDefinition"
                && doc["apiVersion"] == "apiextensions.k8s.io/v1"
            {
                crds.push((rel.clone(), doc));
            }
        }
    }
    crds
}

/// Held by the test that really creates (and deletes) `machinepools.cluster.x-k8s.io` until
/// the server has removed it, and by the tests that submit CRDs of that name: a dry-run create
/// of a name that exists, or is still being deleted, is refused as `AlreadyExists` (the tests
/// of this binary share one server and run in parallel).
static MACHINE_POOL_CRD_NAME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Waits (up to a minute) until the server answers 404 for the CRD `name`.
async fn wait_deleted(client: &kube::Client, name: &str) {
    for _ in 0..600 {
        let request = capi_e2e::http_request("GET", &format!("{CRDS}/{name}"), Vec::new());
        match client.request::<Value>(request).await {
            Err(kube::Error::Api(status)) if status.code == 404 => return,
            _ => tokio::time::sleep(std::time::Duration::from_millis(100)).await,
        }
    }
    panic!("CRD {name} still there a minute after its deletion");
}

/// Our own CRD: really created (Established) and deleted.
#[tokio::test]
async fn our_machine_pool_crd_is_accepted() {
    let Some(server) = capi_e2e::api_server() else {
        return;
    };
    let client = server.client().await;
    let _name = MACHINE_POOL_CRD_NAME.lock().await;
    let ours = capi_machinepool_api::machine_pool_crd_value();
    assert_eq!(ours["metadata"]["name"], "machinepools.cluster.x-k8s.io");
    capi_e2e::create_crd(&client, &ours)
        .await
        .unwrap_or_else(|e| panic!("the server refuses our MachinePool CRD: {e}"));
    let request = capi_e2e::http_request(
        "DELETE",
        &format!("{CRDS}/machinepools.cluster.x-k8s.io"),
        Vec::new(),
    );
    client
        .request::<Value>(request)
        .await
        .unwrap_or_else(|e| panic!("delete our CRD: {e}"));
    wait_deleted(&client, "machinepools.cluster.x-k8s.io").await;
    assert!(
        check_misses(&ours).is_some(),
        "check FAILs our own CRD under crd-valid"
    );
}

/// Every CRD in the fixtures: what the server refuses, `check` FAILs.
#[tokio::test]
async fn every_fixture_crd_the_server_refuses_fails_check() {
    let Some(server) = capi_e2e::api_server() else {
        return;
    };
    let client = server.client().await;
    let _name = MACHINE_POOL_CRD_NAME.lock().await;
    let crds = fixture_crds();
    assert!(crds.len() > 100, "only {} CRDs found", crds.len());
    let mut accepted = 0;
    let mut refused = Vec::new();
    let mut misses = Vec::new();
    let mut overstrict = Vec::new();
    for (file, crd) in &crds {
        match submit(&client, crd).await {
            Ok(()) => {
                accepted += 1;
                if check_misses(crd).is_none() {
                    let name = crd["metadata"]["name"].as_str().unwrap_or("?");
                    overstrict.push(format!("{file} {name}"));
                }
            }
            Err(e) => {
                let name = crd["metadata"]["name"].as_str().unwrap_or("?");
                refused.push(format!("{file} {name}: {e}"));
                if let Some(report) = check_misses(crd) {
                    misses.push(format!("{file} {name}\n  server: {e}\n  check:\n{report}"));
                }
            }
        }
    }
    eprintln!(
        "{} fixture CRDs: {accepted} accepted, {} refused:\n{}",
        crds.len(),
        refused.len(),
        refused.join("\n")
    );
    assert!(
        misses.is_empty(),
        "check passes CRDs the server refuses:\n{}",
        misses.join("\n")
    );
    assert!(
        overstrict.is_empty(),
        "check FAILs crd-valid on CRDs the server accepts:\n{}",
        overstrict.join("\n")
    );
}

/// The seven classes the held-out rounds found (issue 28) and three invalid defaults: each is refused by the server and
/// FAILed by `check`. Built from upstream's DevMachinePool CRD (SOURCE:
/// tests/fixtures/provider-trees/capi-dev, upstream CAPI's test provider), which the server
/// accepts as it is.
/// The properties of `spec` in the first version's schema.
fn spec_props(crd: &mut Value) -> &mut Value {
    &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
}

#[tokio::test]
async fn the_refused_classes() {
    let Some(server) = capi_e2e::api_server() else {
        return;
    };
    let client = server.client().await;
    let text = std::fs::read_to_string(capi_test_support::fixture(
        "provider-trees/capi-dev/config/crd/bases/infrastructure.cluster.x-k8s.io_devmachinepools.yaml",
    ))
    .unwrap();
    let base: Value = serde_saphyr::from_str(&text).unwrap();
    submit(&client, &base)
        .await
        .unwrap_or_else(|e| panic!("the server refuses upstream's DevMachinePool CRD: {e}"));
    let first = base["spec"]["versions"][0].clone();
    let mut second = first.clone();
    second["name"] = json!("v1alpha1");
    second["storage"] = json!(false);

    let mut classes: Vec<(&str, Value)> = Vec::new();
    let mut two = base.clone();
    let mut second_storage = second.clone();
    second_storage["storage"] = json!(true);
    two["spec"]["versions"] = json!([first.clone(), second_storage]);
    classes.push(("two storage versions", two));
    let mut none = base.clone();
    none["spec"]["versions"][0]["storage"] = json!(false);
    classes.push(("no storage version", none));
    let mut duplicate = base.clone();
    let mut again = first.clone();
    again["storage"] = json!(false);
    duplicate["spec"]["versions"] = json!([first.clone(), again]);
    classes.push(("duplicate version name", duplicate));
    let mut untyped = base.clone();
    untyped["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
        ["untyped"] = json!({"description": "a node without type"});
    classes.push(("schema node without type", untyped));
    let mut served = base.clone();
    served["spec"]["versions"][0]["served"] = json!("true");
    classes.push(("served as the string \"true\"", served));
    let mut plural = base.clone();
    plural["spec"]["names"]["plural"] = json!("DevMachinePools");
    plural["metadata"]["name"] = json!("DevMachinePools.infrastructure.cluster.x-k8s.io");
    classes.push(("upper-case plural", plural));
    let mut upper = base.clone();
    upper["spec"]["versions"][0]["name"] = json!("V1beta1");
    classes.push(("upper-case version name", upper));
    // Found by tests/e2e/tests/foo_provider.rs: the server validates each `default` against
    // its own schema (apiextensions-apiserver pkg/apiserver/schema/defaulting/validation.go).
    // Found by tests/e2e/tests/foo_provider.rs: the server validates each `default` against
    // its own schema (apiextensions-apiserver pkg/apiserver/schema/defaulting/validation.go).
    let mut short = base.clone();
    spec_props(&mut short)["reason"] = json!({"type": "string", "minLength": 1, "default": ""});
    classes.push(("a default its own schema refuses (minLength)", short));
    let mut mistyped = base.clone();
    spec_props(&mut mistyped)["count"] = json!({"type": "integer", "default": "three"});
    classes.push(("a default of another type", mistyped));
    let mut outside = base.clone();
    spec_props(&mut outside)["mode"] =
        json!({"type": "string", "enum": ["Auto", "Manual"], "default": "Sometimes"});
    classes.push(("a default outside its enum", outside));

    let mut misses = Vec::new();
    for (class, crd) in &classes {
        let Err(reason) = submit(&client, crd).await else {
            misses.push(format!("{class}: the server accepts it"));
            continue;
        };
        eprintln!("{class}: server: {reason}");
        if let Some(report) = check_misses(crd) {
            misses.push(format!("{class}\n  server: {reason}\n  check:\n{report}"));
        }
    }
    assert!(misses.is_empty(), "{}", misses.join("\n"));

    // The same defaults made valid: accepted by the server and not FAILed by `check`.
    let mut valid = base.clone();
    spec_props(&mut valid)["reason"] = json!({"type": "string", "minLength": 1, "default": "x"});
    spec_props(&mut valid)["count"] = json!({"type": "integer", "default": 3});
    spec_props(&mut valid)["mode"] =
        json!({"type": "string", "enum": ["Auto", "Manual"], "default": "Auto"});
    submit(&client, &valid)
        .await
        .unwrap_or_else(|e| panic!("the server refuses valid defaults: {e}"));
    assert!(check_misses(&valid).is_some(), "check FAILs valid defaults");
}
