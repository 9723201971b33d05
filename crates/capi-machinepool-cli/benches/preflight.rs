//! `capi-machinepool preflight` at scale: a management cluster of 100 Clusters × 10
//! MachinePools (1,000 MachinePools, their DockerMachinePools and control planes in one
//! namespace) and a workload cluster of 5,000 Nodes, served by a small in-process HTTP server
//! that answers as the API server does: discovery, `get`, and lists filtered by label selector
//! and paginated (`limit` / `continue`). Each iteration runs the binary once, for one Cluster,
//! end to end (kubeconfig, discovery, lists, the Secret, 10 pages of Nodes, the verdicts).
//!
//! Besides criterion's time, the bench prints the process's peak resident memory
//! (VmHWM, sampled while it runs) and the requests served. Figures: docs/performance.md, "preflight".
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};

const CLUSTERS: usize = 100;
const POOLS: usize = 10;
const NODES: usize = 5_000;
const NS: &str = "fleet";
/// The Cluster asked about.
const TARGET: usize = 42;

/// The served objects: collection path -> objects.
struct Fleet {
    collections: BTreeMap<String, Vec<Value>>,
    requests: AtomicUsize,
}

fn cluster_objects(fleet: &mut BTreeMap<String, Vec<Value>>, c: usize, kubeconfig: &str) {
    let name = format!("c{c:03}");
    let push = |fleet: &mut BTreeMap<String, Vec<Value>>, path: &str, v: Value| {
        fleet.entry(path.to_owned()).or_default().push(v);
    };
    push(
        fleet,
        &format!("/apis/cluster.x-k8s.io/v1beta2/namespaces/{NS}/clusters"),
        json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
               "metadata": {"name": name, "namespace": NS},
               "spec": {"controlPlaneRef": {"apiGroup": "controlplane.cluster.x-k8s.io",
                        "kind": "KubeadmControlPlane", "name": format!("{name}-cp")}}}),
    );
    push(
        fleet,
        &format!(
            "/apis/controlplane.cluster.x-k8s.io/v1beta2/namespaces/{NS}/kubeadmcontrolplanes"
        ),
        json!({"apiVersion": "controlplane.cluster.x-k8s.io/v1beta2", "kind": "KubeadmControlPlane",
               "metadata": {"name": format!("{name}-cp"), "namespace": NS,
                            "labels": {"cluster.x-k8s.io/cluster-name": name}},
               "spec": {"version": "v1.34.2", "replicas": 3},
               "status": {"version": "v1.34.2", "versions": [{"version": "v1.34.2", "replicas": 3}]}}),
    );
    for p in 0..POOLS {
        let pool = format!("{name}-mp-{p}");
        let per_pool = NODES / POOLS;
        let ids: Vec<String> = (0..per_pool)
            .map(|i| format!("docker:////{name}-{p}-{i:04}"))
            .collect();
        push(
            fleet,
            &format!("/apis/cluster.x-k8s.io/v1beta2/namespaces/{NS}/machinepools"),
            json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
                   "metadata": {"name": pool, "namespace": NS,
                                "labels": {"cluster.x-k8s.io/cluster-name": name}},
                   "spec": {"clusterName": name, "replicas": per_pool, "providerIDList": ids,
                            "template": {"spec": {"clusterName": name, "version": "v1.33.4",
                                "bootstrap": {"dataSecretName": format!("{pool}-bootstrap")},
                                "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io",
                                    "kind": "DockerMachinePool", "name": pool}}}},
                   "status": {"replicas": per_pool, "phase": "Running"}}),
        );
        push(
            fleet,
            &format!(
                "/apis/infrastructure.cluster.x-k8s.io/v1beta2/namespaces/{NS}/dockermachinepools"
            ),
            json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "DockerMachinePool",
                   "metadata": {"name": pool, "namespace": NS,
                                "labels": {"cluster.x-k8s.io/cluster-name": name}},
                   "spec": {"providerIDList": ids}}),
        );
    }
    let value = k8s_openapi::ByteString(kubeconfig.as_bytes().to_vec());
    push(
        fleet,
        &format!("/api/v1/namespaces/{NS}/secrets"),
        json!({"apiVersion": "v1", "kind": "Secret",
               "metadata": {"name": format!("{name}-kubeconfig"), "namespace": NS},
               "data": {"value": value}}),
    );
}

