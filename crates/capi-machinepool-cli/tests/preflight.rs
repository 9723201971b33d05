//! `preflight` against a real kube-apiserver (tests/go/kubeapiserver, Kubernetes v1.37.2 with
//! an embedded etcd; RBAC authorization): one server is both the management cluster (Cluster
//! API's objects, one namespace per fixture, the `<cluster>-kubeconfig` Secret) and the
//! workload cluster the Secret points back at (the fixture's Nodes).
//!
//! * Live equals files: every whole-cluster fixture of tests/fixtures/clusters is loaded, and
//!   `preflight`, run as a user bound to nothing but deploy/preflight's roles, prints the same
//!   verdicts as `validate -f` and `nodes --objects --nodes` on the `kubectl get -o yaml` dump
//!   of the same objects, with the same exit status.
//! * A user without `list` on MachinePools gets exit 2 and an error naming verb and resource.
//! * The README's example output (aws-kubeadm, `--to v1.36.0`).
//!
//! Without Go the tests are skipped (a failure under `CAPI_REQUIRE_GO=1`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_capi-machinepool"))
}

fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// Sends `body` with `method` to `path`; panics on a refusal.
async fn send(client: &kube::Client, method: &str, path: &str, body: &Value) -> Value {
    let request = http::Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", "application/json")
        .body(if body.is_null() {
            Vec::new()
        } else {
            serde_json::to_vec(body).unwrap()
        })
        .unwrap();
    client
        .request::<Value>(request)
        .await
        .unwrap_or_else(|e| panic!("{method} {path}: {e}\n{body:#}"))
}

/// `plural` as kubebuilder writes it.
fn plural(kind: &str) -> String {
    let lower = kind.to_lowercase();
    if lower.ends_with('s') {
        format!("{lower}es")
    } else {
        format!("{lower}s")
    }
}

/// The documents of a fixture (a template's `${VARIABLES}` filled in as clusterctl would).
fn docs(path: &Path) -> Vec<Value> {
    let text = capi_e2e::substitute(&std::fs::read_to_string(path).unwrap());
    serde_saphyr::from_multiple::<Value>(&text)
        .unwrap()
        .into_iter()
        .filter(|d| d.is_object())
        .collect()
}

/// Every fixture with a Cluster: (stem, objects, Nodes).
fn fixtures() -> Vec<(String, Vec<Value>, Vec<Value>)> {
    let dir = capi_test_support::workspace_root().join("tests/fixtures/clusters");
    let mut out = Vec::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    for path in paths {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let objects = docs(&path);
        if !objects.iter().any(|o| o["kind"] == "Cluster") {
            continue;
        }
        let nodes_path = dir.join(format!("{stem}-nodes.yaml"));
        let nodes = if nodes_path.exists() {
            docs(&nodes_path)
                .into_iter()
                .flat_map(|d| d["items"].as_array().cloned().unwrap_or_else(|| vec![d]))
                .collect()
        } else {
            Vec::new()
        };
        out.push((stem, objects, nodes));
    }
    out
}

/// Permissive CRDs for every Cluster API kind of the fixtures but MachinePool (the repo's own
/// CRD, converted by the example webhook): each version the fixtures use, v1beta2 stored.
fn crds(fixtures: &[(String, Vec<Value>, Vec<Value>)]) -> Vec<Value> {
    let mut kinds: std::collections::BTreeMap<
        (String, String),
        std::collections::BTreeSet<String>,
    > = Default::default();
    for (_, objects, _) in fixtures {
        for o in objects {
            let (group, version) = o["apiVersion"].as_str().unwrap().rsplit_once('/').unwrap();
            let kind = o["kind"].as_str().unwrap();
            if kind == "MachinePool" && group == "cluster.x-k8s.io" {
                continue;
            }
            kinds
                .entry((group.to_owned(), kind.to_owned()))
                .or_default()
                .insert(version.to_owned());
        }
    }
    for kind in ["ClusterClass", "MachineDeployment", "Machine", "Cluster"] {
        kinds
            .entry(("cluster.x-k8s.io".to_owned(), kind.to_owned()))
            .or_default()
            .insert("v1beta2".to_owned());
    }
    kinds
        .into_iter()
        .map(|((group, kind), mut versions)| {
            versions.insert("v1beta2".to_owned());
            let versions: Vec<Value> = versions
                .iter()
                .map(|v| {
                    json!({"name": v, "served": true, "storage": v == "v1beta2",
                           "schema": {"openAPIV3Schema": {"type": "object",
                               "x-kubernetes-preserve-unknown-fields": true}}})
                })
                .collect();
            let plural = plural(&kind);
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                   "metadata": {"name": format!("{plural}.{group}")},
                   "spec": {"group": group, "scope": "Namespaced",
                            "names": {"kind": kind, "plural": plural, "singular": kind.to_lowercase(),
                                      "listKind": format!("{kind}List")},
                            "versions": versions}})
        })
        .collect()
}

