//! `check --server` and `validate --server` against the real `kube-apiserver` of the
//! end-to-end tier (tests/go/kubeapiserver): the server's verdict, cause by cause, and exit 2 when
//! no server answers. Without Go the test is skipped (a failure under `CAPI_REQUIRE_GO=1`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

use serde_json::{Value, json};

fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_capi-machinepool"))
}

/// The server's kubeconfig in a file, and a scratch directory.
fn setup() -> Option<(&'static capi_e2e::ApiServer, tempfile::TempDir)> {
    let server = capi_e2e::api_server()?;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("kubeconfig"), server.kubeconfig()).unwrap();
    Some((server, dir))
}

fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn dev_machine_pool_crd() -> Value {
    let text = std::fs::read_to_string(capi_test_support::fixture(
        "provider-trees/capi-dev/config/crd/bases/infrastructure.cluster.x-k8s.io_devmachinepools.yaml",
    ))
    .unwrap();
    serde_saphyr::from_str(&text).unwrap()
}

#[test]
fn check_server_reports_the_servers_verdict() {
    let Some((server, dir)) = setup() else {
        return;
    };
    let kubeconfig = dir.path().join("kubeconfig");
    // Accepted: upstream's DevMachinePool CRD (its base file, without the contract labels its
    // kustomization adds: the contract-label FAIL is not what this test looks at).
    let good = dir.path().join("good.yaml");
    std::fs::write(
        &good,
        serde_json::to_string(&dev_machine_pool_crd()).unwrap(),
    )
    .unwrap();
    let (code, out, err) = run(cli()
        .args(["check", "--verbose", "--server", "--kubeconfig"])
        .arg(&kubeconfig)
        .arg(&good));
    assert_eq!(code, 1, "{out}{err}");
    let accepted = format!(
        "the API server {}/ accepts it (server-side dry run)",
        server.endpoint.server
    );
    assert!(out.contains(&accepted), "{out}");
    // Refused: a CEL rule that does not compile.
    let mut bad = dev_machine_pool_crd();
    bad["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["x-kubernetes-validations"] =
        json!([{"rule": "self.replicas >"}]);
    let bad_file = dir.path().join("bad.yaml");
    std::fs::write(&bad_file, serde_json::to_string(&bad).unwrap()).unwrap();
    let (code, out, _) = run(cli()
        .args(["check", "--format", "json", "--server", "--kubeconfig"])
        .arg(&kubeconfig)
        .arg(&bad_file));
    assert_eq!(code, 1, "{out}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let refusal = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "crd-valid" && f["outcome"] == "fail")
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(
        refusal["path"],
        "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule",
        "{refusal}"
    );
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .contains("compilation failed"),
        "{refusal}"
    );
    // Without --server the model compiles the rule offline: the same path and message.
    let (code, offline, _) = run(cli().args(["check", "--format", "json"]).arg(&bad_file));
    assert_eq!(code, 1, "{offline}");
    let offline: Value = serde_json::from_str(&offline).unwrap();
    let model = offline["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "crd-valid" && f["outcome"] == "fail")
        .unwrap_or_else(|| panic!("{offline}"));
    assert_eq!(model["path"], refusal["path"], "{model}");
    // The server's finding names the server first; the cause is the same text.
    let server_cause = refusal["message"]
        .as_str()
        .and_then(|m| m.split_once(" refuses it: "))
        .map(|(_, cause)| cause);
    assert_eq!(model["message"].as_str(), server_cause, "{model}");
}

#[test]
fn validate_server_asks_the_server_for_each_machine_pool() {
    let Some((server, dir)) = setup() else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let client = server.client().await;
        capi_e2e::create_crd(&client, &capi_machinepool_api::machine_pool_crd_value())
            .await
            .unwrap();
    });
    let kubeconfig = dir.path().join("kubeconfig");
    let pool = |name: &str| {
        json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"clusterName": "c1", "template": {"spec": {"clusterName": "c1", "version": "v1.33.0",
                "bootstrap": {"dataSecretName": "s"},
                "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DevMachinePool", "name": "d"}}}}})
    };
    let file = dir.path().join("pools.yaml");
    std::fs::write(
        &file,
        format!("{}\n---\n{}\n", pool("workers"), pool("Workers_1")),
    )
    .unwrap();
    let (code, out, err) = run(cli()
        .args(["validate", "--server", "--kubeconfig"])
        .arg(&kubeconfig)
        .arg("-f")
        .arg(&file));
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("accepts it (server-side dry run)"), "{out}");
    assert!(
        out.contains("server  error   metadata.name: Invalid value: \"Workers_1\""),
        "{out}"
    );
    assert!(out.contains("1 refused by the API server"), "{out}");
}

#[test]
fn an_unreachable_server_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    // Port 1 on loopback: nothing listens there.
    std::fs::write(
        &kubeconfig,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\nusers:\n- name: u\n  user:\n    token: t\n",
    )
    .unwrap();
    let crd = capi_test_support::fixture("provider-trees/capi-dev/config/crd/bases");
    let (code, out, err) = run(cli()
        .args(["check", "--server", "--kubeconfig"])
        .arg(&kubeconfig)
        .arg(&crd));
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("cannot be reached"), "{err}");
}

/// A schema 60 levels deep: the server accepts it and replies with the CRD, more than 128
/// JSON levels deep (serde_json's default recursion limit); the reply is read back whatever
/// its depth, so the verdict is the server's, not exit 2 (issue 60).
#[test]
fn a_deep_schema_is_judged_by_the_server() {
    let Some((server, dir)) = setup() else {
        return;
    };
    let mut crd = dev_machine_pool_crd();
    let mut node = json!({"type": "string"});
    for _ in 0..60 {
        node = json!({"type": "object", "properties": {"next": node}});
    }
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["deep"] =
        node;
    crd["metadata"]["name"] = json!("deepmachinepools.infrastructure.cluster.x-k8s.io");
    crd["spec"]["names"]["plural"] = json!("deepmachinepools");
    crd["spec"]["names"]["singular"] = json!("deepmachinepool");
    crd["spec"]["names"]["kind"] = json!("DeepMachinePool");
    crd["spec"]["names"]["listKind"] = json!("DeepMachinePoolList");
    let file = dir.path().join("deep.json");
    std::fs::write(&file, serde_json::to_string(&crd).unwrap()).unwrap();
    let (code, out, err) = run(cli()
        .args(["check", "--verbose", "--server", "--kubeconfig"])
        .arg(dir.path().join("kubeconfig"))
        .arg(&file));
    assert_ne!(code, 2, "{out}{err}");
    assert!(
        out.contains(&format!(
            "the API server {}/ accepts it (server-side dry run)",
            server.endpoint.server
        )),
        "{out}{err}"
    );
}
