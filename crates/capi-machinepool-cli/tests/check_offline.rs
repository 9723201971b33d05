//! `check DIR` touches no network and runs kustomize in bounded memory (issue 50): every field
//! of a kustomization that kustomize loads files from, given an `http://` URL of a request
//! logger on loopback, is refused before kustomize runs (exit 2, the field named), and the
//! logger sees zero requests; kustomize itself runs without a network (a field the preflight
//! missed still fetches nothing) and with its data segment limited, so a JSON-patch bomb is
//! stopped with the limit named.
//!
//! The field list is kustomize v5's `types.Kustomization` (api/types/kustomization.go) and
//! its loader (api/internal/loader: any path with an `http(s)://` scheme is fetched).
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::run;

/// A loopback HTTP server that counts requests and answers each with a small YAML document.
fn request_logger() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&hits);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            counter.fetch_add(1, Ordering::SeqCst);
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let body = "a: b\n";
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (url, hits)
}

/// A provider tree: one real CRD (upstream's DevMachinePool) and `kustomization`.
fn tree(name: &str, kustomization: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("capi-offline-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        capi_test_support::fixture(
            "provider-trees/capi-dev/config/crd/bases/infrastructure.cluster.x-k8s.io_devmachinepools.yaml",
        ),
        dir.join("crd.yaml"),
    )
    .unwrap();
    std::fs::write(dir.join("kustomization.yaml"), kustomization).unwrap();
    dir
}

#[test]
fn every_field_kustomize_loads_is_refused_when_remote_and_nothing_is_fetched() {
    // The preflight guards the real kustomize (the emulator fetches nothing by itself).
    if !capi_test_support::kubectl::available() {
        return;
    }
    let (url, hits) = request_logger();
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "psm",
            format!("patchesStrategicMerge:\n- {url}/psm.yaml\n"),
            "patchesStrategicMerge[0]",
        ),
        (
            "patches",
            format!("patches:\n- path: {url}/p.yaml\n"),
            "patches[0].path",
        ),
        (
            "json6902",
            format!(
                "patchesJson6902:\n- path: {url}/j.yaml\n  target: {{kind: CustomResourceDefinition, name: x}}\n"
            ),
            "patchesJson6902[0].path",
        ),
        (
            "replacements",
            format!("replacements:\n- path: {url}/r.yaml\n"),
            "replacements[0].path",
        ),
        (
            "cm-files",
            format!("configMapGenerator:\n- name: c\n  files:\n  - {url}/f\n"),
            "configMapGenerator[0].files[0]",
        ),
        (
            "cm-keyed",
            format!("configMapGenerator:\n- name: c\n  files:\n  - key={url}/f\n"),
            "configMapGenerator[0].files[0]",
        ),
        (
            "cm-envs",
            format!("configMapGenerator:\n- name: c\n  envs:\n  - {url}/e\n"),
            "configMapGenerator[0].envs[0]",
        ),
        (
            "cm-env",
            format!("configMapGenerator:\n- name: c\n  env: {url}/e\n"),
            "configMapGenerator[0].env",
        ),
        (
            "secret-files",
            format!("secretGenerator:\n- name: s\n  files:\n  - {url}/f\n"),
            "secretGenerator[0].files[0]",
        ),
        (
            "secret-envs",
            format!("secretGenerator:\n- name: s\n  envs:\n  - {url}/e\n"),
            "secretGenerator[0].envs[0]",
        ),
        ("crds", format!("crds:\n- {url}/crd.json\n"), "crds[0]"),
        (
            "configurations",
            format!("configurations:\n- {url}/c.yaml\n"),
            "configurations[0]",
        ),
        (
            "openapi",
            format!("openapi:\n  path: {url}/o.json\n"),
            "openapi.path",
        ),
        (
            "resources",
            format!("resources:\n- crd.yaml\n- {url}/x.yaml\n"),
            "resources[1]",
        ),
    ];
    for (name, fields, field) in &cases {
        let body = if fields.starts_with("resources:") {
            fields.clone()
        } else {
            format!("resources:\n- crd.yaml\n{fields}")
        };
        let dir = tree(name, &body);
        let out = run(&["check", dir.to_str().unwrap()], None);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(
            stderr.contains(field) && stderr.contains("would be fetched"),
            "{name}: {stderr}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "requests reached the logger"
    );
}

/// Whether `program args` succeeds here: the sandbox wrappers `check` uses (src/render.rs).
/// CI machines have them (a missing one fails there); elsewhere the test says so and stops.
fn wrapper_works(program: &str, args: &[&str], what: &str) -> bool {
    let ok = std::process::Command::new(program)
        .args(args)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(std::env::var_os("CI").is_none(), "CI must have {what}");
        eprintln!("skipped: no {what} here");
    }
    ok
}

