//! Adding a contract version is one line (issue 64). The build with the `test-next-contract`
//! feature adds a made-up `v1beta3` that changes no field, by one line in
//! `capi_contract::Contract` and nothing else; v1beta3 is then the current contract, and the
//! current core reads every contract down to `Contract::OLDEST_READ` (v1beta1, the temporary
//! compatibility, which a new contract does not end).
//!
//! What must hold in both builds: every verdict on the real providers of the repository
//! (capi-dev: v1beta2; CAPA and CAPZ: v1beta1; CAPD v1.11.0: both; with objects where the
//! repository has them), by default and with `--only-contract v1beta2` and `v1beta1`, is the
//! same, except `deprecated-contract`, which changes exactly as the policy says: a provider
//! without v1beta3 implements only deprecated contracts. The verdicts are a golden file
//! written by the normal build (`UPDATE_GOLDEN=1`).
//!
//! CI runs this file twice: in `cargo test --workspace` and with
//! `cargo test -p capi-contract-check --features test-next-contract --test next_contract`.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::fmt::Write as _;

use capi_contract::Contract;
use capi_contract::fields::{infra_machine, infra_machine_pool};
use capi_contract_check::{CheckOptions, Checker, Outcome, Report};
use capi_manifests::{Limits, load::load};

/// The real providers of the repository, as `check` inputs with objects (`--objects`): the
/// whole trees of capi-dev (v1beta2), CAPA and CAPZ (v1beta1), and CAPD v1.11.0 (both).
const PROVIDERS: &[(&str, &[&str], Option<&str>)] = &[
    (
        "capi-dev",
        &["tests/fixtures/provider-trees/capi-dev/config/crd"],
        Some("examples/devmachinepool-duplicate-ids.yaml"),
    ),
    (
        "capa",
        &["tests/fixtures/provider-trees/capa/config/crd"],
        None,
    ),
    (
        "capz",
        &["tests/fixtures/provider-trees/capz/config/crd"],
        Some("tests/fixtures/capz-sets/machinepool-machines.yaml"),
    ),
    (
        "capd-v1.11.0",
        &["tests/fixtures/providers/capd-v1.11.0/crds.yaml"],
        Some("tests/fixtures/providers/capd-v1.11.0/objects.yaml"),
    ),
];

/// The rule that states which contract is current: it changes with a new contract, by design.
const POLICY_RULES: &[&str] = &["deprecated-contract"];

fn check(inputs: &[&str], only: Option<Contract>) -> Report {
    check_with_objects(inputs, None, only)
}

fn check_with_objects(inputs: &[&str], objects: Option<&str>, only: Option<Contract>) -> Report {
    let root = capi_test_support::workspace_root();
    let paths: Vec<_> = inputs.iter().map(|p| root.join(p)).collect();
    let loaded = load(&paths, Limits::default()).unwrap();
    let mut checker = Checker::new(CheckOptions {
        only_contract: only,
        ..CheckOptions::default()
    });
    checker.add_notes(&loaded.notes);
    checker.add_documents(loaded.documents);
    if let Some(objects) = objects {
        for doc in load(&[root.join(objects)], Limits::default())
            .unwrap()
            .documents
        {
            checker.add_object_document(&doc);
        }
    }
    checker.finish()
}

/// One line per finding but the policy rules': subject, rule, outcome, path, message (the
/// contract a finding is recorded for is the current one for findings about a CRD as a
/// whole, so it is left out; the workspace root is left out of file names).
fn verdicts(report: &Report) -> String {
    let root = capi_test_support::workspace_root().display().to_string();
    let mut out = String::new();
    for f in report
        .findings
        .iter()
        .filter(|f| !POLICY_RULES.contains(&f.rule.id))
    {
        writeln!(
            out,
            "{} | {} | {:?} | {} | {}",
            f.subject, f.rule.id, f.outcome, f.path, f.message
        )
        .unwrap();
    }
    out.replace(&root, "")
}

fn all_verdicts() -> String {
    let mut out = String::new();
    for (name, inputs, objects) in PROVIDERS {
        for only in [None, Some(Contract::V1Beta2), Some(Contract::V1Beta1)] {
            let flag = only.map_or("default".to_owned(), |c| format!("--only-contract {c}"));
            let report = check_with_objects(inputs, *objects, only);
            writeln!(out, "# {name} {flag}\n{}", verdicts(&report)).unwrap();
        }
    }
    out
}

const GOLDEN: &str = "tests/fixtures/next-contract/verdicts.txt";

