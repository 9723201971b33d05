//! `validate` checks the Kubernetes version skew of each MachinePool against the control
//! plane found in the same stream (or `--control-plane-version`), on the corpus MachinePool
//! and its Cluster and KubeadmControlPlane.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;
use std::process::{Command, Output};

use capi_test_support::fixture;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_capi-machinepool"))
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The corpus stream with the control plane at `cp` and the MachinePool at `pool`.
fn stream(name: &str, cp: &str, pool: &str) -> PathBuf {
    let original = std::fs::read_to_string(fixture("corpus/objects/machine-pool.yaml")).unwrap();
    // The KubeadmControlPlane's version comes first in the file, the MachinePool's second.
    let mut parts = original.splitn(3, "version: v1.37.0-rc.1");
    let (a, b, c) = (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap(),
    );
    let edited = format!("{a}version: {cp}{b}version: {pool}{c}");
    let dir = std::env::temp_dir().join(format!("capi-rollout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, edited).unwrap();
    path
}

#[test]
fn corpus_stream_is_within_the_skew_window() {
    let out = run(&[
        "validate",
        "-f",
        fixture("corpus/objects/machine-pool.yaml")
            .to_str()
            .unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(!text(&out).contains("version skew"), "{}", text(&out));
}

#[test]
fn kubelet_newer_than_the_control_plane_fails_naming_both_fields() {
    let path = stream("newer.yaml", "v1.34.0", "v1.35.0");
    let out = run(&["validate", "-f", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let t = text(&out);
    assert!(
        t.contains("MachinePool default/worker-mp-0 (cluster.x-k8s.io/v1beta2): invalid"),
        "{t}"
    );
    assert!(
        t.contains("error   version skew: kubelet-newer-than-apiserver: kubelet v1.35.0 (MachinePool default/worker-mp-0 spec.template.spec.version) vs kube-apiserver v1.34.0 (KubeadmControlPlane default/controlplane spec.version)"),
        "{t}"
    );
}

#[test]
fn three_minors_older_passes_with_a_warning_at_the_edge() {
    let path = stream("edge.yaml", "v1.34.0", "v1.31.0");
    let out = run(&["validate", "-f", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("warning version skew: kubelet-at-the-edge-of-the-window"),
        "{}",
        text(&out)
    );
    let path = stream("old.yaml", "v1.34.0", "v1.30.0");
    let out = run(&["validate", "-f", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("kubelet-too-old"), "{}", text(&out));
}

#[test]
fn control_plane_version_flag_for_streams_without_one() {
    let pool_only =
        std::env::temp_dir().join(format!("capi-rollout-pool-{}.yaml", std::process::id()));
    let docs = capi_test_support::yaml_docs("corpus/objects/machine-pool.yaml");
    let pool = docs.iter().find(|d| d["kind"] == "MachinePool").unwrap();
    std::fs::write(&pool_only, serde_json::to_string(pool).unwrap()).unwrap();
    let path = pool_only.to_str().unwrap();
    assert_eq!(run(&["validate", "-f", path]).status.code(), Some(0));
    let out = run(&["validate", "-f", path, "--control-plane-version", "v1.36.4"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("kube-apiserver v1.36.4 (--control-plane-version)"),
        "{}",
        text(&out)
    );
    // The clusterctl template's unsubstituted `${KUBERNETES_VERSION}` is not a version (the
    // replica count is substituted here, as clusterctl would).
    let template = std::fs::read_to_string(fixture("corpus/templates/mp.yaml"))
        .unwrap()
        .replace("${WORKER_MACHINE_COUNT}", "3");
    let template_path = pool_only.with_extension("template.yaml");
    std::fs::write(&template_path, template).unwrap();
    let out = run(&[
        "validate",
        "-f",
        template_path.to_str().unwrap(),
        "--control-plane-version",
        "v1.34.0",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("invalid-version"), "{}", text(&out));
}