/// kustomize runs without a network, so a remote path the preflight did not know would fetch
/// nothing: `kubectl kustomize` in the sandbox `check` uses (src/render.rs) cannot reach the
/// logger, which the same command outside the sandbox does reach.
#[test]
fn kustomize_runs_without_a_network() {
    if !capi_test_support::kubectl::available() || !capi_test_support::kubectl::sandbox_available()
    {
        return;
    }
    let (url, hits) = request_logger();
    let dir = tree("sandbox", &format!("resources:\n- {url}/x.yaml\n"));
    let out = capi_test_support::kubectl::kustomize_offline(&dir);
    assert!(!out.status.success());
    assert_eq!(hits.load(Ordering::SeqCst), 0);
    // And outside the sandbox it would have fetched: the logger is reachable.
    let _ = std::process::Command::new("kubectl")
        .args(["kustomize"])
        .arg(&dir)
        .env("KUBECONFIG", "/dev/null")
        .output()
        .unwrap();
    assert!(
        hits.load(Ordering::SeqCst) > 0,
        "the logger is reachable outside the sandbox"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Twelve-plus JSON-patch `copy` operations double a CRD each: kustomize would take gigabytes
/// (2.5 GiB for twelve on an 11 KB CRD). `check DIR` stops it at its data limit and says so.
#[test]
fn a_patch_bomb_is_stopped_at_the_memory_limit() {
    if !capi_test_support::kubectl::available() {
        return;
    }
    if !wrapper_works(
        "prlimit",
        &["--data=1073741824", "--", "true"],
        "prlimit (util-linux)",
    ) {
        return;
    }
    let crd = serde_json::json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "foos.example.com"},
        "spec": {"group": "example.com", "names": {"kind": "Foo", "plural": "foos"}, "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "description": "x".repeat(10_000)}}}]}});
    let ops: Vec<_> = (0..14)
        .map(|i| serde_json::json!({"op": "copy", "from": "/spec", "path": format!("/spec/c{i}")}))
        .collect();
    let kustomization = serde_json::json!({"resources": ["bomb.json"],
        "patches": [{"target": {"kind": "CustomResourceDefinition"}, "patch": serde_json::to_string(&ops).unwrap()}]});
    let dir = tree("bomb", &kustomization.to_string());
    std::fs::write(dir.join("bomb.json"), crd.to_string()).unwrap();
    let started = std::time::Instant::now();
    let out = run(&["check", dir.to_str().unwrap()], None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("exceeded its memory limit (1024 MiB of data"),
        "{stderr}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(100));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A kubeconfig whose only user authenticates with `user` (YAML), for a server on loopback
/// where nothing listens.
fn kubeconfig_with_user(dir: &std::path::Path, user: &str) -> std::path::PathBuf {
    let path = dir.join("kubeconfig");
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: ci\nclusters:\n- name: ci\n  cluster:\n    server: https://127.0.0.1:1\ncontexts:\n- name: ci\n  context:\n    cluster: ci\n    user: ci\nusers:\n- name: ci\n  user:\n{user}\n"
        ),
    )
    .unwrap();
    path
}

/// A script that leaves `marker` behind when run (and prints nothing usable).
fn marker_script(dir: &std::path::Path, marker: &std::path::Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let script = dir.join("plugin.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\ntouch {}\nexit 1\n", marker.display()),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// Issue 65: a kubeconfig runs only what kubectl runs. The removed `gcp` auth provider's
/// `cmd-path` (client-go dropped the provider in Kubernetes 1.26; kubectl v1.32 runs nothing
/// on such a file) is refused and not run; an `exec` plugin runs only with
/// `--allow-exec-plugin`.
#[cfg(unix)]
#[test]
fn a_kubeconfig_runs_nothing_kubectl_would_not() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let script = marker_script(dir.path(), &marker);
    let crd = capi_test_support::workspace_root()
        .join("tests/fixtures/provider-trees/capi-dev/config/crd/bases/infrastructure.cluster.x-k8s.io_devmachinepools.yaml");
    let gcp = format!(
        "    auth-provider:\n      name: gcp\n      config:\n        cmd-path: {}\n",
        script.display()
    );
    let exec = format!(
        "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: {}\n      interactiveMode: Never\n",
        script.display()
    );
    let check = |kubeconfig: &std::path::Path, extra: &[&str]| {
        let mut args = vec![
            "check",
            "--server",
            "--kubeconfig",
            kubeconfig.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        args.push(crd.to_str().unwrap());
        let out = run(&args, None);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stderr) = check(&kubeconfig_with_user(dir.path(), &gcp), &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("`gcp` auth provider") && stderr.contains("removed"),
        "{stderr}"
    );
    assert!(!marker.exists(), "the gcp cmd-path ran");
    let (code, stderr) = check(&kubeconfig_with_user(dir.path(), &exec), &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--allow-exec-plugin"), "{stderr}");
    assert!(
        !marker.exists(),
        "the exec plugin ran without --allow-exec-plugin"
    );
    // Asked for: kubectl's behaviour (the plugin runs; it fails, so the server is not asked).
    let (code, stderr) = check(
        &kubeconfig_with_user(dir.path(), &exec),
        &["--allow-exec-plugin"],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        marker.exists(),
        "--allow-exec-plugin runs the plugin: {stderr}"
    );
}