/// The normal build writes the golden file when `UPDATE_GOLDEN=1`, and both builds compare.
#[test]
fn verdicts_are_the_same_in_both_builds() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN);
    let now = all_verdicts();
    if std::env::var_os("UPDATE_GOLDEN").is_some() && !cfg!(feature = "test-next-contract") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &now).unwrap();
    }
    let golden = std::fs::read_to_string(&path).unwrap();
    assert!(
        golden.lines().count() > 500,
        "{} lines",
        golden.lines().count()
    );
    let gone: Vec<&str> = golden.lines().filter(|l| !now.contains(l)).collect();
    let new: Vec<&str> = now.lines().filter(|l| !golden.contains(l)).collect();
    assert!(
        gone.is_empty() && new.is_empty() && golden == now,
        "verdicts differ from {GOLDEN} (UPDATE_GOLDEN=1 in the normal build)\n- {}\n+ {}",
        gone.join("\n- "),
        new.join("\n+ ")
    );
}

/// The accessors carry their newest path into every later contract: no row was added.
#[test]
fn every_accessor_reads_the_current_contract() {
    let newest = Contract::current();
    for field in [infra_machine_pool::PROVISIONED, infra_machine::PROVISIONED] {
        assert_eq!(field.at(newest), field.at(Contract::V1Beta2));
    }
    assert_eq!(
        infra_machine_pool::INITIALIZATION.at(newest),
        infra_machine_pool::INITIALIZATION.at(Contract::V1Beta2)
    );
    assert!(infra_machine_pool::FAILURE_REASON.at(newest).is_none());
}

/// The version policy, from the one list: the newest contract is current, older ones down to
/// `Contract::OLDEST_READ` are read under the compatibility, and a provider without the
/// current contract is told so.
#[test]
fn the_newest_contract_is_current_and_the_policy_follows() {
    let newest = *Contract::ALL.last().unwrap();
    assert_eq!(Contract::current(), newest);
    assert_eq!(newest.as_str().parse::<Contract>(), Ok(newest));
    // The made-up contract is compiled in (the feature of this crate or of capi-contract).
    let next = newest.as_str() == "v1beta3";
    // capi-dev's DevMachinePool CRDs are labelled for v1beta2 (and v1beta1, a version the CRD
    // does not have).
    let report = check(PROVIDERS[0].1, None);
    let of = |rule: &str| -> Vec<&capi_contract_check::Finding> {
        report
            .findings
            .iter()
            .filter(|f| f.rule.id == rule)
            .collect()
    };
    assert_eq!(of("deprecated-contract").len(), 2);
    for f in of("deprecated-contract") {
        assert_eq!(f.contract, newest, "{f:?}");
        if next {
            assert_eq!(f.outcome, Outcome::Warn, "{f:?}");
            assert!(
                f.message.starts_with(
                    "only the deprecated v1beta2 and v1beta1 contracts are implemented"
                ),
                "{f:?}"
            );
            assert!(
                f.fix.contains("cluster.x-k8s.io/v1beta3: <version>"),
                "{f:?}"
            );
        } else {
            assert_eq!(f.outcome, Outcome::Pass, "{f:?}");
        }
    }
    // A v1beta1-only provider (CAPZ) is still read (the compatibility ends when
    // `Contract::OLDEST_READ` moves, not when a contract is added) and still told that it
    // implements only a deprecated contract.
    let capz = check(&["tests/fixtures/provider-trees/capz/config/crd"], None);
    let pool = |rule: &str| {
        capz.findings
            .iter()
            .find(|f| {
                f.rule.id == rule
                    && f.subject.to_string() == "azuremachinepools.infrastructure.cluster.x-k8s.io"
            })
            .unwrap()
    };
    assert_eq!(pool("contract-label").outcome, Outcome::Pass);
    let deprecated = pool("deprecated-contract");
    assert_eq!(deprecated.outcome, Outcome::Warn, "{deprecated:?}");
    assert!(
        deprecated
            .message
            .contains("only the deprecated v1beta1 contract")
    );
    assert!(
        deprecated
            .fix
            .contains(&format!("{}: <version>", newest.label()))
    );
    assert_eq!(
        Contract::current().compatible().last(),
        Some(&Contract::OLDEST_READ)
    );
    // Every finding's rule applies to the finding's contract (the column is enforced).
    for (_, inputs, objects) in PROVIDERS {
        for only in [None, Some(Contract::V1Beta1), Some(Contract::V1Beta2)] {
            for f in &check_with_objects(inputs, *objects, only).findings {
                assert!(f.rule.applies_to_contract(f.contract), "{f:?}");
            }
        }
    }
}
