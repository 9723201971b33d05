//! Issue 59: a finding points at the line the author edits, the same in text, JSON, GitHub
//! annotations and SARIF, through kustomize; and SARIF alerts keep distinct, stable
//! fingerprints. One tree of `tests/fixtures/kustomize-trees` per location class (each is
//! `base/` plus one change, see the README there): a field of the base file, a missing
//! field (its nearest present parent), a strategic-merge patch, a JSON 6902 patch file, an
//! inline patch in `kustomization.yaml`, a `commonLabels` entry. Each is checked with the
//! emulator and, where kubectl is installed, with the real kustomize (the emulator's account
//! is kept where both render the same).
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use capi_test_support::fixture;
use common::run;
use serde_json::Value;

/// One location class: the tree, the failing rule, and where its finding must point.
struct Case {
    tree: &'static str,
    rule: &'static str,
    /// The file, relative to the tree.
    file: &'static str,
    line: u64,
    column: u64,
    /// What the JSON report says is at that place.
    anchor: &'static str,
}

const CASES: &[Case] = &[
    // `scope: Cluster` written in the base file, line 17.
    Case {
        tree: "locate-base-field",
        rule: "scope",
        file: "bases/pools.yaml",
        line: 17,
        column: 3,
        anchor: "field",
    },
    // `status.replicas` removed: the `properties:` of `status`, line 106.
    Case {
        tree: "locate-missing-field",
        rule: "replicas",
        file: "bases/pools.yaml",
        line: 106,
        column: 13,
        anchor: "parent",
    },
    // `scope: Cluster` set by patches/scope.yaml, line 7.
    Case {
        tree: "locate-strategic-merge",
        rule: "scope",
        file: "patches/scope.yaml",
        line: 7,
        column: 3,
        anchor: "setter",
    },
    // `value: string` of the JSON 6902 operation on status.replicas' type, line 7.
    Case {
        tree: "locate-json6902-file",
        rule: "replicas",
        file: "patches/replicas-type.yaml",
        line: 7,
        column: 3,
        anchor: "setter",
    },
    // `scope: Cluster` inside the second inline patch of kustomization.yaml, line 24.
    Case {
        tree: "locate-inline-patch",
        rule: "scope",
        file: "kustomization.yaml",
        line: 24,
        column: 7,
        anchor: "setter",
    },
    // The `cluster.x-k8s.io/v1beta2: v1beta3` entry of `commonLabels`, line 6.
    Case {
        tree: "locate-label-entry",
        rule: "contract-label-versions",
        file: "kustomization.yaml",
        line: 6,
        column: 3,
        anchor: "setter",
    },
];

fn renderers() -> Vec<&'static str> {
    let mut renderers = vec!["never"];
    if capi_test_support::kubectl::available() {
        renderers.push("kubectl");
    }
    renderers
}

fn check(renderer: &str, format: &str, dir: &str) -> String {
    let out = run(
        &["check", "--kustomize", renderer, "--format", format, dir],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{dir} ({renderer}, {format})");
    String::from_utf8(out.stdout).unwrap()
}

/// The first failing finding of the JSON report (of the pools CRD: the one each tree breaks).
fn failing(report: &Value, rule: &str) -> Value {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["outcome"] == "fail" && f["rule"] == rule)
        .unwrap_or_else(|| panic!("no failing {rule}: {report}"))
        .clone()
}

