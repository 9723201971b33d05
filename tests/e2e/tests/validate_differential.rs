//! Differential `validate`: every fixture MachinePool (valid and invalid) created on the real
//! API server with `dryRun=All` at its own version, against the API server's own checks as
//! `capi_machinepool_admission` models them (metadata, structural schema, list types, scale,
//! and decoding; upstream's admission webhook is not in this server, so its checks are left
//! out on our side too). The generated differential (validate_generated.rs) compares the
//! causes themselves; here the fixtures are compared by verdict and pruning:
//!
//! - the server refuses the object <=> our schema step reports an error;
//! - for an accepted object, the fields the server pruned are exactly the unknown fields
//!   `validate` lists (warnings "unknown field ... (dropped)").
//!
//! Deliberate difference (documented, see `zero_valued_unknown_fields_are_not_listed`): an
//! unknown field whose value is empty (`""`, `0`, `false`, `{}`, `[]`) is pruned by the server
//! but not listed by `validate`, which cannot tell it from a known field its typed form omits
//! when empty.
#![allow(clippy::unwrap_used, clippy::panic, clippy::expect_used)]

use capi_diagnostics::Severity;
use capi_machinepool_admission::{Admission, Admitted, Step};
use serde_json::{Value, json};

const GROUP: &str = "cluster.x-k8s.io";
// This server has no core API: namespaces need not exist.
const NAMESPACE: &str = "e2e-validate";

/// Fixture files holding MachinePools (SOURCE notes next to each under tests/fixtures), and
/// the examples.
const FIXTURE_FILES: &[&str] = &[
    "tests/fixtures/corpus/objects/machine-pool.yaml",
    "tests/fixtures/corpus/templates/mp.yaml",
    "tests/fixtures/capz-sets/machinepool-machines.yaml",
    "tests/fixtures/providers/capz-v1.3.2/objects.yaml",
    "tests/fixtures/providers/gardener-v0.2.0/objects.yaml",
    "tests/fixtures/providers/capa-v1.5.2/objects.yaml",
    "tests/fixtures/providers/oci-v0.15.0/objects.yaml",
    "tests/fixtures/providers/capg-v1.12.0/objects.yaml",
    "tests/fixtures/conversion/v1beta1-every-field.yaml",
    "tests/fixtures/conversion/v1beta1-every-field.to-v1beta2.yaml",
    "tests/fixtures/conversion/v1beta1-every-field.round-trip.yaml",
    "tests/fixtures/conversion/v1beta2-every-field.yaml",
    "tests/fixtures/conversion/v1beta2-every-field.to-v1beta1.yaml",
    "tests/fixtures/clusters/versions-only.yaml",
    "tests/fixtures/clusters/eks-managed.yaml",
    "tests/fixtures/clusters/aws-kubeadm.yaml",
    "examples/machinepools.yaml",
    "examples/rollout-skew.yaml",
];

fn workspace_file(path: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

/// The server's answer to a dry-run create: the object it would store, or its refusal.
async fn dry_run_create(client: &kube::Client, object: &Value) -> Result<Value, kube::Error> {
    let (version, _) = capi_e2e::version_and_other(object);
    let path = format!("/apis/{GROUP}/{version}/namespaces/{NAMESPACE}/machinepools?dryRun=All");
    let request = capi_e2e::http_request("POST", &path, serde_json::to_vec(object).unwrap());
    client.request(request).await
}

/// Our schema step: the errors of the API server's own checks (metadata, structural schema,
/// list types, scale) and, when there are none, a decoding error. Errors of conversion and of
/// the webhook's validation of `spec` are not part of it.
fn schema_step_errors(admitted: &Admitted) -> Vec<String> {
    admitted
        .findings_of(Severity::Error)
        .filter(|f| matches!(f.step, Step::ApiServer | Step::Decoding))
        .map(ToString::to_string)
        .collect()
}

/// The unknown fields `validate` lists (dropped on decoding).
fn listed_unknown(admitted: &Admitted) -> Vec<String> {
    let mut out: Vec<String> = admitted
        .findings_of(Severity::Warning)
        .filter(|f| f.message.starts_with("unknown field"))
        .map(|f| f.path.clone())
        .collect();
    out.sort();
    out
}

/// Paths of `sent` (nulls removed, as the server prunes them) missing from `stored`.
fn pruned(path: &str, sent: &Value, stored: &Value, out: &mut Vec<String>) {
    match (sent, stored) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                if v.is_null() {
                    continue;
                }
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match b.get(k) {
                    Some(w) => pruned(&p, v, w, out),
                    None => out.push(p),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (v, w)) in a.iter().zip(b).enumerate() {
                pruned(&format!("{path}[{i}]"), v, w, out);
            }
        }
        _ => {}
    }
}

