//! End-to-end test harness: a real `kube-apiserver` (the Go program in
//! `tests/go/kubeapiserver`: Kubernetes v1.37.2's own test server, which includes the
//! apiextensions-apiserver, over an embedded etcd, on loopback) and the example conversion
//! webhook (`examples/conversion-webhook`) served over real TLS.
//!
//! [`api_server`] is the server of the CRD, conversion and validation tests (the loopback
//! token, in `system:masters`; `NamespaceLifecycle` off, so namespaces need not exist);
//! [`kube_api_server`] is a second instance with static-token users for the RBAC and
//! `preflight` tests. Each is started once per test binary and shared by its tests: the API server stops when
//! the test process exits (its standard input closes), the webhook runs on its own runtime.
//! Without a Go toolchain [`api_server`] returns `None` after printing
//! `skipped: no Go toolchain` (a failure when `CAPI_REQUIRE_GO=1`).
//!
//! A test-only crate (`publish = false`): a harness that cannot start its servers has nothing
//! to report but a panic that fails the test, as in `capi-test-support`.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

pub mod differential;

/// What the Go program prints once the server answers `/healthz`.
#[derive(Clone, Debug)]
pub struct Endpoint {
    /// `https://127.0.0.1:PORT`.
    pub server: String,
    /// PEM of the CA that signed the server's loopback certificate.
    pub ca_pem: String,
    /// The name that certificate is issued for.
    pub tls_server_name: String,
    /// A bearer token with full rights (the server's loopback token).
    pub token: String,
}

/// A running API server.
pub struct ApiServer {
    /// Where it listens and how to authenticate.
    pub endpoint: Endpoint,
    /// Its log file (stderr of the Go program).
    pub log: PathBuf,
    kubeconfig: String,
    // Kept so that stdin stays open (closing it stops the server, [`ApiServer::stop`]).
    child: Mutex<Child>,
}

impl ApiServer {
    /// The kubeconfig that reaches this server (its CA file written beside the log), as
    /// `kubectl --kubeconfig` and `capi-machinepool check --server --kubeconfig` read it.
    #[must_use]
    pub fn kubeconfig(&self) -> &str {
        &self.kubeconfig
    }

    /// Stops the server (its standard input closed, as at the end of the test process;
    /// killed if it has not exited within 20 s). Every later request to it fails: for a test
    /// of what happens while the API server is away, the last one of its test binary.
    pub fn stop(&self) {
        let mut child = self.child.lock().unwrap_or_else(|e| e.into_inner());
        drop(child.stdin.take());
        for _ in 0..200 {
            if matches!(child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = child.kill();
        let _ = child.wait();
    }

    /// A client for this server, bound to the current tokio runtime.
    ///
    /// # Panics
    /// When the kubeconfig the harness wrote cannot be read by kube.
    pub async fn client(&self) -> kube::Client {
        let kubeconfig = kube::config::Kubeconfig::from_yaml(&self.kubeconfig)
            .expect("the harness's kubeconfig parses");
        let config = kube::Config::from_custom_kubeconfig(
            kubeconfig,
            &kube::config::KubeConfigOptions::default(),
        )
        .await
        .expect("kube reads the harness's kubeconfig");
        kube::Client::try_from(config).expect("kube client")
    }
}

/// The shared API server of this test binary (started on first use), or `None` without Go.
///
/// # Panics
/// When the Go build fails or the server does not start within three minutes.
pub fn api_server() -> Option<&'static ApiServer> {
    static SERVER: OnceLock<Option<ApiServer>> = OnceLock::new();
    SERVER.get_or_init(start_api_server).as_ref()
}

fn start_api_server() -> Option<ApiServer> {
    let bin = build_kube_api_server()?;
    Some(start_server(&bin, "apiserver", &[]).0)
}

/// The Kubernetes release the kube-apiserver of `tests/go/kubeapiserver` is built from.
pub const KUBERNETES_VERSION: &str = "v1.37.2";

/// A user of the kube-apiserver's static token file, with no rights but what RBAC grants.
pub const PREFLIGHT_USER: &str = "capi-preflight";

/// A second user, for tests that grant less than the shipped ClusterRole.
pub const LIMITED_USER: &str = "capi-limited";

/// A running kube-apiserver (`tests/go/kubeapiserver`): the core API besides CRDs, RBAC
/// authorization, and the tokens of [`PREFLIGHT_USER`] and [`LIMITED_USER`].
pub struct KubeApiServer {
    /// The server, with its loopback (system:masters) token.
    pub server: ApiServer,
    /// User name -> bearer token.
    pub user_tokens: std::collections::BTreeMap<String, String>,
}

impl KubeApiServer {
    /// A kubeconfig that reaches this server as `user` (one of the static token file's).
    ///
    /// # Panics
    /// When the server has no such user.
    #[must_use]
    pub fn kubeconfig_as(&self, user: &str) -> String {
        let token = self
            .user_tokens
            .get(user)
            .unwrap_or_else(|| panic!("the kube-apiserver has no user {user}"));
        self.server
            .kubeconfig
            .replace(&self.server.endpoint.token, token)
    }
}

/// The shared kube-apiserver of this test binary (started on first use), or `None` without
/// Go.
///
/// # Panics
/// When the Go build fails or the server does not start within three minutes.
pub fn kube_api_server() -> Option<&'static KubeApiServer> {
    static SERVER: OnceLock<Option<KubeApiServer>> = OnceLock::new();
    SERVER.get_or_init(start_kube_api_server).as_ref()
}