#[test]
fn every_location_class_points_at_its_line_in_all_four_formats() {
    for case in CASES {
        let dir = fixture(&format!("kustomize-trees/{}", case.tree));
        let d = dir.to_str().unwrap();
        let file = format!("{d}/{}", case.file);
        let (line, column) = (case.line, case.column);
        for renderer in renderers() {
            let name = format!("{} ({renderer})", case.tree);
            let report: Value = serde_json::from_str(&check(renderer, "json", d)).unwrap();
            let f = failing(&report, case.rule);
            assert_eq!(
                f["location"],
                serde_json::json!({"file": file, "document": 0, "line": line, "column": column, "at": case.anchor}),
                "{name}: {f}"
            );
            let text = check(renderer, "text", d);
            let shown = if case.anchor == "setter" {
                format!("(line {line})")
            } else {
                format!("at: {file}:{line}:{column}")
            };
            assert!(
                text.lines()
                    .any(|l| l.contains(&file) && l.contains(&shown)),
                "{name}: {shown} not in\n{text}"
            );
            let github = check(renderer, "github", d);
            let annotation = format!(
                "::error file={file},line={line},endLine={line},col={column},title=MUST {} ",
                case.rule
            );
            assert!(
                github.contains(&annotation),
                "{name}: {annotation} not in\n{github}"
            );
            let sarif: Value = serde_json::from_str(&check(renderer, "sarif", d)).unwrap();
            let result = sarif["runs"][0]["results"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["level"] == "error" && r["ruleId"] == case.rule)
                .unwrap()
                .clone();
            let location = &result["locations"][0]["physicalLocation"];
            assert_eq!(
                location["artifactLocation"]["uri"], file,
                "{name}: {result}"
            );
            assert_eq!(
                location["region"],
                serde_json::json!({"startLine": line, "endLine": line, "startColumn": column}),
                "{name}"
            );
            // The rendered document (the base file) is a related location.
            let related = &result["relatedLocations"][0]["physicalLocation"];
            assert!(
                related["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap()
                    .ends_with("bases/pools.yaml"),
                "{name}: {result}"
            );
        }
    }
}

/// The SARIF fingerprints of a run, in result order.
fn fingerprints(dir: &str) -> Vec<String> {
    let sarif: Value = serde_json::from_str(&check("never", "sarif", dir)).unwrap();
    sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["partialFingerprints"]["capiMachinepoolFinding/v1"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// Fingerprints are distinct within a run, the same in two runs, and the same after lines are
/// inserted elsewhere in the files (the line of every finding moves, its identity does not).
#[test]
fn fingerprints_are_distinct_and_survive_unrelated_edits() {
    let source = fixture("kustomize-trees/locate-label-entry");
    let first = fingerprints(source.to_str().unwrap());
    assert!(first.len() >= 6, "{first:?}");
    let mut unique = first.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        unique.len(),
        first.len(),
        "two findings share one: {first:?}"
    );
    assert_eq!(fingerprints(source.to_str().unwrap()), first, "second run");

    let copy = tempfile::tempdir().unwrap();
    let root = copy.path();
    std::fs::create_dir_all(root.join("bases")).unwrap();
    let comments = "# an unrelated comment\n# and another\n";
    for file in [
        "kustomization.yaml",
        "bases/pools.yaml",
        "bases/pooltemplates.yaml",
    ] {
        let text = std::fs::read_to_string(source.join(file)).unwrap();
        // Before the first line of every file: every finding's line moves down by two.
        std::fs::write(root.join(file), format!("{comments}{text}")).unwrap();
    }
    let moved_report: Value =
        serde_json::from_str(&check("never", "json", root.to_str().unwrap())).unwrap();
    let label = failing(&moved_report, "contract-label-versions");
    assert_eq!(label["location"]["line"], 8, "{label}");
    // Not the same directory: only the identities (rule, CRD, version, path) are hashed.
    assert_eq!(
        fingerprints(root.to_str().unwrap()),
        first,
        "after inserting lines"
    );
}

/// An object's finding (`--objects`) points at its field's line too: the duplicated entry of
/// `spec.providerIDList` at its list entry, the replicas mismatch at `status.replicas`, in the
/// JSON, GitHub and JUnit formats; before, both sat on the document's first line.
#[test]
fn an_objects_finding_points_at_its_field() {
    let root = capi_test_support::workspace_root();
    let objects = "examples/devmachinepool-duplicate-ids.yaml";
    let args = |format| {
        [
            "check",
            "--kustomize",
            "never",
            "--only-contract",
            "v1beta2",
            "tests/fixtures/provider-trees/capi-dev/config/crd",
            "--objects",
            objects,
            "--format",
            format,
        ]
    };
    let out = common::bin()
        .current_dir(&root)
        .args(args("json"))
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let duplicate = failing(&report, "provider-id-list-values");
    assert_eq!(duplicate["location"]["file"], objects, "{duplicate}");
    assert_eq!(duplicate["location"]["line"], 14, "{duplicate}");
    // The entry's value, after its `- `.
    assert_eq!(duplicate["location"]["column"], 5, "{duplicate}");
    let replicas = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "replicas-consistency" && f["outcome"] == "warn")
        .unwrap();
    assert_eq!(replicas["location"]["line"], 17, "{replicas}");
    let out = common::bin()
        .current_dir(&root)
        .args(args("github"))
        .output()
        .unwrap();
    let github = String::from_utf8(out.stdout).unwrap();
    assert!(
        github.lines().any(|l| l.starts_with("::error ")
            && l.contains(&format!("file={objects},line=14,"))
            && l.contains("provider-id-list-values")),
        "{github}"
    );
    let out = common::bin()
        .current_dir(&root)
        .args(args("junit"))
        .output()
        .unwrap();
    let junit = String::from_utf8(out.stdout).unwrap();
    assert!(
        junit.lines().any(|l| l
            .contains("name=\"provider-id-list-values spec.providerIDList[2]\"")
            && l.contains(&format!("file=\"{objects}\" line=\"14\""))),
        "{junit}"
    );
}