fn collection(api_version: &str, kind: &str, namespace: Option<&str>) -> String {
    let prefix = if api_version.contains('/') {
        format!("/apis/{api_version}")
    } else {
        format!("/api/{api_version}")
    };
    let plural = plural(kind);
    match namespace {
        Some(ns) => format!("{prefix}/namespaces/{ns}/{plural}"),
        None => format!("{prefix}/{plural}"),
    }
}

/// The management server, set up once: CRDs, the MachinePool CRD with its webhook, the
/// roles of deploy/preflight bound to the preflight user.
struct Setup {
    server: &'static capi_e2e::KubeApiServer,
    dir: tempfile::TempDir,
    rt: tokio::runtime::Runtime,
    client: kube::Client,
}

fn setup() -> Option<Setup> {
    let server = capi_e2e::kube_api_server()?;
    let rt = runtime();
    let client = rt.block_on(server.server.client());
    let fixtures = fixtures();
    rt.block_on(async {
        capi_e2e::install_machine_pool_crd(&client).await;
        for crd in crds(&fixtures) {
            capi_e2e::create_crd(&client, &crd).await.unwrap();
        }
        // The shipped ClusterRoles, bound to the preflight user.
        let text = std::fs::read_to_string(
            capi_test_support::workspace_root().join("deploy/preflight/clusterrole.yaml"),
        )
        .unwrap();
        for role in serde_saphyr::from_multiple::<Value>(&text).unwrap() {
            let name = role["metadata"]["name"].as_str().unwrap().to_owned();
            send(&client, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", &role).await;
            bind(&client, &name, capi_e2e::PREFLIGHT_USER).await;
        }
        // The limited user: the same, without list on MachinePools.
        let limited = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "capi-limited"},
            "rules": [{"apiGroups": ["cluster.x-k8s.io"], "resources": ["clusters", "clusterclasses"], "verbs": ["get"]},
                      {"apiGroups": ["controlplane.cluster.x-k8s.io", "infrastructure.cluster.x-k8s.io"], "resources": ["*"], "verbs": ["get"]}]});
        send(&client, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", &limited).await;
        bind(&client, "capi-limited", capi_e2e::LIMITED_USER).await;
    });
    let dir = tempfile::tempdir().unwrap();
    for user in [capi_e2e::PREFLIGHT_USER, capi_e2e::LIMITED_USER] {
        std::fs::write(dir.path().join(user), server.kubeconfig_as(user)).unwrap();
    }
    std::fs::write(dir.path().join("admin"), server.server.kubeconfig()).unwrap();
    Some(Setup {
        server,
        dir,
        rt,
        client,
    })
}

async fn bind(client: &kube::Client, role: &str, user: &str) {
    let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
        "metadata": {"name": format!("{role}-{user}")},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}]});
    send(
        client,
        "POST",
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        &binding,
    )
    .await;
}

