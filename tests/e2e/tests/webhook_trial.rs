//! The operator's trial of the example conversion webhook (issue 52), against the real
//! kube-apiserver of the tests (`tests/go/kubeapiserver`): the webhook serves TLS on
//! loopback, the MachinePool CRD registers it by URL, and it resolves reference versions from
//! the API server's own CRDs (`LiveCrds`, a watch; no `--crds` bundle), as Cluster API's
//! manager does (`contract.GetAPIVersion`).
//!
//! One test, in order (each step needs the state the one before left):
//! 1. a storage-version migration of 300 pools: stored at v1beta1, storage switched to
//!    v1beta2, each pool read and written at v1beta2, `storedVersions` narrowed; no failure,
//!    every pool read back at v1beta1 as created;
//! 2. create at v1beta1, read at both versions; edit v1beta2 fields, read back at both; write
//!    the v1beta1 form back unchanged: nothing lost either way;
//! 3. a pool referencing a kind with no CRD: reading that pool at v1beta1 fails with the kind
//!    in the reason, other pools still read one by one (the API server sends a list's objects
//!    in one review, so a v1beta1 list holding it fails too, as with upstream's webhook);
//!    once the CRD is installed the watch picks it up and the pool reads at the version its
//!    contract label names, without a restart;
//! 4. the webhook killed: reads needing conversion fail, reads at the storage version do not;
//!    restarted on the same address: conversions work again.
#![allow(clippy::unwrap_used, clippy::panic, clippy::too_many_lines)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures::{StreamExt, TryFutureExt, TryStreamExt};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PostParams};
use serde_json::{Value, json};

const NAMESPACE: &str = "trial";
const MIGRATED: usize = 300;

/// The webhook, run on a runtime of its own so that the test can kill it (the runtime is
/// dropped: every connection and the listener close at once, as when the process dies).
struct WebhookRun {
    addr: SocketAddr,
    kill: tokio::sync::oneshot::Sender<()>,
    thread: std::thread::JoinHandle<()>,
}

impl WebhookRun {
    fn start(dir: &Path, addr: SocketAddr, server: &'static capi_e2e::ApiServer) -> Self {
        let config = capi_e2e::webhook_config(dir, addr, Vec::new());
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let (kill, kill_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                // A client of its own, on this runtime: it dies with the webhook.
                let live = conversion_webhook::live::LiveCrds::watch(server.client().await);
                let synced = tokio::time::timeout(Duration::from_secs(60), live.synced()).await;
                if synced.is_err() {
                    let _ = started_tx.send(Err("the CRD watch did not sync".to_owned()));
                    return;
                }
                let config = conversion_webhook::Config {
                    live_crds: Some(live),
                    ..config
                };
                match conversion_webhook::start(config, std::future::pending()).await {
                    Ok(running) => {
                        let _ = started_tx.send(Ok(running.addr));
                        tokio::select! {
                            _ = running.done => {}
                            _ = kill_rx => {}
                        }
                    }
                    Err(e) => {
                        let _ = started_tx.send(Err(e));
                    }
                }
            });
            runtime.shutdown_timeout(Duration::ZERO);
        });
        let addr = started_rx
            .recv_timeout(Duration::from_secs(90))
            .expect("the webhook starts")
            .unwrap_or_else(|e| panic!("the webhook did not start: {e}"));
        Self { addr, kill, thread }
    }

    fn kill(self) -> SocketAddr {
        let _ = self.kill.send(());
        self.thread.join().unwrap();
        self.addr
    }
}

/// A namespaced CRD serving `versions` (the first stored), any content, with `labels`.
fn provider_crd(group: &str, kind: &str, versions: &[&str], labels: &Value) -> Value {
    let plural = format!("{}s", kind.to_lowercase());
    let versions: Vec<Value> = versions
        .iter()
        .enumerate()
        .map(|(i, v)| {
            json!({"name": v, "served": true, "storage": i == 0, "schema": {"openAPIV3Schema": {
                "type": "object", "x-kubernetes-preserve-unknown-fields": true}}})
        })
        .collect();
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{group}"), "labels": labels},
        "spec": {"group": group, "scope": "Namespaced",
            "names": {"kind": kind, "plural": plural, "singular": kind.to_lowercase(),
                "listKind": format!("{kind}List")},
            "versions": versions}
    })
}

/// A v1beta1 MachinePool referencing an InfraMachinePool of `kind` at `infra_version`.
fn pool_v1beta1(name: &str, kind: &str, infra_version: &str) -> Value {
    json!({
        "apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachinePool",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": {"trial": "yes"}},
        "spec": {"clusterName": "trial", "replicas": 2, "template": {"spec": {
            "clusterName": "trial", "version": "v1.34.1",
            "bootstrap": {"dataSecretName": format!("{name}-boot")},
            "infrastructureRef": {"apiVersion": format!("infrastructure.cluster.x-k8s.io/{infra_version}"),
                "kind": kind, "name": name}}}}
    })
}

fn path(version: &str, name: Option<&str>) -> String {
    capi_e2e::machine_pools_path(NAMESPACE, version, name)
}