/// Builds `tests/go/kubeapiserver` (once per process), its version set by ldflags.
fn build_kube_api_server() -> Option<PathBuf> {
    let minor = KUBERNETES_VERSION
        .trim_start_matches('v')
        .split('.')
        .nth(1)
        .unwrap_or_default();
    let ldflags = format!(
        "-X k8s.io/component-base/version.gitVersion={KUBERNETES_VERSION} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor={minor} -X k8s.io/component-base/version.gitTreeState=clean"
    );
    capi_test_support::go_tool::build_go_tool_with_ldflags(
        "tests/go/kubeapiserver",
        ".",
        "capi-e2e-kubeapiserver",
        &ldflags,
    )
}

fn start_kube_api_server() -> Option<KubeApiServer> {
    let bin = build_kube_api_server()?;
    let (server, line) = start_server(
        &bin,
        "kubeapiserver",
        &["-user", PREFLIGHT_USER, "-user", LIMITED_USER],
    );
    let user_tokens = line["users"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                .collect()
        })
        .unwrap_or_default();
    Some(KubeApiServer {
        server,
        user_tokens,
    })
}

/// Starts one of the Go API server programs with `args` and reads its endpoint line.
fn start_server(
    bin: &std::path::Path,
    name: &str,
    args: &[&str],
) -> (ApiServer, serde_json::Value) {
    // The apiextensions server's directory keeps its first name (tests write beside it).
    let run = if name == "apiserver" {
        format!("e2e-{}", std::process::id())
    } else {
        format!("e2e-{}-{name}", std::process::id())
    };
    let dir = capi_test_support::go_tool::go_bin_dir().join(run);
    std::fs::create_dir_all(&dir).expect("create the e2e run directory");
    let log = dir.join(format!("{name}.log"));
    let stderr = std::fs::File::create(&log).expect("create the API server log");
    let mut child = Command::new(bin)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", bin.display()));
    let stdout = child.stdout.take().expect("piped stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let read = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(read.map(|_| line));
    });
    let line = match rx.recv_timeout(Duration::from_secs(180)) {
        Ok(Ok(line)) if !line.trim().is_empty() => line,
        other => {
            let _ = child.kill();
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            panic!(
                "the API server did not start ({other:?}); its log {}:\n{text}",
                log.display()
            );
        }
    };
    let v: serde_json::Value = serde_json::from_str(&line)
        .unwrap_or_else(|e| panic!("the API server printed {line:?}: {e}"));
    let field = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
    let endpoint = Endpoint {
        server: field("server"),
        ca_pem: field("ca_pem"),
        tls_server_name: field("tls_server_name"),
        token: field("token"),
    };
    let ca = dir.join("ca.pem");
    std::fs::write(&ca, &endpoint.ca_pem).expect("write the CA");
    let server_name = if endpoint.tls_server_name.is_empty() {
        String::new()
    } else {
        format!("    tls-server-name: {}\n", endpoint.tls_server_name)
    };
    let kubeconfig = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: e2e\n  cluster:\n    server: {}\n    certificate-authority: {}\n{server_name}users:\n- name: e2e\n  user:\n    token: {}\ncontexts:\n- name: e2e\n  context:\n    cluster: e2e\n    user: e2e\n    namespace: default\ncurrent-context: e2e\n",
        endpoint.server,
        ca.display(),
        endpoint.token,
    );
    (
        ApiServer {
            endpoint,
            log,
            kubeconfig,
            child: Mutex::new(child),
        },
        v,
    )
}