fn nodes(fleet: &mut BTreeMap<String, Vec<Value>>) {
    let name = format!("c{TARGET:03}");
    let per_pool = NODES / POOLS;
    let list = fleet.entry("/api/v1/nodes".to_owned()).or_default();
    for p in 0..POOLS {
        for i in 0..per_pool {
            list.push(json!({"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": format!("{name}-{p}-{i:04}"),
                             "labels": {"kubernetes.io/os": "linux"}},
                "spec": {"providerID": format!("docker:////{name}-{p}-{i:04}")},
                "status": {"conditions": [{"type": "Ready", "status": "True"}],
                           "nodeInfo": {"kubeletVersion": "v1.33.4", "architecture": "amd64",
                                        "bootID": "", "containerRuntimeVersion": "", "kernelVersion": "",
                                        "kubeProxyVersion": "", "machineID": "", "operatingSystem": "linux",
                                        "osImage": "", "systemUUID": ""}}}));
        }
    }
}

fn discovery(path: &str) -> Option<Value> {
    let groups = [
        (
            "cluster.x-k8s.io",
            vec![
                ("clusters", "Cluster"),
                ("clusterclasses", "ClusterClass"),
                ("machinepools", "MachinePool"),
                ("machinedeployments", "MachineDeployment"),
                ("machines", "Machine"),
            ],
        ),
        (
            "controlplane.cluster.x-k8s.io",
            vec![("kubeadmcontrolplanes", "KubeadmControlPlane")],
        ),
        (
            "infrastructure.cluster.x-k8s.io",
            vec![("dockermachinepools", "DockerMachinePool")],
        ),
    ];
    if path == "/apis" {
        let list: Vec<Value> = groups
            .iter()
            .map(|(g, _)| {
                let gv = json!({"groupVersion": format!("{g}/v1beta2"), "version": "v1beta2"});
                json!({"name": g, "versions": [gv], "preferredVersion": gv})
            })
            .collect();
        return Some(json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": list}));
    }
    let (g, resources) = groups
        .iter()
        .find(|(g, _)| path == format!("/apis/{g}/v1beta2"))?;
    let resources: Vec<Value> = resources
        .iter()
        .map(|(plural, kind)| {
            json!({"name": plural, "singularName": kind.to_lowercase(), "namespaced": true,
                   "kind": kind, "verbs": ["get", "list"]})
        })
        .collect();
    Some(json!({"kind": "APIResourceList", "apiVersion": "v1",
                "groupVersion": format!("{g}/v1beta2"), "resources": resources}))
}

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
            out.push(u8::from_str_radix(hex, 16).unwrap());
            i += 3;
        } else {
            out.push(if bytes[i] == b'+' { b' ' } else { bytes[i] });
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

fn answer(fleet: &Fleet, target: &str) -> (u16, Vec<u8>) {
    fleet.requests.fetch_add(1, Ordering::Relaxed);
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    if let Some(d) = discovery(path) {
        return (200, serde_json::to_vec(&d).unwrap());
    }
    let params: BTreeMap<String, String> = query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_owned(), decode(v)))
        .collect();
    if let Some(items) = fleet.collections.get(path) {
        let selected: Vec<&Value> = items
            .iter()
            .filter(|o| {
                params.get("labelSelector").is_none_or(|sel| {
                    sel.split(',').all(|term| {
                        term.split_once('=')
                            .is_some_and(|(k, v)| o["metadata"]["labels"][k] == v)
                    })
                })
            })
            .collect();
        let from: usize = params.get("continue").map_or(0, |c| c.parse().unwrap());
        let limit: usize = params
            .get("limit")
            .map_or(usize::MAX, |l| l.parse().unwrap());
        let end = from.saturating_add(limit).min(selected.len());
        let next = if end < selected.len() {
            end.to_string()
        } else {
            String::new()
        };
        let kind = selected.first().map_or("", |o| o["kind"].as_str().unwrap());
        let list = json!({"apiVersion": "v1", "kind": format!("{kind}List"),
                          "metadata": {"resourceVersion": "1", "continue": next},
                          "items": &selected[from.min(end)..end]});
        return (200, serde_json::to_vec(&list).unwrap());
    }
    if let Some((collection, name)) = path.rsplit_once('/')
        && let Some(o) = fleet
            .collections
            .get(collection)
            .and_then(|items| items.iter().find(|o| o["metadata"]["name"] == name))
    {
        return (200, serde_json::to_vec(o).unwrap());
    }
    let status = json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                        "reason": "NotFound", "code": 404, "message": format!("{path} not found")});
    (404, serde_json::to_vec(&status).unwrap())
}

