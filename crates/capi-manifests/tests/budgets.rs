//! Memory and time stay bounded whatever a tree holds: one node budget for everything a load
//! keeps ([`Limits::max_total_nodes`]), patch uses and patch results counted against it, each
//! patch file parsed once. Each case once took gigabytes or minutes with every document
//! within the per-document limits; the limits are scaled down here so each test runs in
//! milliseconds, and the expected counts are worked out from the inputs by hand.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use capi_manifests::{Limits, ManifestError, load::load};

fn tree(name: &str, files: &[(&str, String)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("capi-budgets-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, text) in files {
        std::fs::write(dir.join(file), text).unwrap();
    }
    dir
}

/// A document of three levels of ten-way aliases: a mapping of three keys holding 10, 10 x 10
/// and 10 x 10 x 10 scalars through sequences.
fn alias_document() -> String {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for level in 1..3 {
        let items = vec![format!("*a{}", level - 1); 10].join(", ");
        text.push_str(&format!("a{level}: &a{level} [{items}]\n"));
    }
    text
}

/// Nodes of [`alias_document`] once expanded: the mapping (1) and its three keys (3); a0 is a
/// sequence (1) of 10 scalars = 11; a1 is 1 + 10 x 11 = 111; a2 is 1 + 10 x 111 = 1111.
const ALIAS_DOCUMENT_NODES: usize = 1 + 3 + 11 + 111 + 1111;

#[test]
fn many_alias_expanded_documents_in_a_directory_break_the_total_budget() {
    // Each document is far within the per-document limits; forty of them are not within a
    // total of ten documents' worth.
    let files: Vec<(String, String)> = (0..40)
        .map(|i| (format!("d{i:02}.yaml"), alias_document()))
        .collect();
    let refs: Vec<(&str, String)> = files.iter().map(|(f, t)| (f.as_str(), t.clone())).collect();
    let dir = tree("aliases", &refs);
    let limits = Limits {
        max_total_nodes: 10 * ALIAS_DOCUMENT_NODES,
        ..Limits::default()
    };
    let err = load(std::slice::from_ref(&dir), limits).unwrap_err();
    assert!(
        matches!(&err, ManifestError::TooManyNodes { path, .. } if path.contains("d10.yaml")),
        "the eleventh document passes the budget: {err}"
    );
    // Exactly ten fit.
    let ten = tree("aliases-ten", &refs[..10]);
    let loaded = load(&[ten], limits).unwrap();
    assert_eq!(loaded.documents.len(), 10);
}

#[test]
fn each_use_of_a_patch_file_counts_against_the_budget() {
    // A patch file of many labels named by twenty entries: each use is work (a merge over
    // the whole patch) and may add its nodes to the resource.
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: a.example.com\n".to_owned();
    let mut patch = String::from(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: a.example.com\n  annotations:\n",
    );
    for i in 0..2000 {
        patch.push_str(&format!("    k{i}: v\n"));
    }
    let entries = "- path: patch.yaml\n".repeat(20);
    let kustomization = format!("resources: [crd.yaml]\npatches:\n{entries}");
    let dir = tree(
        "patch-uses",
        &[
            ("crd.yaml", crd),
            ("patch.yaml", patch),
            ("kustomization.yaml", kustomization),
        ],
    );
    // The patch: mapping, 4 keys, apiVersion and kind scalars, metadata mapping with 2 keys,
    // the name, the annotations mapping with 2000 keys and values: 1+4+2+1+2+1+1+4000.
    let patch_nodes = 1 + 4 + 2 + 1 + 2 + 1 + 1 + 4000;
    let limits = Limits {
        max_total_nodes: 5 * patch_nodes,
        ..Limits::default()
    };
    let started = Instant::now();
    let err = load(std::slice::from_ref(&dir), limits).unwrap_err();
    assert!(
        matches!(&err, ManifestError::TooManyNodes { path, .. } if path.contains("patches[4]")),
        "the fifth use passes five patches' worth (with the CRD and kustomization): {err}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    // Within the default budget all twenty apply (the same annotations each time).
    let loaded = load(&[dir], Limits::default()).unwrap();
    assert_eq!(
        loaded.documents[0].value["metadata"]["annotations"]
            .as_object()
            .unwrap()
            .len(),
        2000
    );
}

#[test]
fn json_patch_copies_are_bounded_by_the_document_limits() {
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: a.example.com\nspec:\n  group: example.com\n".to_owned();
    let ops: String = (0..40)
        .map(|i| format!("    - {{op: copy, from: /spec, path: /spec/x{i}}}\n"))
        .collect();
    let kustomization = format!(
        "resources: [crd.yaml]\npatches:\n- target: {{kind: CustomResourceDefinition}}\n  patch: |\n{ops}"
    );
    let dir = tree(
        "copies",
        &[("crd.yaml", crd), ("kustomization.yaml", kustomization)],
    );
    let started = Instant::now();
    let err = load(&[dir], Limits::default()).unwrap_err();
    assert!(
        err.to_string()
            .contains("the result would hold more than 300000 nodes"),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
}