/// Loads one fixture into namespace `ns` (its Nodes replace the server's), with the Secret
/// `<cluster>-kubeconfig` and its Role; returns the Cluster's name.
fn load(s: &Setup, ns: &str, objects: &[Value], nodes: &[Value]) -> String {
    let admin = s.server.server.kubeconfig().to_owned();
    s.rt.block_on(async {
        let c = &s.client;
        if ns != "default" {
            send(c, "POST", "/api/v1/namespaces", &json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})).await;
        }
        // The workload cluster's Nodes: this fixture's only.
        let listed = send(c, "GET", "/api/v1/nodes", &Value::Null).await;
        for n in listed["items"].as_array().into_iter().flatten() {
            let name = n["metadata"]["name"].as_str().unwrap();
            send(c, "DELETE", &format!("/api/v1/nodes/{name}"), &Value::Null).await;
        }
        for n in nodes {
            let mut n = n.clone();
            n["apiVersion"] = json!("v1");
            n["kind"] = json!("Node");
            strip(&mut n);
            send(c, "POST", "/api/v1/nodes", &n).await;
        }
        let mut cluster_name = String::new();
        for o in objects {
            let mut o = o.clone();
            strip(&mut o);
            o["metadata"]["namespace"] = json!(ns);
            let kind = o["kind"].as_str().unwrap().to_owned();
            let api_version = o["apiVersion"].as_str().unwrap().to_owned();
            if kind == "Cluster" {
                cluster_name = o["metadata"]["name"].as_str().unwrap().to_owned();
            }
            // Upstream's webhooks label the workers and Machines with their cluster.
            if matches!(kind.as_str(), "MachinePool" | "MachineDeployment" | "Machine")
                && let Some(cluster) = o["spec"]["clusterName"].as_str().map(str::to_owned)
                && o["metadata"]["labels"]["cluster.x-k8s.io/cluster-name"].is_null()
            {
                o["metadata"]["labels"]["cluster.x-k8s.io/cluster-name"] = json!(cluster);
            }
            let deleting = o["metadata"]["deletionTimestamp"].take();
            if !deleting.is_null() {
                o["metadata"]["finalizers"] = json!(["capi-e2e/keep"]);
            }
            // The MachinePool CRD has a status subresource: status is written through it.
            let status = if kind == "MachinePool" {
                o.as_object_mut().unwrap().remove("status")
            } else {
                None
            };
            let path = collection(&api_version, &kind, Some(ns));
            let created = send(c, "POST", &path, &o).await;
            let name = o["metadata"]["name"].as_str().unwrap().to_owned();
            if let Some(status) = status {
                let mut with = created.clone();
                with["status"] = status;
                send(c, "PUT", &format!("{path}/{name}/status"), &with).await;
            }
            if !deleting.is_null() {
                send(c, "DELETE", &format!("{path}/{name}"), &Value::Null).await;
            }
        }
        // The workload cluster's kubeconfig, where Cluster API keeps it.
        let value = k8s_openapi::ByteString(admin.into_bytes());
        let secret = json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": format!("{cluster_name}-kubeconfig"), "namespace": ns},
            "type": "cluster.x-k8s.io/secret", "data": {"value": value}});
        send(c, "POST", &format!("/api/v1/namespaces/{ns}/secrets"), &secret).await;
        let role_text = std::fs::read_to_string(
            capi_test_support::workspace_root().join("deploy/preflight/secret-role.yaml"),
        )
        .unwrap()
        .replace("NAMESPACE", ns)
        .replace("NAME", &cluster_name);
        let role: Value = serde_saphyr::from_str(&role_text).unwrap();
        send(c, "POST", &format!("/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles"), &role).await;
        let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": "preflight", "namespace": ns},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": role["metadata"]["name"]},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": capi_e2e::PREFLIGHT_USER}]});
        send(c, "POST", &format!("/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings"), &binding).await;
        cluster_name
    })
}

/// What a create cannot set.
fn strip(o: &mut Value) {
    let meta = o["metadata"].as_object_mut().unwrap();
    for k in [
        "resourceVersion",
        "uid",
        "creationTimestamp",
        "managedFields",
        "generation",
    ] {
        meta.remove(k);
    }
}

