//! `docs/migration-v1beta1-to-v1beta2.md` shows every field move with before/after YAML
//! produced by the converter; this test regenerates the snippets and fails when the document
//! is stale (`UPDATE_DOCS=1 cargo test -p capi-machinepool-conversion --test migration_doc`).
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use capi_machinepool_conversion::{ObjectConverter, machine_pool_converter};
use common::{fixture, resolver};
use serde_json::{Value, json};

const BEGIN: &str = "<!-- BEGIN GENERATED FIELD MOVES -->";
const END: &str = "<!-- END GENERATED FIELD MOVES -->";

fn base() -> Value {
    json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachinePool", "metadata": {"name": "workers", "namespace": "default"},
        "spec": {"clusterName": "c1", "replicas": 2, "template": {"spec": {"clusterName": "c1",
            "bootstrap": {"dataSecretName": "workers-bootstrap"}, "infrastructureRef": {}}}}})
}

fn merge(target: &mut Value, patch: &Value) {
    if let (Value::Object(t), Value::Object(p)) = (&mut *target, patch) {
        for (k, v) in p {
            if v.is_null() {
                t.remove(k);
            } else {
                merge(t.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
    } else {
        *target = patch.clone();
    }
}

fn pick(v: &Value, path: &[&str]) -> Value {
    let mut out = Value::Null;
    let mut cur = v;
    for p in path {
        cur = &cur[*p];
    }
    let mut node = &mut out;
    for p in path {
        *node = json!({});
        node = node
            .as_object_mut()
            .unwrap()
            .entry(p.to_string())
            .or_insert(Value::Null);
    }
    *node = cur.clone();
    out
}

fn yaml(v: &Value) -> String {
    serde_saphyr::to_string(v).unwrap()
}

fn section(
    title: &str,
    note: &str,
    patch: Value,
    before_path: &[&str],
    after_path: &[&str],
) -> String {
    let converter = machine_pool_converter(resolver());
    let mut spoke = base();
    merge(&mut spoke, &patch);
    let hub = converter
        .convert_value(&spoke, "cluster.x-k8s.io/v1beta2")
        .unwrap();
    format!(
        "### {title}\n\n{note}\n\nv1beta1:\n\n```yaml\n{}```\n\nv1beta2:\n\n```yaml\n{}```\n\n",
        yaml(&pick(&spoke, before_path)),
        yaml(&pick(&hub, after_path))
    )
}

fn generated() -> String {
    let mut out = String::from("\n");
    out.push_str(&section(
        "spec.minReadySeconds",
        "Moves into the machine template.",
        json!({"spec": {"minReadySeconds": 30}}),
        &["spec"],
        &["spec"],
    ));
    out.push_str(&section("Node drain, volume detach and deletion timeouts",
        "Go durations become whole seconds under `deletion` (truncated toward zero, capped at 2147483647).",
        json!({"spec": {"template": {"spec": {"nodeDrainTimeout": "5m30.5s", "nodeVolumeDetachTimeout": "10m", "nodeDeletionTimeout": "10s"}}}}),
        &["spec", "template", "spec"], &["spec", "template", "spec"]));
    out.push_str(&section("References",
        "`apiVersion` becomes `apiGroup`; the version is no longer stored (it is resolved from the CRD's `cluster.x-k8s.io/<contract>` label when converting back), and `namespace`, `uid`, `resourceVersion`, `fieldPath` are dropped (the MachinePool's namespace is used).",
        json!({"spec": {"template": {"spec": {"bootstrap": {"configRef": {"apiVersion": "bootstrap.cluster.x-k8s.io/v1beta2", "kind": "KubeadmConfig", "name": "workers-config", "namespace": "default", "uid": "4a5b"}, "dataSecretName": null},
            "infrastructureRef": {"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "DockerMachinePool", "name": "workers", "namespace": "default"}}}}}),
        &["spec", "template", "spec"], &["spec", "template", "spec"]));
    out.push_str(&section("version, providerID, failureDomain",
        "Pointers become plain strings; an empty string is the same as unset.",
        json!({"spec": {"template": {"spec": {"version": "v1.33.1", "providerID": "docker:////workers", "failureDomain": "fd1"}}}}),
        &["spec", "template", "spec"], &["spec", "template", "spec"]));
    out.push_str(&section("Readiness flags",
        "`bootstrapReady` / `infrastructureReady` become `status.initialization`. `true` is kept; `false` means \"not reported\" unless the object was itself converted from v1beta2 (the `cluster.x-k8s.io/conversion-data` annotation remembers an explicit `false`).",
        json!({"status": {"bootstrapReady": true, "infrastructureReady": false, "replicas": 2}}), &["status"], &["status", "initialization"]));
    out.push_str(&section("Conditions and replica counters",
        "The v1beta1 conditions and counters move to `status.deprecated.v1beta1`; the v1beta2 preview block `status.v1beta2` becomes the top-level `status.conditions` and counters.",
        json!({"status": {"replicas": 2, "readyReplicas": 1, "availableReplicas": 1, "unavailableReplicas": 1,
            "conditions": [{"type": "Ready", "status": "False", "severity": "Info", "reason": "WaitingForReplicasReady", "lastTransitionTime": "2026-12-01T10:00:00Z"}],
            "v1beta2": {"readyReplicas": 1, "availableReplicas": 1, "upToDateReplicas": 2,
                "conditions": [{"type": "Paused", "status": "False", "reason": "NotPaused", "message": "", "lastTransitionTime": "2026-12-01T10:00:00Z"}]}}}),
        &["status"], &["status"]));
    out.push_str(&section("Terminal failures",
        "`failureReason` / `failureMessage` move to `status.deprecated.v1beta1`; the v1beta2 contract reports failures through conditions.",
        json!({"status": {"failureReason": "InvalidConfiguration", "failureMessage": "instance type not available"}}),
        &["status"], &["status", "deprecated"]));
    out
}

#[test]
fn migration_doc_matches_the_converter() {
    let path = fixture("../../docs/migration-v1beta1-to-v1beta2.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let start = doc.find(BEGIN).unwrap() + BEGIN.len();
    let end = doc.find(END).unwrap();
    let text = generated();
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, format!("{}{text}{}", &doc[..start], &doc[end..])).unwrap();
        return;
    }
    assert_eq!(
        &doc[start..end],
        text,
        "stale: run UPDATE_DOCS=1 cargo test -p capi-machinepool-conversion --test migration_doc"
    );
}
