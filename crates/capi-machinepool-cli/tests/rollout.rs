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
        t.contains("error   version skew: kubelet-newer-than-apiserver: kubelet v1.35.0 (MachinePool default/worker-mp-0 spec.template.spec.version) vs kube-apiserver v1.34.0 (KubeadmControlPlane default/controlplane spec.version, desired: the control plane reports no running version)"),
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
    let unchecked = run(&["validate", "-f", path]);
    assert_eq!(unchecked.status.code(), Some(0));
    assert!(
        text(&unchecked).contains("warning version skew: not-checked"),
        "{}",
        text(&unchecked)
    );
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
    assert!(
        text(&out).contains("invalid-kubelet-version"),
        "{}",
        text(&out)
    );
}

/// A file of `examples/rollout/` (the streams docs/rollout-safety.md runs).
fn example(name: &str) -> String {
    format!(
        "{}/../../examples/rollout/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn lines_with(out: &Output, needle: &str) -> Vec<String> {
    text(out)
        .lines()
        .filter(|l| l.contains(needle))
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_control_plane_mid_upgrade_narrows_the_window() {
    // Policy: "kube-apiserver instances are at 1.xx and 1.(xx-1); kubelet is supported at
    // 1.(xx-1), 1.(xx-2), and 1.(xx-3)". KubeadmControlPlane status.versions v1.34.0 and
    // v1.35.0 (both run; the contract's "preferred source of truth",
    // docs/book/src/developer/providers/contracts/control-plane.md line 413 at ae7ff047); the
    // pool at v1.31.0 is 1.(xx-4).
    let out = run(&["validate", "-f", &example("upgrade-in-progress.yaml")]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(
        lines_with(&out, "kubelet-too-old"),
        [
            "  error   version skew: kubelet-too-old: kubelet v1.31.0 (MachinePool default/worker-mp-0 spec.template.spec.version) vs kube-apiserver v1.35.0 (KubeadmControlPlane default/controlplane status.versions[1].version): kubelet 1.31 is 4 minor versions older than kube-apiserver 1.35 (the newest kube-apiserver); a 1.25+ kubelet may be at most 3 older"
        ]
    );
    // 1.(xx-3) passes (at the edge), 1.xx is newer than the apiserver still at 1.(xx-1).
    for (version, code, rule) in [
        ("v1.32.0", 0, "kubelet-at-the-edge-of-the-window"),
        ("v1.35.0", 1, "kubelet-newer-than-apiserver"),
    ] {
        let edited = std::fs::read_to_string(example("upgrade-in-progress.yaml"))
            .unwrap()
            .replace("version: v1.31.0", &format!("version: {version}"));
        let path = std::env::temp_dir().join(format!(
            "capi-upgrade-{}-{version}.yaml",
            std::process::id()
        ));
        std::fs::write(&path, edited).unwrap();
        let out = run(&["validate", "-f", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(code), "{version}: {}", text(&out));
        assert_eq!(lines_with(&out, rule).len(), 1, "{version}: {}", text(&out));
    }
}

#[test]
fn any_control_plane_kind_named_by_the_cluster_is_read() {
    // The Cluster's spec.controlPlaneRef names the control plane (here an RKE2ControlPlane);
    // what runs is its status.version (the contract's fallback when status.versions is absent,
    // control-plane.md line 433 at ae7ff047).
    let out = run(&["validate", "-f", &example("rke2.yaml")]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("kubelet-newer-than-apiserver: kubelet v1.35.0 (MachinePool default/worker-mp-0 spec.template.spec.version) vs kube-apiserver v1.34.0+rke2r1 (RKE2ControlPlane default/rke2-controlplane status.version)"),
        "{}",
        text(&out)
    );
}

#[test]
fn pre_1_25_kubelets_have_a_two_minor_window() {
    // Policy: "(kubelet < 1.25 may only be up to two minor versions older than kube-apiserver)".
    let pool = example("pool-only.yaml");
    let out = run(&[
        "validate",
        "-f",
        &pool,
        "--control-plane-version",
        "v1.27.0",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(
        lines_with(&out, "error   version skew: kubelet-too-old").len(),
        1,
        "{}",
        text(&out)
    );
    let out = run(&[
        "validate",
        "-f",
        &pool,
        "--control-plane-version",
        "v1.26.0",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        lines_with(
            &out,
            "warning version skew: kubelet-at-the-edge-of-the-window"
        )
        .len(),
        1
    );
}

#[test]
fn without_a_control_plane_version_the_pool_says_it_was_not_checked() {
    let out = run(&["validate", "-f", &example("pool-only.yaml")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        lines_with(&out, "not-checked"),
        [
            "  warning version skew: not-checked: no control plane version known: Cluster default/my-cluster and its control plane are not in the input"
        ]
    );
    assert_eq!(
        lines_with(&out, "hint    pass --control-plane-version").len(),
        1
    );
}

#[test]
fn a_control_plane_version_that_is_not_a_version_is_a_usage_error() {
    for bad in ["garbage", "v1.34", ""] {
        let out = run(&[
            "validate",
            "-f",
            &example("pool-only.yaml"),
            "--control-plane-version",
            bad,
        ]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--control-plane-version"), "{err}");
        assert!(
            !err.contains("kubelet"),
            "the control plane's version is no kubelet version: {err}"
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn old_objects_show_what_an_update_does() {
    let stored = example("stored.yaml");
    // A renamed bootstrap config rolls out (cluster-api#10496), and so does a new version.
    let out = run(&[
        "validate",
        "-f",
        &example("update-renamed-config.yaml"),
        "--old",
        &stored,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        lines_with(
            &out,
            "note    change: version: spec.template.spec.version: v1.34.0 -> v1.35.0"
        )
        .len(),
        1,
        "{}",
        text(&out)
    );
    assert_eq!(lines_with(&out, "note    change: bootstrap-config-renamed: spec.template.spec.bootstrap.configRef: KubeadmConfig worker-mp-0-config -> KubeadmConfig worker-mp-0-config-v2").len(), 1);
    assert!(lines_with(&out, "edited-in-place").is_empty());
    // The same config edited in place never reaches instances (cluster-api#8858).
    let out = run(&[
        "validate",
        "-f",
        &example("update-edited-config.yaml"),
        "--old",
        &stored,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let warning = lines_with(&out, "bootstrap-config-edited-in-place");
    assert_eq!(warning.len(), 1, "{}", text(&out));
    assert!(warning[0].starts_with("  warning change: bootstrap-config-edited-in-place: KubeadmConfig worker-mp-0-config spec"), "{}", warning[0]);
    assert!(warning[0].contains("cluster-api#8858"));
    assert!(
        lines_with(&out, "change: version").is_empty(),
        "the version did not change"
    );
    // Upstream's ValidateUpdate: spec.clusterName is immutable.
    let out = run(&[
        "validate",
        "-f",
        &example("update-cluster-name.yaml"),
        "--old",
        &stored,
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(
        lines_with(
            &out,
            "error   spec.clusterName: Forbidden: field is immutable"
        )
        .len(),
        1
    );
    // Without --old the same file is a valid create.
    let out = run(&["validate", "-f", &example("update-cluster-name.yaml")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}