fn kubectl(s: &Setup, args: &[&str]) -> String {
    let out = Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(s.dir.path().join("admin"))
        .args(args)
        .output()
        .expect("kubectl runs");
    assert!(
        out.status.success(),
        "kubectl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The dump an operator makes: `kubectl get -o yaml` of the kinds preflight reads, in its
/// order (Cluster, ClusterClass, control plane, MachinePools, MachineDeployments, Machines,
/// InfraMachinePools), and of the Nodes.
fn dump(s: &Setup, ns: &str, objects: &[Value]) -> (String, String) {
    let resource = |o: &Value| {
        let (group, _) = o["apiVersion"].as_str().unwrap().rsplit_once('/').unwrap();
        format!("{}.{group}", plural(o["kind"].as_str().unwrap()))
    };
    let rank = |o: &Value| -> u8 {
        let group = o["apiVersion"]
            .as_str()
            .unwrap()
            .rsplit_once('/')
            .unwrap()
            .0;
        match (group, o["kind"].as_str().unwrap()) {
            ("cluster.x-k8s.io", "Cluster") => 0,
            ("cluster.x-k8s.io", "ClusterClass") => 1,
            ("controlplane.cluster.x-k8s.io", _) => 2,
            ("cluster.x-k8s.io", "MachinePool") => 3,
            ("cluster.x-k8s.io", "MachineDeployment") => 4,
            ("cluster.x-k8s.io", "Machine") => 5,
            ("infrastructure.cluster.x-k8s.io", _) => 6,
            _ => 9,
        }
    };
    let mut kinds: Vec<(u8, String)> = objects
        .iter()
        .filter(|o| rank(o) < 9)
        .map(|o| (rank(o), resource(o)))
        .collect();
    kinds.sort();
    kinds.dedup();
    let mut management = String::new();
    for (_, r) in kinds {
        management.push_str(&kubectl(s, &["get", &r, "-n", ns, "-o", "yaml"]));
        management.push_str("---\n");
    }
    (management, kubectl(s, &["get", "nodes", "-o", "yaml"]))
}

/// Preflight's output with the file commands' sources: `management`/`workload` -> `SRC`.
fn normalize_live(text: &str) -> String {
    text.replace("management MachinePool ", "SRC MachinePool ")
        .replace("(management)", "(SRC)")
}

/// A file command's output with its sources (`PATH#N[I]`) -> `SRC`.
fn normalize_file(text: &str, path: &Path) -> String {
    let p = path.display().to_string();
    let mut out = String::new();
    for line in text.lines() {
        let mut line = line.to_owned();
        while let Some(i) = line.find(&p) {
            let end = line[i + p.len()..]
                .find([' ', ')'])
                .map_or(line.len(), |j| i + p.len() + j);
            line.replace_range(i..end, "SRC");
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The fixture of the README's example.
const README_FIXTURE: &str = "aws-kubeadm";

/// The README's command, as its block shows it.
const README_COMMAND: &str = "capi-machinepool preflight --cluster default/prod --to v1.37.0";

/// The README's preflight block: its output lines after the command.
fn readme_block() -> String {
    let readme =
        std::fs::read_to_string(capi_test_support::workspace_root().join("README.md")).unwrap();
    let start = readme
        .find(&format!("$ {README_COMMAND}\n"))
        .expect("the README shows the preflight example");
    let rest = &readme[start + README_COMMAND.len() + 3..];
    rest[..rest.find("```").unwrap()].to_owned()
}

/// The README's example, run as the operator would (the kubeconfig from $KUBECONFIG): its
/// output is the README's, the server's port shown as 6443.
fn readme_example(s: &Setup, kubeconfig: &Path) {
    let args: Vec<&str> = README_COMMAND.split(' ').skip(1).collect();
    let (code, out, err) = run(cli().args(&args).env("KUBECONFIG", kubeconfig));
    assert_eq!(code, 1, "{out}{err}");
    let port = s.server.server.endpoint.server.rsplit(':').next().unwrap();
    let shown = out.replace(&format!("127.0.0.1:{port}/"), "127.0.0.1:6443/");
    assert_eq!(shown, readme_block(), "the README's preflight output");
    // The same verdicts as one JSON document.
    let (code, out, err) = run(cli()
        .args(&args)
        .args(["--format", "json"])
        .env("KUBECONFIG", kubeconfig));
    assert_eq!(code, 1, "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["cluster"], "default/prod");
    assert_eq!(v["passes"], false);
    assert_eq!(v["management"]["read"]["MachinePool"], 2);
    assert_eq!(v["workload"]["nodes"], 9);
    assert_eq!(v["machinePools"].as_array().unwrap().len(), 2);
    assert_eq!(v["nodeMatching"]["passes"], true);
    assert_eq!(
        v["upgrade"]["blocking"][0]["pool"],
        "MachinePool default/prod-mp-b"
    );
    assert_eq!(v["upgrade"]["steps"][2]["step"], "pools");
    assert_eq!(v["upgrade"]["steps"][2]["to"], "1.36");
    // As GitHub Actions annotations.
    let (code, out, err) = run(cli()
        .args(&args)
        .args(["--format", "github"])
        .env("KUBECONFIG", kubeconfig));
    assert_eq!(code, 1, "{out}{err}");
    let lines: Vec<&str> = out.lines().collect();
    let blocks = "::error title=preflight --to v1.37.0::MachinePool default/prod-mp-b blocks it: kubelet-too-old";
    assert!(lines.iter().any(|l| l.starts_with(blocks)), "{out}");
    assert!(
        lines.contains(&"::notice title=preflight --to v1.37.0::3. upgrade MachinePool default/prod-mp-b to 1.36 (before the control plane moves to 1.37)"),
        "{out}"
    );
    assert_eq!(
        lines.last(),
        Some(
            &"preflight: 2 MachinePool(s), 0 invalid; Node matching passes; v1.37.0 cannot be set now"
        )
    );
}

#[test]
fn live_equals_files_and_permissions() {
    let Some(s) = setup() else {
        return;
    };
    let kubeconfig = s.dir.path().join(capi_e2e::PREFLIGHT_USER);
    for (stem, objects, nodes) in fixtures() {
        // The README's example cluster is in `default`, as an operator's would be.
        let ns = if stem == README_FIXTURE {
            "default".to_owned()
        } else {
            format!("fx-{stem}")
        };
        let cluster = load(&s, &ns, &objects, &nodes);
        let (code, live, err) = run(cli()
            .args([
                "preflight",
                "--cluster",
                &format!("{ns}/{cluster}"),
                "--kubeconfig",
            ])
            .arg(&kubeconfig));
        assert!(code == 0 || code == 1, "{stem}: exit {code}\n{live}{err}");
        eprintln!("== {stem} (exit {code})\n{live}");

        let (management, node_dump) = dump(&s, &ns, &objects);
        let mgmt = s.dir.path().join(format!("{stem}-management.yaml"));
        let nodes_file = s.dir.path().join(format!("{stem}-nodes.yaml"));
        let stream = s.dir.path().join(format!("{stem}-stream.yaml"));
        std::fs::write(&mgmt, &management).unwrap();
        std::fs::write(&nodes_file, &node_dump).unwrap();
        std::fs::write(&stream, format!("{management}{node_dump}")).unwrap();

        let (v_code, validate, v_err) = run(cli().arg("validate").arg("-f").arg(&stream));
        assert!(
            v_code == 0 || v_code == 1,
            "{stem}: validate {v_code}\n{validate}{v_err}"
        );
        let (n_code, matching, n_err) = run(cli()
            .arg("nodes")
            .arg("--objects")
            .arg(&mgmt)
            .arg("--nodes")
            .arg(&nodes_file));
        let live = normalize_live(&live);
        // validate's pool blocks (its last line is the file summary).
        let validate = normalize_file(&validate, &stream);
        let pools: Vec<&str> = validate.lines().collect();
        let pools = pools[..pools.len() - 1].join("\n");
        assert!(
            live.contains(&pools),
            "{stem}: preflight's rollout verdicts differ from validate -f's\npreflight:\n{live}\nvalidate:\n{pools}"
        );
        let matched = if n_code == 2 {
            assert!(
                n_err.contains("no object with spec.providerIDList"),
                "{stem}: {n_err}"
            );
            assert!(
                live.contains("no MachinePool lists provider IDs yet"),
                "{stem}: {live}"
            );
            0
        } else {
            let matching = normalize_file(&matching, &mgmt);
            assert!(
                live.contains(&matching),
                "{stem}: preflight's Node matching differs from nodes'\npreflight:\n{live}\nnodes:\n{matching}"
            );
            n_code
        };
        let expected = i32::from(v_code == 1 || matched == 1);
        assert_eq!(code, expected, "{stem}: exit statuses\n{live}");
        if stem == README_FIXTURE {
            readme_example(&s, &kubeconfig);
        }
    }

    // Without list on MachinePools: exit 2, the verb and resource named.
    let limited = s.dir.path().join(capi_e2e::LIMITED_USER);
    let (code, out, err) = run(cli()
        .args(["preflight", "--cluster", "default/prod", "--kubeconfig"])
        .arg(&limited));
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("forbidden: cannot list machinepools.cluster.x-k8s.io in namespace default"),
        "{err}"
    );
    assert!(out.is_empty(), "{out}");
}
