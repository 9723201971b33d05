//! Never a silent partial (issue 60, step 4): a CRD with something the model leaves to the API
//! server (here: patterns in Go-only regular-expression syntax) passes `check` (INFO), and the
//! summary line says what was not judged; `--require-judged` makes it a failure (exit status
//! 1, as for a MUST violation). A CRD whose CEL rules are all judged offline (Scaleway's 14)
//! passes with the flag.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

/// CAPG v1.12.0's bundle: every MUST rule holds, and 4 patterns use Go-only syntax.
const BUNDLE: &str = "tests/fixtures/providers/capg-v1.12.0/crds.yaml";

fn check(extra: &[&str]) -> (i32, String) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(env!("CARGO_BIN_EXE_capi-machinepool"))
        .current_dir(&root)
        .arg("check")
        .args(extra)
        .arg(BUNDLE)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

const NOT_JUDGED: &str = "; not judged in full: 1 CRD (4 patterns in Go-only regular-expression syntax): `--server` has the API server judge it, `--require-judged` fails on it";

#[test]
fn the_summary_line_says_what_was_not_judged() {
    let (code, out) = check(&[]);
    assert_eq!(code, 0, "{out}");
    let last = out.lines().last().unwrap_or_default();
    assert_eq!(
        last,
        format!("0 fail, 6 warn, 2 info, 49 pass: OK (no MUST rule violated){NOT_JUDGED}")
    );
    assert!(out.contains("  INFO MUST crd-valid"), "{out}");
}

#[test]
fn require_judged_fails_on_what_was_not_judged() {
    let (code, out) = check(&["--require-judged"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("  FAIL MUST crd-valid"), "{out}");
    let last = out.lines().last().unwrap_or_default();
    assert_eq!(
        last,
        format!("1 fail, 6 warn, 1 info, 49 pass: FAILED (a MUST rule is violated){NOT_JUDGED}")
    );
    // The JSON report lists them, CRD by CRD.
    let (_, json) = check(&["--require-judged", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["notJudged"][0]["count"], 4, "{json}");
    assert_eq!(
        report["notJudged"][0]["what"],
        "patterns in Go-only regular-expression syntax"
    );
    // Fully judged bundles pass with the flag: CAPD's, and Scaleway's with its 14 CEL rules.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for bundle in [
        "tests/fixtures/providers/capd-v1.11.0/crds.yaml",
        "tests/fixtures/providers/scaleway-v0.1.5/crds.yaml",
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_capi-machinepool"))
            .current_dir(&root)
            .args(["check", "--require-judged", bundle])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{bundle}");
    }
}
