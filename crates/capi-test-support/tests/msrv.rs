//! The minimum supported Rust version stays true: no dependency of the workspace (for the
//! host platform, as locked in `Cargo.lock`) declares a newer `rust-version` than ours, and
//! the README states ours. Library APIs newer than the MSRV are caught by clippy's
//! `incompatible_msrv` lint, which reads the same `rust-version` (CI runs clippy with
//! `-D warnings`, see `.ci/run`). A build with the MSRV toolchain itself (`cargo +1.89
//! check`) needs that toolchain installed and is not part of this test.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::process::Command;

use capi_test_support::{cargo_metadata, workspace_root};
use serde_json::Value;

/// `1.89` or `1.89.0` as comparable numbers.
fn version(text: &str) -> Vec<u64> {
    let mut parts: Vec<u64> = text.split('.').map(|p| p.parse().unwrap()).collect();
    parts.resize(3, 0);
    parts
}

fn host() -> String {
    let out = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .arg("-vV")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("host: "))
        .unwrap()
        .to_string()
}

#[test]
fn no_dependency_needs_a_newer_rust_than_the_declared_msrv() {
    let host = host();
    let meta = cargo_metadata(&["--locked", "--filter-platform", &host]);
    let members: Vec<&str> = meta["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let packages = meta["packages"].as_array().unwrap();
    let ours: Vec<(&str, &str)> = packages
        .iter()
        .filter(|p| members.contains(&p["id"].as_str().unwrap()))
        .map(|p| {
            (
                p["name"].as_str().unwrap(),
                p["rust_version"].as_str().unwrap_or(""),
            )
        })
        .collect();
    let msrv = ours
        .iter()
        .find(|(n, _)| *n == "capi-machinepool-api")
        .unwrap()
        .1;
    assert!(!msrv.is_empty(), "the workspace declares a rust-version");
    for (name, rv) in &ours {
        assert_eq!(*rv, msrv, "{name} inherits the workspace rust-version");
    }
    let newer: Vec<String> = packages
        .iter()
        .filter(|p| !members.contains(&p["id"].as_str().unwrap()))
        .filter_map(|p| {
            let rv = p["rust_version"].as_str()?;
            (version(rv) > version(msrv))
                .then(|| format!("{} {} needs {rv}", p["name"], p["version"]))
        })
        .collect();
    assert!(
        newer.is_empty(),
        "dependencies newer than the MSRV {msrv}: {newer:?}"
    );
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("Rust {msrv}+")),
        "README.md states the MSRV as `Rust {msrv}+`"
    );
}