async fn send(
    client: &kube::Client,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> Result<Value, kube::Error> {
    let body = body
        .map(|b| serde_json::to_vec(b).unwrap())
        .unwrap_or_default();
    client
        .request(capi_e2e::http_request(method, path, body))
        .await
}

async fn get(client: &kube::Client, version: &str, name: &str) -> Result<Value, kube::Error> {
    send(client, "GET", &path(version, Some(name)), None).await
}

async fn put(client: &kube::Client, object: &Value) -> Result<Value, kube::Error> {
    let version = object["apiVersion"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_owned();
    let name = object["metadata"]["name"].as_str().unwrap().to_owned();
    send(client, "PUT", &path(&version, Some(&name)), Some(object)).await
}

/// Polls `read` every 200 ms for up to `limit` until it succeeds.
async fn eventually<F, Fut>(limit: Duration, mut read: F) -> Result<Value, kube::Error>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<Value, kube::Error>>,
{
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        let answer = read().await;
        if answer.is_ok() || tokio::time::Instant::now() > deadline {
            return answer;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn webhook_dir() -> (PathBuf, String) {
    let dir = capi_test_support::go_tool::go_bin_dir()
        .join(format!("e2e-{}", std::process::id()))
        .join("trial-webhook");
    std::fs::create_dir_all(&dir).unwrap();
    let cert = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).unwrap();
    std::fs::write(dir.join("tls.crt"), cert.cert.pem()).unwrap();
    std::fs::write(dir.join("tls.key"), cert.signing_key.serialize_pem()).unwrap();
    (dir, cert.cert.pem())
}

async fn set_storage(crds: &Api<CustomResourceDefinition>, name: &str, storage: &str) {
    let mut crd = crds.get(name).await.unwrap();
    for v in &mut crd.spec.versions {
        v.storage = v.name == storage;
    }
    crds.replace(name, &PostParams::default(), &crd)
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_trial_on_a_real_api_server() {
    let Some(server) = capi_e2e::api_server() else {
        return;
    };
    let client = server.client().await;
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let contract = json!({"cluster.x-k8s.io/v1beta2": "v1beta2"});
    capi_e2e::create_crd(
        &client,
        &provider_crd(
            "infrastructure.cluster.x-k8s.io",
            "DockerMachinePool",
            &["v1beta2", "v1beta1"],
            &contract,
        ),
    )
    .await
    .unwrap();
    // (The tests' server runs without NamespaceLifecycle: namespaces need not exist.)

    let (dir, ca_pem) = webhook_dir();
    let webhook = WebhookRun::start(&dir, ([127, 0, 0, 1], 0).into(), server);
    let mut crd = capi_e2e::machine_pool_crd_with_webhook(&capi_e2e::Webhook {
        url: format!("https://{}/convert", webhook.addr),
        ca_pem,
    });
    // Stored at v1beta1 first, for the migration of step 1.
    for v in crd["spec"]["versions"].as_array_mut().unwrap() {
        v["storage"] = json!(v["name"] == "v1beta1");
    }
    capi_e2e::create_crd(&client, &crd).await.unwrap();
    let crd_name = "machinepools.cluster.x-k8s.io";

    // 1. Storage-version migration.
    let names: Vec<String> = (0..MIGRATED).map(|i| format!("pool-{i:03}")).collect();
    futures::stream::iter(&names)
        .map(|name| {
            let client = client.clone();
            async move {
                let object = pool_v1beta1(name, "DockerMachinePool", "v1beta2");
                send(&client, "POST", &path("v1beta1", None), Some(&object)).await
            }
        })
        .buffer_unordered(8)
        .try_collect::<Vec<_>>()
        .await
        .unwrap();
    set_storage(&crds, crd_name, "v1beta2").await;
    let failures: Vec<String> = futures::stream::iter(names.iter())
        .map(|name| {
            let client = client.clone();
            async move {
                let object = get(&client, "v1beta2", name).await?;
                put(&client, &object).await.map(|_| ())
            }
            .map_err(move |e: kube::Error| format!("{name}: {e}"))
        })
        .buffer_unordered(8)
        .filter_map(|r| async move { r.err() })
        .collect()
        .await;
    assert!(failures.is_empty(), "migration failures: {failures:?}");
    let mut migrated = crds.get_status(crd_name).await.unwrap();
    migrated.status.as_mut().unwrap().stored_versions = Some(vec!["v1beta2".to_owned()]);
    crds.replace_status(crd_name, &PostParams::default(), &migrated)
        .await
        .unwrap();
    let list = send(
        &client,
        "GET",
        &format!("{}?labelSelector=trial%3Dyes", path("v1beta1", None)),
        None,
    )
    .await
    .unwrap();
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), MIGRATED);
    for item in items {
        let name = item["metadata"]["name"].as_str().unwrap();
        assert_eq!(
            comparable(&item["spec"]),
            pool_v1beta1(name, "DockerMachinePool", "v1beta2")["spec"],
            "{name} after the migration"
        );
    }

    // 2. Create at v1beta1, read at both; edit at v1beta2, read back; write v1beta1 back.
    // Stored at v1beta2 now: every v1beta1 read and write goes through the webhook.
    let created = pool_v1beta1("trial-a", "DockerMachinePool", "v1beta1");
    send(&client, "POST", &path("v1beta1", None), Some(&created))
        .await
        .unwrap();
    let hub = get(&client, "v1beta2", "trial-a").await.unwrap();
    assert_eq!(
        hub["spec"]["template"]["spec"]["infrastructureRef"],
        json!({"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DockerMachinePool", "name": "trial-a"})
    );
    let spoke = get(&client, "v1beta1", "trial-a").await.unwrap();
    // The reference comes back at the version the CRD's contract label names (v1beta2), the
    // rest as created.
    let mut expected = created["spec"].clone();
    expected["template"]["spec"]["infrastructureRef"]["apiVersion"] =
        json!("infrastructure.cluster.x-k8s.io/v1beta2");
    assert_eq!(comparable(&spoke["spec"]), expected);

    let mut edited = hub.clone();
    edited["spec"]["template"]["spec"]["deletion"] =
        json!({"nodeDrainTimeoutSeconds": 30, "nodeDeletionTimeoutSeconds": 45});
    edited["spec"]["template"]["spec"]["minReadySeconds"] = json!(7);
    let stored = put(&client, &edited).await.unwrap();
    let spoke = get(&client, "v1beta1", "trial-a").await.unwrap();
    let spec = &spoke["spec"]["template"]["spec"];
    assert_eq!(spec["nodeDrainTimeout"], "30s", "{spoke}");
    assert_eq!(spec["nodeDeletionTimeout"], "45s", "{spoke}");
    assert_eq!(spoke["spec"]["minReadySeconds"], 7, "{spoke}");
    put(&client, &spoke).await.unwrap();
    let after = get(&client, "v1beta2", "trial-a").await.unwrap();
    assert_eq!(
        after["spec"], stored["spec"],
        "the v1beta1 round trip lost something"
    );
    assert_eq!(
        after["metadata"]["annotations"],
        stored["metadata"]["annotations"]
    );

    // 3. A referenced kind with no CRD.
    let missing = json!({
        "apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
        "metadata": {"name": "trial-missing", "namespace": NAMESPACE},
        "spec": {"clusterName": "trial", "template": {"spec": {"clusterName": "trial",
            "bootstrap": {"dataSecretName": "boot"},
            "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io",
                "kind": "TrialMachinePool", "name": "trial-missing"}}}}
    });
    send(&client, "POST", &path("v1beta2", None), Some(&missing))
        .await
        .unwrap();
    let refused = get(&client, "v1beta1", "trial-missing").await.unwrap_err();
    let reason = refused.to_string();
    assert!(reason.contains("TrialMachinePool"), "{reason}");
    assert!(
        reason.contains("trialmachinepools.infrastructure.cluster.x-k8s.io"),
        "{reason}"
    );
    get(&client, "v1beta1", "pool-000").await.unwrap();
    let list = send(&client, "GET", &path("v1beta1", None), None).await;
    assert!(
        list.is_err(),
        "a v1beta1 list holding the pool converts in one review"
    );
    let labels = json!({"cluster.x-k8s.io/v1beta2": "v1beta1"});
    capi_e2e::create_crd(
        &client,
        &provider_crd(
            "infrastructure.cluster.x-k8s.io",
            "TrialMachinePool",
            &["v1beta1"],
            &labels,
        ),
    )
    .await
    .unwrap();
    let resolved = eventually(Duration::from_secs(30), || {
        get(&client, "v1beta1", "trial-missing")
    })
    .await
    .unwrap_or_else(|e| panic!("the watch did not pick up the new CRD: {e}"));
    assert_eq!(
        resolved["spec"]["template"]["spec"]["infrastructureRef"]["apiVersion"],
        "infrastructure.cluster.x-k8s.io/v1beta1"
    );

    // 4. Killed and restarted.
    let addr = webhook.kill();
    let down = get(&client, "v1beta1", "pool-001").await.unwrap_err();
    assert!(down.to_string().contains("conversion webhook"), "{down}");
    get(&client, "v1beta2", "pool-001").await.unwrap();
    let restarted = WebhookRun::start(&dir, addr, server);
    assert_eq!(restarted.addr, addr);
    let back = eventually(Duration::from_secs(30), || {
        get(&client, "v1beta1", "pool-001")
    })
    .await;
    assert_eq!(
        comparable(&back.unwrap()["spec"]),
        pool_v1beta1("pool-001", "DockerMachinePool", "v1beta2")["spec"]
    );
    restarted.kill();
}

/// A v1beta1 spec without what upstream's conversion adds and that means nothing more: the
/// pool's namespace in its references, and an empty `template.metadata` (Go's v1beta1
/// `ObjectMeta` is a struct, which `omitempty` never omits).
fn comparable(spec: &Value) -> Value {
    let mut spec = capi_e2e::without_reference_namespaces(spec);
    if spec["template"]["metadata"] == json!({}) {
        spec["template"].as_object_mut().unwrap().remove("metadata");
    }
    spec
}
