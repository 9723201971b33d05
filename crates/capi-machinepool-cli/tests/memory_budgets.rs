//! Memory and time of the worst accepted inputs (issue 31: a directory of 27 KB of
//! alias-expanded documents peaked at 2.3 GB and took 20 s; an 18 MB CRD of 600k properties
//! peaked at 989 MB). The binary runs under an address-space limit of 256 MiB (`ulimit -v`,
//! which bounds virtual memory and so resident memory too): an allocation beyond it aborts the
//! process, so exit status 2 (an input error) proves the input was refused within the budget.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::time::{Duration, Instant};

/// The budget: ~256 MB, the memory a CI step or a small pod has (issue 31).
const LIMIT_KIB: u32 = 256 * 1024;

/// Runs `capi-machinepool ARGS` under the address-space limit; its output and duration.
fn run_limited(args: &[&str]) -> (std::process::Output, Duration) {
    let start = Instant::now();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {LIMIT_KIB} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_capi-machinepool"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    (out, start.elapsed())
}

/// A document of `anchors` levels, each a sequence of ten aliases of the level below: 10^levels
/// nodes once expanded from a few hundred bytes.
fn alias_bomb(levels: u32) -> String {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for level in 1..levels {
        let below = format!("*a{}", level - 1);
        let items = [below.as_str(); 10].join(", ");
        text.push_str(&format!("a{level}: &a{level} [{items}]\n"));
    }
    text
}

#[test]
fn a_directory_of_alias_expanded_documents_fails_within_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    // 5 levels: 111,110 expanded nodes a document, under the per-document limit; 40 files
    // hold 4.4M nodes, far over the per-load budget.
    let doc = alias_bomb(5);
    for i in 0..40 {
        std::fs::write(dir.path().join(format!("bomb-{i:02}.yaml")), &doc).unwrap();
    }
    let (out, took) = run_limited(&["check", dir.path().to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("nodes"), "{stderr}");
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

#[test]
fn an_eighteen_megabyte_crd_fails_within_the_budget() {
    // 600,000 properties (4 YAML nodes each) in one CRD schema: about 18 MB.
    let mut text = String::from(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: bigmachinepools.infrastructure.cluster.x-k8s.io\nspec:\n  group: infrastructure.cluster.x-k8s.io\n  names: {kind: BigMachinePool, plural: bigmachinepools}\n  scope: Namespaced\n  versions:\n  - name: v1beta2\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n",
    );
    for i in 0..600_000 {
        text.push_str(&format!("          property{i:07}: {{type: string}}\n"));
    }
    assert!(text.len() > 18_000_000, "{}", text.len());
    let dir = tempfile::tempdir().unwrap();
    let crd = dir.path().join("crd.yaml");
    std::fs::write(&crd, &text).unwrap();
    drop(text);
    let (out, took) = run_limited(&["check", crd.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(took < Duration::from_secs(60), "took {took:?}");
}
