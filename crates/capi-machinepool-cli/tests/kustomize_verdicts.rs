//! Every tree of `tests/fixtures/kustomize-trees` (see its README: one per class of issue 27,
//! outcomes recorded from `kubectl kustomize`, kustomize v5.5.0) gets from `check DIR` the
//! verdict of `kubectl kustomize DIR | capi-machinepool check -` (exit 2 where kustomize
//! refuses the tree), and with `--kustomize never` the same or exit 2 naming what is not
//! emulated. Without kubectl the suite prints "skipped: kubectl not found"; with `CI=true` it
//! fails instead.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::process::Command;

use capi_test_support::fixture;
use common::run;

/// The exit code of `kubectl kustomize DIR | capi-machinepool check -` (2 when kustomize fails).
fn piped(dir: &str) -> i32 {
    let out = Command::new("kubectl")
        .args(["kustomize", dir])
        .output()
        .unwrap();
    if !out.status.success() {
        return 2;
    }
    run(&["check", "-"], Some(&out.stdout))
        .status
        .code()
        .unwrap()
}

#[test]
fn every_class_gets_the_verdict_of_kubectl_kustomize() {
    if !capi_test_support::kubectl::available() {
        return;
    }
    let root = fixture("kustomize-trees");
    let mut names: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    names.sort();
    assert!(names.len() >= 23, "{names:?}");
    for dir in names {
        let name = dir.file_name().unwrap().to_str().unwrap().to_owned();
        let d = dir.to_str().unwrap();
        let auto = run(&["check", "--kustomize", "kubectl", d], None);
        let auto_code = auto.status.code().unwrap();
        let stderr = String::from_utf8_lossy(&auto.stderr).into_owned();
        if name.starts_with("preflight-") {
            // Refused before kustomize runs, naming the file and field.
            assert_eq!(auto_code, 2, "{name}: {stderr}");
            assert!(
                stderr.contains("refused before running kustomize"),
                "{name}: {stderr}"
            );
        } else {
            assert_eq!(auto_code, piped(d), "{name}: {stderr}");
            // The text report says which renderer ran (issue 27: "say which kustomize ran").
            let stdout = String::from_utf8_lossy(&auto.stdout);
            assert!(
                auto_code == 2
                    || stdout.starts_with("rendered with kubectl kustomize (kustomize v"),
                "{name}: {stdout}{stderr}"
            );
        }
        let never = run(&["check", "--kustomize", "never", d], None);
        let never_code = never.status.code().unwrap();
        let never_err = String::from_utf8_lossy(&never.stderr).into_owned();
        assert!(
            never_code == auto_code || (never_code == 2 && never_err.contains("not emulated")),
            "{name}: never gives {never_code}, kustomize {auto_code}: {never_err}"
        );
    }
}