/// The example conversion webhook, served over TLS on loopback.
pub struct Webhook {
    /// `https://127.0.0.1:PORT/convert`.
    pub url: String,
    /// PEM of its (self-signed) certificate: the CRD's `caBundle`.
    pub ca_pem: String,
}

/// The CRDs whose contract labels the webhook resolves references with: the same
/// `group/Kind=apiVersion` map upstream's frozen answers used
/// (tests/fixtures/conversion-upstream/README.md, "map").
pub const REFERENCE_CRDS: &str = "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: kubeadmconfigs.bootstrap.cluster.x-k8s.io, labels: {cluster.x-k8s.io/v1beta2: v1beta2}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: talosconfigs.bootstrap.cluster.x-k8s.io, labels: {cluster.x-k8s.io/v1beta2: v1alpha3}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: devmachinepools.infrastructure.cluster.x-k8s.io, labels: {cluster.x-k8s.io/v1beta2: v1beta2}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: dockermachinepools.infrastructure.cluster.x-k8s.io, labels: {cluster.x-k8s.io/v1beta2: v1beta2}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: awsmachinepools.infrastructure.cluster.x-k8s.io, labels: {cluster.x-k8s.io/v1beta2: v1beta2}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: azuremachinepools.infrastructure.cluster.x-k8s.io, labels: {cluster.x-k8s.io/v1beta2: v1beta1}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: foomachinepools.infrastructure.cluster.x-k8s.io, labels: {cluster.x-k8s.io/v1beta2: v1beta1}}
";

/// The shared webhook of this test binary (started on first use).
///
/// # Panics
/// When the certificate cannot be made or the server cannot start.
pub fn webhook() -> &'static Webhook {
    static WEBHOOK: OnceLock<Webhook> = OnceLock::new();
    WEBHOOK.get_or_init(start_webhook)
}

fn start_webhook() -> Webhook {
    let dir = capi_test_support::go_tool::go_bin_dir()
        .join(format!("e2e-{}", std::process::id()))
        .join("webhook");
    std::fs::create_dir_all(&dir).expect("create the webhook directory");
    let cert = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()])
        .expect("a self-signed certificate");
    let ca_pem = cert.cert.pem();
    std::fs::write(dir.join("tls.crt"), &ca_pem).expect("write tls.crt");
    std::fs::write(dir.join("tls.key"), cert.signing_key.serialize_pem()).expect("write tls.key");
    std::fs::write(dir.join("references.yaml"), REFERENCE_CRDS).expect("write the CRDs");
    let config = webhook_config(
        &dir,
        ([127, 0, 0, 1], 0).into(),
        vec![dir.join("references.yaml")],
    );
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("webhook runtime");
        runtime.block_on(async move {
            let running = conversion_webhook::start(config, std::future::pending()).await;
            match running {
                Ok(running) => {
                    let _ = tx.send(Ok(running.addr));
                    let _ = running.done.await;
                }
                Err(e) => {
                    let _ = tx.send(Err(e));
                }
            }
        });
    });
    let addr = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the webhook starts")
        .unwrap_or_else(|e| panic!("the webhook did not start: {e}"));
    Webhook {
        url: format!("https://{addr}/convert"),
        ca_pem,
    }
}

