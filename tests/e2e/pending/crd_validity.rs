//! CRDs submitted to the real API server (dry run): what it refuses, `check` must FAIL under
//! `crd-valid`; what it accepts (our own MachinePool CRD), `check` must not refuse.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_contract_check::{CheckOptions, CrdInput, Outcome, check_crds};

async fn submit(client: &kube::Client, crd: &serde_json::Value) -> Result<(), kube::Error> {
    let request = capi_e2e::http_request(
        "POST",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All",
        serde_json::to_vec(crd).unwrap(),
    );
    client.request::<serde_json::Value>(request).await.map(|_| ())
}

#[tokio::test]
async fn the_server_and_check_agree_on_refused_crds() {
    let Some(server) = capi_e2e::api_server() else {
        return;
    };
    let client = server.client().await;
    // Our own CRD: the server accepts it.
    let ours = capi_machinepool_api::machine_pool_crd_value();
    submit(&client, &ours)
        .await
        .unwrap_or_else(|e| panic!("the server refuses our MachinePool CRD: {e}"));
    // SOURCE: tests/fixtures/provider-trees/capi-dev (upstream CAPI's test provider).
    let text = std::fs::read_to_string(capi_test_support::fixture(
        "provider-trees/capi-dev/config/crd/bases/infrastructure.cluster.x-k8s.io_devmachinepools.yaml",
    ))
    .unwrap();
    let base: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    submit(&client, &base).await.unwrap();
    // Two storage versions: validation.go line 447-449 ("must have exactly one version
    // marked as storage version").
    let mut two = base.clone();
    for v in two["spec"]["versions"].as_array_mut().unwrap() {
        v["storage"] = serde_json::Value::Bool(true);
    }
    let refusal = submit(&client, &two).await.expect_err("two storage versions");
    let report = check_crds(&[CrdInput::from(two)], &CheckOptions::default());
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.rule.id == "crd-valid" && f.outcome == Outcome::Fail),
        "server: {refusal}\ncheck:\n{report}"
    );
}