/// README's first command (`check tests/fixtures/provider-trees/capi-dev/config/crd`, run from
/// the workspace root) prints exactly the output the README shows, whose first line says which
/// renderer ran (issue 27: "the README's first command shows the real-kustomize path (say
/// which kustomize ran)"). Run with `--kustomize kubectl`, the renderer `auto` picks on a
/// machine without a `kustomize` binary, as the README says.
#[test]
fn readme_first_command_output_is_real() {
    if !capi_test_support::kubectl::available() {
        return;
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let at = readme
        .find("Real output of the first command")
        .expect("README shows the first command's output");
    let block = &readme[at..];
    let command = "```text\n$ cargo run -q -p capi-machinepool-cli -- check tests/fixtures/provider-trees/capi-dev/config/crd\n";
    let start = block.find(command).expect("the block shows the command") + command.len();
    let end = start + block[start..].find("```").unwrap();
    let shown = &block[start..end];
    assert!(
        readme.contains("cargo run -p capi-machinepool-cli -- check tests/fixtures/provider-trees/capi-dev/config/crd\n"),
        "README's first command changed"
    );
    let out = common::bin()
        .current_dir(&root)
        .args([
            "check",
            "--kustomize",
            "kubectl",
            "tests/fixtures/provider-trees/capi-dev/config/crd",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("rendered with kubectl kustomize (kustomize v"),
        "{stdout}"
    );
    assert_eq!(stdout, shown);
}

/// A value a kustomize patch set is reported where it was set (issue 51: "a FAIL on a label
/// set by a kustomize patch points at the base CRD file and says kustomization `labels`").
/// `label-from-patch` (see the fixtures' README, recorded with `kubectl kustomize`): a patch
/// file's second document labels the pools CRD with a version it does not have. With the real
/// kustomize and with the emulator, the failing finding names `patches[0]` in that file
/// (document 1, line 13: the label's own line, issue 59) in text, JSON, GitHub and SARIF
/// output, while the subject is still read from the base file.
#[test]
fn a_value_set_by_a_patch_is_reported_at_the_patch_file() {
    let dir = fixture("kustomize-trees/label-from-patch");
    let d = dir.to_str().unwrap();
    let patch = format!("{d}/patches/contract-labels.yaml");
    let mut renderers = vec!["never"];
    if capi_test_support::kubectl::available() {
        renderers.push("kubectl");
    }
    for renderer in renderers {
        let json = run(
            &["check", "--kustomize", renderer, "--format", "json", d],
            None,
        );
        assert_eq!(json.status.code(), Some(1), "{renderer}");
        let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
        let failed: Vec<&serde_json::Value> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["outcome"] == "fail")
            .collect();
        assert_eq!(failed.len(), 1, "{renderer}: {failed:?}");
        let f = failed[0];
        assert_eq!(f["rule"], "contract-label-versions");
        assert_eq!(f["path"], "metadata.labels[cluster.x-k8s.io/v1beta2]");
        assert_eq!(
            f["setBy"],
            serde_json::json!({"file": patch, "document": 1, "line": 13, "column": 5, "field": "patches[0]"}),
            "{renderer}"
        );
        assert!(
            f["subject"]["source"]["file"]
                .as_str()
                .unwrap()
                .ends_with("bases/pools.yaml"),
            "{f}"
        );
        let text = run(&["check", "--kustomize", renderer, d], None);
        let text = String::from_utf8_lossy(&text.stdout);
        assert!(
            text.contains(&format!("set by: `patches[0]` in {patch}#1 (line 13)")),
            "{text}"
        );
        let github = run(
            &["check", "--kustomize", renderer, "--format", "github", d],
            None,
        );
        let github = String::from_utf8_lossy(&github.stdout);
        assert!(
            github.contains(&format!("::error file={patch},line=13,endLine=13,col=5,")),
            "{github}"
        );
        let sarif = run(
            &["check", "--kustomize", renderer, "--format", "sarif", d],
            None,
        );
        let sarif: serde_json::Value = serde_json::from_slice(&sarif.stdout).unwrap();
        let result = &sarif["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["level"] == "error")
            .unwrap()
            .clone();
        let location = &result["locations"][0]["physicalLocation"];
        assert!(
            location["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
                .ends_with("patches/contract-labels.yaml"),
            "{result}"
        );
        assert_eq!(location["region"]["startLine"], 13);
        assert!(
            result["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
                .ends_with("bases/pools.yaml"),
            "{result}"
        );
    }
}

/// A directory of programs for `PATH`: `kubectl` (the real one) and, when `unshare` is
/// given, a stand-in `unshare` script with that body.
fn path_with(name: &str, unshare: Option<&str>) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("capi-sandbox-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = std::process::Command::new("sh")
        .args(["-c", "command -v kubectl"])
        .output()
        .unwrap();
    let kubectl = String::from_utf8(out.stdout).unwrap();
    std::os::unix::fs::symlink(kubectl.trim(), dir.join("kubectl")).unwrap();
    if let Some(body) = unshare {
        let script = dir.join("unshare");
        std::fs::write(&script, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}

/// Issue 65: the kustomize sandbox fails closed. With no `unshare` on PATH, or one that
/// cannot make a user namespace (as with `user.max_user_namespaces=0`, or Ubuntu 24.04's
/// AppArmor restriction), `check DIR` does not run kustomize unsandboxed: it stops (exit 2)
/// with the reason and the ways out; `--kustomize never` (the emulator, which runs nothing)
/// still checks the tree.
#[cfg(unix)]
#[test]
fn kustomize_is_never_run_without_its_sandbox() {
    if !capi_test_support::kubectl::available() {
        return;
    }
    let root = capi_test_support::workspace_root();
    let tree = "tests/fixtures/provider-trees/capi-dev/config/crd";
    let denied =
        "echo 'unshare: write failed /proc/self/uid_map: Operation not permitted' >&2; exit 1";
    for (case, unshare, reason) in [
        ("missing", None, "`unshare` (util-linux) is not on PATH"),
        (
            "denied",
            Some(denied),
            "unprivileged user namespaces are denied",
        ),
    ] {
        let bin = path_with(case, unshare);
        let out = common::bin()
            .current_dir(&root)
            .env("PATH", &bin)
            .args(["check", tree])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{case}: {stderr}");
        assert!(
            stderr.contains("kustomize is not run without its sandbox") && stderr.contains(reason),
            "{case}: {stderr}"
        );
        for way_out in [
            "util-linux",
            "user.max_user_namespaces",
            "--kustomize never",
        ] {
            assert!(stderr.contains(way_out), "{case}: no {way_out}: {stderr}");
        }
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("rendered with kubectl"),
            "{case}: kustomize ran"
        );
        let never = common::bin()
            .current_dir(&root)
            .env("PATH", &bin)
            .args(["check", "--kustomize", "never", tree])
            .output()
            .unwrap();
        assert_eq!(
            never.status.code(),
            Some(1),
            "{case}: the emulator checks the tree"
        );
        let _ = std::fs::remove_dir_all(&bin);
    }
}