struct Outcome {
    v1beta1: bool,
    refused: Option<String>,
    ours: Vec<String>,
    server_pruned: Vec<String>,
    listed: Vec<String>,
}

async fn compare(client: &kube::Client, admission: &Admission, object: &Value) -> Outcome {
    let admitted = admission.admit(object);
    let ours = schema_step_errors(&admitted);
    let listed = listed_unknown(&admitted);
    let v1beta1 = object["apiVersion"] == "cluster.x-k8s.io/v1beta1";
    match dry_run_create(client, object).await {
        Ok(stored) => {
            let mut server_pruned = Vec::new();
            pruned("", object, &stored, &mut server_pruned);
            server_pruned.sort();
            Outcome {
                v1beta1,
                refused: None,
                ours,
                server_pruned,
                listed,
            }
        }
        Err(e) => Outcome {
            v1beta1,
            refused: Some(e.to_string()),
            ours,
            server_pruned: Vec::new(),
            listed,
        },
    }
}

/// A refusal by the conversion webhook (an object naming a reference kind the webhook's map
/// does not know cannot be converted to the storage version): not the schema step.
fn refused_by_conversion(outcome: &Outcome) -> bool {
    outcome
        .refused
        .as_deref()
        .is_some_and(|r| r.contains("conversion webhook"))
}

/// A v1beta2 object comes back as sent, less what was pruned: the lists must be equal. A
/// v1beta1 object comes back converted to the storage version (v1beta2) and back by the
/// webhook, which also loses what v1beta2 cannot hold (e.g. `configRef.uid`; machinepool.rs
/// compares that conversion with upstream's), so there every listed field must be among the
/// missing ones.
fn pruning_agrees(outcome: &Outcome) -> bool {
    if outcome.v1beta1 {
        outcome
            .listed
            .iter()
            .all(|p| outcome.server_pruned.contains(p))
    } else {
        outcome.server_pruned == outcome.listed
    }
}

fn disagreement(label: &str, outcome: &Outcome) -> Option<String> {
    match (&outcome.refused, outcome.ours.is_empty()) {
        (Some(reason), true) => Some(format!(
            "{label}: the server refuses ({reason}) but our schema step accepts"
        )),
        (None, false) => Some(format!(
            "{label}: the server accepts but our schema step reports {:?}",
            outcome.ours
        )),
        (None, true) if !pruning_agrees(outcome) => Some(format!(
            "{label}: the server pruned {:?}, validate lists {:?}",
            outcome.server_pruned, outcome.listed
        )),
        _ => None,
    }
}

/// Every fixture and example MachinePool: server verdict and pruning equal our schema step's.
#[tokio::test]
async fn fixture_machine_pools_agree_with_the_server() {
    let Some(server) = capi_e2e::api_server() else {
        return;
    };
    let client = server.client().await;
    capi_e2e::install_machine_pool_crd(&client).await;
    let admission = Admission::new().unwrap();
    let mut failures = Vec::new();
    let (mut compared, mut refused, mut by_conversion) = (0, 0, 0);
    for file in FIXTURE_FILES {
        let text = std::fs::read_to_string(workspace_file(file)).unwrap();
        let docs: Vec<Value> = serde_saphyr::from_multiple(&capi_e2e::substitute(&text)).unwrap();
        for (index, doc) in docs.iter().enumerate() {
            if doc["kind"] != "MachinePool" {
                continue;
            }
            let object = capi_e2e::prepare_create(doc, &format!("v-{compared}"), NAMESPACE);
            let outcome = compare(&client, &admission, &object).await;
            compared += 1;
            if refused_by_conversion(&outcome) {
                by_conversion += 1;
                continue;
            }
            if outcome.refused.is_some() {
                refused += 1;
            }
            failures.extend(disagreement(&format!("{file}#{index}"), &outcome));
        }
    }
    eprintln!(
        "{compared} fixture MachinePools compared, {refused} refused by the schema, \
         {by_conversion} refused by conversion (not compared)"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared >= 15, "only {compared} MachinePools compared");
}