fn serve(fleet: &Arc<Fleet>, stream: TcpStream) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    let _ = writer.set_nodelay(true);
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            if header == "\r\n" {
                break;
            }
        }
        let target = request_line
            .split_whitespace()
            .nth(1)
            .unwrap_or("/")
            .to_owned();
        let (code, body) = answer(fleet, &target);
        let head = format!(
            "HTTP/1.1 {code} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            if code == 200 { "OK" } else { "Not Found" },
            body.len()
        );
        // One write per response (two would meet the client's delayed ACK: 40 ms each).
        let mut response = head.into_bytes();
        response.extend_from_slice(&body);
        if writer.write_all(&response).is_err() {
            return;
        }
    }
}

/// Starts the server; its URL and the counter of requests served.
fn start() -> (String, Arc<Fleet>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let kubeconfig = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: {url}\nusers:\n- name: u\n  user:\n    token: bench\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\n"
    );
    let mut collections = BTreeMap::new();
    for c in 0..CLUSTERS {
        cluster_objects(&mut collections, c, &kubeconfig);
    }
    nodes(&mut collections);
    // Served kinds the fleet has none of: empty lists.
    for plural in ["machinedeployments", "machines", "clusterclasses"] {
        collections
            .entry(format!(
                "/apis/cluster.x-k8s.io/v1beta2/namespaces/{NS}/{plural}"
            ))
            .or_default();
    }
    let fleet = Arc::new(Fleet {
        collections,
        requests: AtomicUsize::new(0),
    });
    let served = Arc::clone(&fleet);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let fleet = Arc::clone(&served);
            std::thread::spawn(move || serve(&fleet, stream));
        }
    });
    let dir = std::env::temp_dir().join(format!("capi-preflight-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("kubeconfig"), kubeconfig).unwrap();
    (dir.join("kubeconfig").display().to_string(), fleet)
}

/// Peak resident memory of process `pid` so far (VmHWM), in KiB.
fn vm_hwm(pid: u32) -> Option<i64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Runs preflight once; its exit status and peak resident memory (KiB, VmHWM sampled every
/// millisecond until the process exits).
fn preflight(kubeconfig: &str) -> (i32, i64) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_capi-machinepool"))
        .args([
            "preflight",
            "--cluster",
            &format!("{NS}/c{TARGET:03}"),
            "--kubeconfig",
            kubeconfig,
        ])
        .env_remove("KUBECONFIG")
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut peak = 0;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return (status.code().unwrap_or(-1), peak);
        }
        peak = peak.max(vm_hwm(child.id()).unwrap_or(0));
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

fn bench(c: &mut Criterion) {
    let (kubeconfig, fleet) = start();
    let before = fleet.requests.load(Ordering::Relaxed);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_capi-machinepool"))
        .args([
            "preflight",
            "--cluster",
            &format!("{NS}/c{TARGET:03}"),
            "--kubeconfig",
            &kubeconfig,
        ])
        .env_remove("KUBECONFIG")
        .output()
        .unwrap();
    let requests = fleet.requests.load(Ordering::Relaxed) - before;
    assert!(
        out.status.success(),
        "preflight on the fleet passes:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let (_, peak_kib) = preflight(&kubeconfig);
    eprintln!(
        "preflight: {CLUSTERS} clusters x {POOLS} pools, {NODES} Nodes: peak RSS {:.1} MiB, {requests} requests",
        peak_kib as f64 / 1024.0
    );
    let mut group = c.benchmark_group("preflight");
    group.sample_size(10);
    group.bench_function("100x10_pools_5000_nodes", |b| {
        b.iter(|| assert_eq!(preflight(&kubeconfig).0, 0));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
