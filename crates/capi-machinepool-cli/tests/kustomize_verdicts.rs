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
    let start = block.find("```text\n").unwrap() + "```text\n".len();
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
