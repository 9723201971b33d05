//! A status server-side apply body (`capi_machinepool_api::ssa::status_apply`) applied through
//! the status subresource of a real API server with a field manager: the server stores the
//! status, the manager owns the status fields it sent and nothing in `spec`, and the status
//! reads back at v1beta1 through the conversion webhook.
#![allow(clippy::unwrap_used, clippy::panic, clippy::expect_used)]

use capi_machinepool_api::ssa::status_apply;
use capi_machinepool_api::v1beta2::{MachinePool, MachinePoolStatus};
use serde_json::{Value, json};

const MANAGER: &str = "e2e-status-controller";

#[tokio::test]
async fn status_apply_through_the_status_subresource() {
    let Some(server) = capi_e2e::api_server() else {
        return;
    };
    let client = server.client().await;
    capi_e2e::install_machine_pool_crd(&client).await;

    // The MachinePool of upstream's Docker example (tests/fixtures/corpus/objects, SOURCE in
    // tests/fixtures/corpus/SOURCE-capi.txt).
    let pool = capi_e2e::corpus_machine_pool();
    let name = pool["metadata"]["name"].as_str().unwrap().to_owned();
    let base = "/apis/cluster.x-k8s.io/v1beta2/namespaces/default/machinepools";
    let _: Value = client
        .request(capi_e2e::http_request(
            "POST",
            base,
            serde_json::to_vec(&pool).unwrap(),
        ))
        .await
        .unwrap_or_else(|e| panic!("create the corpus MachinePool: {e}"));

    // A status as a MachinePool controller reports it while scaling up (v1beta2 condition
    // fields as in upstream's metav1.Condition: type, status, reason, message,
    // lastTransitionTime, observedGeneration).
    let status: MachinePoolStatus = serde_json::from_value(json!({
        "replicas": 2,
        "readyReplicas": 1,
        "phase": "ScalingUp",
        "conditions": [{
            "type": "Available",
            "status": "False",
            "reason": "NotAvailable",
            "message": "1 of 2 replicas ready",
            "lastTransitionTime": "2026-01-02T03:04:05Z",
            "observedGeneration": 1,
        }],
    }))
    .unwrap();
    let body = status_apply::<MachinePool, _>(&name, Some("default"), &status);
    let patch = serde_json::to_vec(&body).unwrap();
    let applied: Value = client
        .request(capi_e2e::http_request_as(
            "PATCH",
            &format!("{base}/{name}/status?fieldManager={MANAGER}&force=true"),
            "application/apply-patch+yaml",
            patch,
        ))
        .await
        .unwrap_or_else(|e| panic!("apply the status: {e}"));
    assert_eq!(applied["status"]["replicas"], 2, "{applied}");

    let got: Value = client
        .request(capi_e2e::http_request(
            "GET",
            &format!("{base}/{name}"),
            Vec::new(),
        ))
        .await
        .unwrap();
    let sent = serde_json::to_value(&status).unwrap();
    for key in ["replicas", "readyReplicas", "phase", "conditions"] {
        assert_eq!(got["status"][key], sent[key], "status.{key}: {got}");
    }
    // The spec is untouched by a status apply.
    assert_eq!(got["spec"]["replicas"], pool["spec"]["replicas"], "{got}");

    // Ownership: one Apply entry for the manager, on the status subresource, owning the
    // status fields sent and nothing under spec.
    let managed = got["metadata"]["managedFields"].as_array().unwrap();
    let ours: Vec<&Value> = managed.iter().filter(|m| m["manager"] == MANAGER).collect();
    assert_eq!(ours.len(), 1, "{managed:?}");
    let entry = ours[0];
    assert_eq!(entry["operation"], "Apply");
    assert_eq!(entry["subresource"], "status");
    let fields = &entry["fieldsV1"];
    assert!(fields.get("f:spec").is_none(), "{fields}");
    for key in ["f:replicas", "f:readyReplicas", "f:phase", "f:conditions"] {
        assert!(
            fields["f:status"].get(key).is_some(),
            "{key} not owned: {fields}"
        );
    }
    assert!(
        fields["f:status"].get("f:availableReplicas").is_none(),
        "a field not sent is owned: {fields}"
    );

    // The same status read at v1beta1 through the webhook.
    let old: Value = client
        .request(capi_e2e::http_request(
            "GET",
            &format!("/apis/cluster.x-k8s.io/v1beta1/namespaces/default/machinepools/{name}"),
            Vec::new(),
        ))
        .await
        .unwrap();
    assert_eq!(old["apiVersion"], "cluster.x-k8s.io/v1beta1");
    assert_eq!(old["status"]["replicas"], 2, "{old}");
    // v1beta1 keeps the v1beta2 readiness counters and conditions under `status.v1beta2`
    // (upstream api/core/v1beta1/machinepool_types.go line 186, MachinePoolStatus.V1Beta2 at
    // ae7ff047); its own `readyReplicas` is the deprecated counter, not applied here.
    assert_eq!(old["status"]["v1beta2"]["readyReplicas"], 1, "{old}");
    assert_eq!(
        old["status"]["v1beta2"]["conditions"], sent["conditions"],
        "{old}"
    );
    assert!(old["status"].get("readyReplicas").is_none(), "{old}");
    assert_eq!(old["status"]["phase"], "ScalingUp", "{old}");
}