/// The API path of the MachinePools of `namespace` at `version` (`v1beta1`, `v1beta2`), or of
/// the one named `name`.
#[must_use]
pub fn machine_pools_path(namespace: &str, version: &str, name: Option<&str>) -> String {
    let base = format!("/apis/cluster.x-k8s.io/{version}/namespaces/{namespace}/machinepools");
    name.map_or_else(|| base.clone(), |n| format!("{base}/{n}"))
}

/// `spec` (a MachinePool's, at v1beta1) without the `namespace` of its bootstrap and
/// infrastructure references: upstream's conversion writes the pool's namespace into them.
#[must_use]
pub fn without_reference_namespaces(spec: &serde_json::Value) -> serde_json::Value {
    let mut spec = spec.clone();
    for pointer in [
        "/template/spec/bootstrap/configRef",
        "/template/spec/infrastructureRef",
    ] {
        if let Some(r) = spec
            .pointer_mut(pointer)
            .and_then(serde_json::Value::as_object_mut)
        {
            r.remove("namespace");
        }
    }
    spec
}

/// The settings of a webhook served on `addr` with the `tls.crt` and `tls.key` of `dir`: the
/// defaults of `main`, no metrics, references resolved from `crds` only.
#[must_use]
pub fn webhook_config(
    dir: &std::path::Path,
    addr: std::net::SocketAddr,
    crds: Vec<PathBuf>,
) -> conversion_webhook::Config {
    conversion_webhook::Config {
        addr,
        cert: dir.join("tls.crt"),
        key: dir.join("tls.key"),
        crds,
        live_crds: None,
        max_body_bytes: 3 << 20,
        request_timeout: Duration::from_secs(10),
        reload_interval: Duration::from_secs(3600),
        metrics_addr: None,
        metrics_auth: None,
        limits: conversion_webhook::Limits::default(),
    }
}

/// The MachinePool CRD `capi-machinepool crd` prints, with `spec.conversion` pointing at
/// `webhook` (`caBundle` its certificate).
#[must_use]
pub fn machine_pool_crd_with_webhook(webhook: &Webhook) -> serde_json::Value {
    let mut crd = capi_machinepool_api::machine_pool_crd_value();
    let ca_bundle =
        serde_json::to_value(k8s_openapi::ByteString(webhook.ca_pem.as_bytes().to_vec()))
            .expect("a ByteString serializes");
    crd["spec"]["conversion"] = serde_json::json!({
        "strategy": "Webhook",
        "webhook": {
            "clientConfig": {"url": webhook.url, "caBundle": ca_bundle},
            "conversionReviewVersions": ["v1"],
        }
    });
    crd
}

