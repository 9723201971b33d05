//! Issue 31: `List` wrappers (`kubectl get -o yaml`) are read item by item by every command
//! (apimachinery `unstructuredJSONScheme.decodeToList`), standard input is read once, `convert`
//! says what it drops, `review` exits 2 on unreadable input. The expectation of each List
//! case is the same command on the unwrapped documents (real data from tests/fixtures).
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use serde_json::{Value, json};

use common::{run, stdout, temp_file};

/// SOURCE: tests/fixtures/corpus/objects/machine-pool.yaml (upstream CAPI docker example).
const OBJECTS: &str = include_str!("../../../tests/fixtures/corpus/objects/machine-pool.yaml");
/// SOURCE: tests/fixtures/conversion/v1beta1-every-field.yaml.
const V1BETA1: &str = include_str!("../../../tests/fixtures/conversion/v1beta1-every-field.yaml");

fn docs(text: &str) -> Vec<Value> {
    serde_saphyr::from_multiple::<Value>(text)
        .unwrap()
        .into_iter()
        .filter(|v| !v.is_null())
        .collect()
}

/// What `kubectl get ... -o yaml` prints: one `List` document.
fn list(items: Vec<Value>) -> String {
    serde_json::to_string(&json!({"apiVersion": "v1", "kind": "List", "items": items})).unwrap()
}

fn pools(text: &str) -> Vec<Value> {
    docs(text)
        .into_iter()
        .filter(|d| d["kind"] == "MachinePool")
        .collect()
}

fn summary(o: &std::process::Output) -> (Option<i32>, String) {
    let out = stdout(o);
    let last = out.lines().last().unwrap_or_default().to_owned();
    // The file name differs; the counts must not.
    (
        o.status.code(),
        last.split_once(": ")
            .map(|(_, c)| c.to_owned())
            .unwrap_or(last),
    )
}

#[test]
fn validate_reads_list_items_as_the_unwrapped_documents() {
    let mut invalid = pools(OBJECTS)[0].clone();
    // spec.clusterName is required (upstream core/config/crd/bases/cluster.x-k8s.io_machinepools.yaml).
    invalid["spec"]
        .as_object_mut()
        .unwrap()
        .remove("clusterName");
    let items = vec![pools(OBJECTS)[0].clone(), invalid];
    let unwrapped: String = items
        .iter()
        .map(|v| format!("---\n{}\n", serde_json::to_string(v).unwrap()))
        .collect();
    let a = run(&["validate", "-f", "-"], Some(unwrapped.as_bytes()));
    let b = run(&["validate", "-f", "-"], Some(list(items).as_bytes()));
    assert_eq!(summary(&a), summary(&b), "{}", stdout(&b));
    assert_eq!(summary(&b).1, "2 MachinePool(s), 1 invalid");
    assert_eq!(b.status.code(), Some(1));
}

#[test]
fn a_typed_list_gives_its_items_the_list_type() {
    // decodeToList: an item without kind and apiVersion gets the list's apiVersion and kind
    // minus `List`.
    let mut pool = pools(OBJECTS)[0].clone();
    let api = pool["apiVersion"].take();
    pool.as_object_mut().unwrap().remove("kind");
    let typed = json!({"apiVersion": api, "kind": "MachinePoolList", "items": [pool]});
    let o = run(&["validate", "-f", "-"], Some(typed.to_string().as_bytes()));
    assert!(
        summary(&o).1.starts_with("1 MachinePool(s)"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn stored_objects_in_a_list_are_checked_for_update() {
    let old = pools(OBJECTS)[0].clone();
    let mut new = old.clone();
    new["spec"]["clusterName"] = json!("another-cluster");
    new["spec"]["template"]["spec"]["clusterName"] = json!("another-cluster");
    let old_file = temp_file("old-list.yaml", list(vec![old.clone()]).as_bytes());
    let old_plain = temp_file("old-plain.yaml", old.to_string().as_bytes());
    let new_text = new.to_string();
    let a = run(
        &["validate", "-f", "-", "--old", old_plain.to_str().unwrap()],
        Some(new_text.as_bytes()),
    );
    let b = run(
        &["validate", "-f", "-", "--old", old_file.to_str().unwrap()],
        Some(new_text.as_bytes()),
    );
    assert_eq!(a.status.code(), Some(1), "{}", stdout(&a));
    assert_eq!(summary(&a), summary(&b));
}

#[test]
fn convert_writes_a_list_back_converted_in_order() {
    let v1 = docs(V1BETA1);
    let other = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "keep"}});
    let items = vec![v1[0].clone(), other.clone()];
    let plain = run(
        &["convert", "--to", "v1beta2", "-f", "-"],
        Some(V1BETA1.as_bytes()),
    );
    let o = run(
        &["convert", "--to", "v1beta2", "-f", "-"],
        Some(list(items).as_bytes()),
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = docs(&stdout(&o));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["kind"], "List");
    assert_eq!(out[0]["items"][0], docs(&stdout(&plain))[0]);
    assert_eq!(out[0]["items"][1], other);
}

#[test]
fn check_reads_crds_and_objects_from_lists() {
    // SOURCE: tests/fixtures/corpus/providers/capi-provider-aws (kubebuilder output).
    let crd = include_str!(
        "../../../tests/fixtures/corpus/providers/capi-provider-aws/bases/infrastructure.cluster.x-k8s.io_awsmachinepools.yaml"
    );
    let crd_plain = temp_file("crd-plain.yaml", crd.as_bytes());
    let crd_list = temp_file("crd-list.yaml", list(docs(crd)).as_bytes());
    let a = run(&["check", crd_plain.to_str().unwrap()], None);
    let b = run(&["check", crd_list.to_str().unwrap()], None);
    assert_eq!(
        a.status.code(),
        b.status.code(),
        "{}",
        String::from_utf8_lossy(&b.stderr)
    );
    assert!(!String::from_utf8_lossy(&b.stderr).contains("no CustomResourceDefinition"));
    let objects = temp_file("objects-list.yaml", list(docs(OBJECTS)).as_bytes());
    let c = run(
        &[
            "check",
            crd_plain.to_str().unwrap(),
            "--objects",
            objects.to_str().unwrap(),
            "-v",
        ],
        None,
    );
    assert!(stdout(&c).contains("#0.items["), "{}", stdout(&c));
}

#[test]
fn standard_input_named_twice_is_a_command_line_error() {
    let o = run(&["check", "-", "--objects", "-"], Some(OBJECTS.as_bytes()));
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("named 2 times"));
    let o = run(
        &["validate", "-f", "-", "--old", "-"],
        Some(OBJECTS.as_bytes()),
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn convert_names_every_dropped_field_and_strict_refuses() {
    let mut pool = docs(V1BETA1)[0].clone();
    pool["spec"]["someFutureField"] = json!(1);
    pool["status"]["futureStatus"] = json!("x");
    let text = pool.to_string();
    let o = run(
        &["convert", "--to", "v1beta2", "-f", "-"],
        Some(text.as_bytes()),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        err.contains("spec.someFutureField") && err.contains("status.futureStatus"),
        "{err}"
    );
    let o = run(
        &["convert", "--strict", "--to", "v1beta2", "-f", "-"],
        Some(text.as_bytes()),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
}

#[test]
fn review_of_unreadable_input_exits_2_with_the_failure_body() {
    let o = run(&["review"], Some(b"{not json"));
    assert_eq!(o.status.code(), Some(2));
    let body: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(body["response"]["result"]["status"], "Failure");
}
