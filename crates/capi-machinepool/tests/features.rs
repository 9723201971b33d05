//! The facade's promise (crate docs): the default features, what a provider's controller and
//! conversion webhook need, compile no YAML parser and no JSON-schema validator; `admission`,
//! `check` and `manifests` bring them. Checked on the resolved dependency graph
//! (`cargo tree`, offline, from the lock file), and the re-exports name the split crates'
//! own items (one type, reachable by the facade path and the crate path).
#![allow(clippy::unwrap_used, clippy::panic)]

use std::process::Command;

fn tree(features: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args([
        "tree",
        "--offline",
        "-p",
        "capi-machinepool",
        "-e",
        "normal",
        "--prefix",
        "none",
    ]);
    if !features.is_empty() {
        cmd.args(["--features", &features.join(",")]);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn has(tree: &str, krate: &str) -> bool {
    tree.lines()
        .any(|l| l.split_whitespace().next() == Some(krate))
}

#[test]
fn default_features_link_no_yaml_parser_and_no_schema_validator() {
    let default = tree(&[]);
    for krate in [
        "capi-machinepool-conversion",
        "capi-contract",
        "capi-machinepool-status",
    ] {
        assert!(has(&default, krate), "{krate} missing:\n{default}");
    }
    for krate in [
        "serde-saphyr",
        "capi-machinepool-admission",
        "capi-manifests",
        "capi-contract-check",
    ] {
        assert!(
            !has(&default, krate),
            "{krate} in the default build:\n{default}"
        );
    }
    let check = tree(&["check"]);
    assert!(has(&check, "capi-contract-check") && has(&check, "serde-saphyr"));
    let admission = tree(&["admission"]);
    assert!(has(&admission, "capi-machinepool-admission"));
}

#[test]
fn facade_paths_are_the_split_crates_items() {
    use capi_machinepool::prelude::*;
    // The same type through the facade module and the split crate.
    let pool: capi_machinepool_api::v1beta2::MachinePool =
        capi_machinepool::api::v1beta2::MachinePool::default();
    let again: capi_machinepool::api::v1beta2::MachinePool = pool.clone();
    assert_eq!(pool, again);
    let contract: capi_contract::Contract = capi_machinepool::contract::Contract::V1Beta2;
    assert_eq!(contract, capi_machinepool::contract::Contract::CURRENT);
    assert_eq!(
        capi_machinepool::contract::fields::infra_machine_pool::PROVIDER_ID_LIST.path(),
        capi_contract::fields::infra_machine_pool::PROVIDER_ID_LIST.path()
    );
    // The prelude holds traits: a method of one, on a type from the modules.
    let read: Result<i32, capi_machinepool::contract::reader::ReadError> = Ok(1);
    assert_eq!(read.or_missing(0), Ok(1));
}