/// Creates the CRD `crd` (raw JSON, as a user would `kubectl create` it) and waits until it
/// is Established; `Err` carries the server's refusal.
///
/// # Errors
/// The API server's answer when it refuses the CRD.
pub async fn create_crd(client: &kube::Client, crd: &serde_json::Value) -> Result<(), kube::Error> {
    let name = crd["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let body = serde_json::to_vec(crd).map_err(kube::Error::SerdeError)?;
    let request = http_request(
        "POST",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        body,
    );
    let _: serde_json::Value = client.request(request).await?;
    wait_established(client, &name).await;
    Ok(())
}

/// A raw JSON request.
///
/// # Panics
/// Never for the methods and paths the tests use.
#[must_use]
pub fn http_request(method: &str, path: &str, body: Vec<u8>) -> http::Request<Vec<u8>> {
    http_request_as(method, path, "application/json", body)
}

/// [`http_request`] with another content type (`application/apply-patch+yaml` for a
/// server-side apply, say).
pub fn http_request_as(
    method: &str,
    path: &str,
    content_type: &str,
    body: Vec<u8>,
) -> http::Request<Vec<u8>> {
    http::Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", content_type)
        .body(body)
        .expect("a valid request")
}

/// A MachinePool's own version (the last segment of its `apiVersion`) and the other served
/// version it converts to.
pub fn version_and_other(object: &serde_json::Value) -> (&str, &'static str) {
    let own = object["apiVersion"]
        .as_str()
        .and_then(|v| v.rsplit('/').next())
        .expect("a MachinePool with an apiVersion");
    (
        own,
        if own == "v1beta1" {
            "v1beta2"
        } else {
            "v1beta1"
        },
    )
}

/// Waits (up to a minute) for the CRD `name` to be Established.
///
/// # Panics
/// When it is not Established within a minute.
pub async fn wait_established(client: &kube::Client, name: &str) {
    let api: kube::Api<
        k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
    > = kube::Api::all(client.clone());
    for _ in 0..600 {
        if let Ok(crd) = api.get(name).await {
            let established = crd
                .status
                .and_then(|s| s.conditions)
                .unwrap_or_default()
                .iter()
                .any(|c| c.type_ == "Established" && c.status == "True");
            if established {
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("CRD {name} not Established after a minute");
}

/// Installs the MachinePool CRD (with the webhook) once per test binary.
pub async fn install_machine_pool_crd(client: &kube::Client) {
    static INSTALLED: tokio::sync::OnceCell<()> = tokio::sync::OnceCell::const_new();
    INSTALLED
        .get_or_init(|| async {
            let crd = machine_pool_crd_with_webhook(webhook());
            create_crd(client, &crd)
                .await
                .unwrap_or_else(|e| panic!("the server refuses our MachinePool CRD: {e}"));
        })
        .await;
}

/// The MachinePool of upstream's Docker example (tests/fixtures/corpus/objects, SOURCE in
/// tests/fixtures/corpus/SOURCE-capi.txt).
pub fn corpus_machine_pool() -> serde_json::Value {
    let text = std::fs::read_to_string(capi_test_support::fixture(
        "corpus/objects/machine-pool.yaml",
    ))
    .unwrap();
    let docs: Vec<serde_json::Value> = serde_saphyr::from_multiple(&text).unwrap();
    docs.into_iter()
        .find(|d| d["kind"] == "MachinePool")
        .expect("the example has a MachinePool")
}

/// What the server sets itself on create, and what a create cannot set: removed from the
/// object before it is sent. `status` is reset on create because the CRD enables the status
/// subresource (Kubernetes docs, "Status subresource": "PUT/POST/PATCH requests to the custom
/// resource ignore changes to the status stanza").
pub fn prepare_create(input: &serde_json::Value, name: &str, namespace: &str) -> serde_json::Value {
    let mut object = input.clone();
    let map = object.as_object_mut().unwrap();
    map.remove("status");
    let meta = map
        .entry("metadata")
        .or_insert_with(|| serde_json::json!({}));
    let meta = meta.as_object_mut().unwrap();
    for key in [
        "uid",
        "resourceVersion",
        "creationTimestamp",
        "generation",
        "managedFields",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "finalizers",
        "ownerReferences",
        "namespace",
        "name",
    ] {
        meta.remove(key);
    }
    meta.insert("name".into(), name.into());
    meta.insert("namespace".into(), namespace.into());
    object
}

/// What `clusterctl generate cluster` does to a template, with fixed values: `${NAME}` becomes
/// `1` when NAME ends in `COUNT`, else NAME in lower case with `-` for `_` (a valid name, label
/// and string everywhere the provider templates use variables).
pub fn substitute(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let name = &after[..end];
        if name.ends_with("COUNT") {
            out.push('1');
        } else {
            out.push_str(&name.to_lowercase().replace('_', "-"));
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}