/// A valid v1beta2 MachinePool (the first of examples/machinepools.yaml) to break by hand.
fn base() -> Value {
    let text = std::fs::read_to_string(workspace_file("examples/machinepools.yaml")).unwrap();
    let docs: Vec<Value> = serde_saphyr::from_multiple(&text).unwrap();
    let doc = docs
        .into_iter()
        .find(|d| d["apiVersion"] == "cluster.x-k8s.io/v1beta2")
        .unwrap();
    capi_e2e::prepare_create(&doc, "hand", NAMESPACE)
}

/// Hand-written invalid and pruned objects: each case must be refused (or have the listed
/// fields pruned) by both.
#[tokio::test]
async fn hand_written_cases_agree_with_the_server() {
    let Some(server) = capi_e2e::api_server() else {
        return;
    };
    let client = server.client().await;
    capi_e2e::install_machine_pool_crd(&client).await;
    let admission = Admission::new().unwrap();
    type Edit = fn(&mut Value);
    let cases: &[(&str, bool, Edit)] = &[
        ("replicas of the wrong type", true, |o| {
            o["spec"]["replicas"] = json!("three");
        }),
        ("a valid change (minReadySeconds) is accepted", false, |o| {
            o["spec"]["template"]["spec"]["minReadySeconds"] = json!(1);
        }),
        ("readiness gate polarity not in the enum", true, |o| {
            o["spec"]["template"]["spec"]["readinessGates"] =
                json!([{"conditionType": "Ready2", "polarity": "Sideways"}]);
        }),
        ("empty clusterName (minLength)", true, |o| {
            o["spec"]["clusterName"] = json!("");
        }),
        (
            "a label value over 63 characters (the server's ObjectMeta validation)",
            true,
            |o| {
                o["metadata"]["labels"] = json!({"a": "x".repeat(64)});
            },
        ),
        ("unknown fields are pruned", false, |o| {
            o["spec"]["futureField"] = json!("x");
            o["spec"]["template"]["spec"]["extra"] = json!({"a": 1});
            o["unknownTopLevel"] = json!(true);
        }),
        (
            "an annotation key that is not a qualified name",
            true,
            |o| {
                o["metadata"]["annotations"] = json!({"not a key": "v"});
            },
        ),
        ("a null field is pruned silently", false, |o| {
            o["spec"]["minReadySeconds"] = Value::Null;
        }),
    ];
    let mut failures = Vec::new();
    for (i, (label, refuse, edit)) in cases.iter().enumerate() {
        let mut object = base();
        object["metadata"]["name"] = json!(format!("hand-{i}"));
        edit(&mut object);
        let outcome = compare(&client, &admission, &object).await;
        if outcome.refused.is_some() != *refuse {
            failures.push(format!(
                "{label}: expected the server to {} it, got {:?}",
                if *refuse { "refuse" } else { "accept" },
                outcome.refused
            ));
        }
        failures.extend(disagreement(label, &outcome));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Deliberate difference: an unknown field with an empty value is pruned by the server, and
/// `validate` does not list it (its typed form omits empty known fields too, so an empty
/// value is indistinguishable from a known field left out; nothing the user set is lost).
#[tokio::test]
async fn zero_valued_unknown_fields_are_not_listed() {
    let Some(server) = capi_e2e::api_server() else {
        return;
    };
    let client = server.client().await;
    capi_e2e::install_machine_pool_crd(&client).await;
    let admission = Admission::new().unwrap();
    let mut object = base();
    object["metadata"]["name"] = json!("hand-zero");
    object["spec"]["emptyUnknown"] = json!("");
    let outcome = compare(&client, &admission, &object).await;
    assert_eq!(outcome.refused, None);
    assert_eq!(outcome.server_pruned, vec!["spec.emptyUnknown".to_owned()]);
    assert!(outcome.listed.is_empty(), "{:?}", outcome.listed);
}
