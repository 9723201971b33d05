//! Adding a contract version is one line (issue 64). The build with the `test-next-contract`
//! feature adds a made-up `v1beta3` that changes no field, by one line in
//! `capi_contract::Contract` and nothing else; v1beta3 is then the current contract and the
//! compatibility window of the current core is v1beta3 and v1beta2 (docs/architecture.md).
//!
//! What must hold in both builds: every verdict on the providers that implement v1beta2 (the
//! whole capi-dev tree and CAPD v1.11.0 with its objects), by default and with
//! `--only-contract v1beta2`, is the same, except the version-policy rules, which must
//! change exactly as the policy says: a v1beta2-only provider now implements only a
//! deprecated contract, and a v1beta1 label is outside the window. The verdicts are a golden
//! file written by the normal build (`UPDATE_GOLDEN=1`).
//!
//! CI runs this file twice: in `cargo test --workspace` and with
//! `cargo test -p capi-contract-check --features test-next-contract --test next_contract`.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::fmt::Write as _;

use capi_contract::Contract;
use capi_contract::fields::{infra_machine, infra_machine_pool};
use capi_contract_check::{CheckOptions, Checker, Outcome, Report};
use capi_manifests::{Limits, load::load};

/// A provider that implements the v1beta2 contract and no other (the whole capi-dev tree),
/// and objects of its kinds (`--objects`).
const V1BETA2_PROVIDERS: &[(&str, &[&str])] = &[(
    "capi-dev",
    &["tests/fixtures/provider-trees/capi-dev/config/crd"],
)];
const V1BETA2_OBJECTS: &str = "examples/devmachinepool-duplicate-ids.yaml";

/// The rules that state the version policy itself (which contract is current, which labels a
/// core reads): they change with a new contract, by design.
const POLICY_RULES: &[&str] = &[
    "contract-label",
    "contract-label-versions",
    "contract-label-served",
    "deprecated-contract",
];

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

fn v1beta2_verdicts() -> String {
    let mut out = String::new();
    for (name, inputs) in V1BETA2_PROVIDERS {
        for only in [None, Some(Contract::V1Beta2)] {
            let flag = only.map_or("default".to_owned(), |c| format!("--only-contract {c}"));
            let report = check_with_objects(inputs, Some(V1BETA2_OBJECTS), only);
            writeln!(out, "# {name} {flag}\n{}", verdicts(&report)).unwrap();
        }
    }
    out
}

const GOLDEN: &str = "tests/fixtures/next-contract/v1beta2-verdicts.txt";

/// The normal build writes the golden file when `UPDATE_GOLDEN=1`, and both builds compare.
#[test]
fn v1beta2_verdicts_are_the_same_in_both_builds() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN);
    let now = v1beta2_verdicts();
    if std::env::var_os("UPDATE_GOLDEN").is_some() && !cfg!(feature = "test-next-contract") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &now).unwrap();
    }
    let golden = std::fs::read_to_string(&path).unwrap();
    assert!(
        golden.lines().count() > 50,
        "{} lines",
        golden.lines().count()
    );
    let gone: Vec<&str> = golden.lines().filter(|l| !now.contains(l)).collect();
    let new: Vec<&str> = now.lines().filter(|l| !golden.contains(l)).collect();
    assert!(
        gone.is_empty() && new.is_empty() && golden == now,
        "v1beta2 verdicts differ from {GOLDEN} (UPDATE_GOLDEN=1 in the normal build)\n- {}\n+ {}",
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

/// The version policy, from the one list: the newest contract is current, the one before it
/// is read under the compatibility, a provider without the current contract is told so, and a
/// label outside the window is not read.
#[test]
fn the_newest_contract_is_current_and_the_policy_follows() {
    let newest = *Contract::ALL.last().unwrap();
    assert_eq!(Contract::current(), newest);
    assert_eq!(newest.as_str().parse::<Contract>(), Ok(newest));
    let next = cfg!(feature = "test-next-contract");
    // capi-dev's DevMachinePool CRDs are labelled for v1beta2 (and v1beta1, a version the CRD
    // does not have).
    let report = check(V1BETA2_PROVIDERS[0].1, None);
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
                f.message.contains("only the deprecated v1beta2 contract"),
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
    for f in of("contract-label") {
        let read = if next {
            "[\"v1beta2\"]"
        } else {
            "[\"v1beta2\", \"v1beta1\"]"
        };
        assert_eq!(f.message, format!("labels for {read}"), "{f:?}");
    }
    // A v1beta1-only provider (CAPZ) leaves the window of a v1beta3 core.
    let capz = check(&["tests/fixtures/provider-trees/capz/config/crd"], None);
    let label = capz
        .findings
        .iter()
        .find(|f| {
            f.rule.id == "contract-label" && f.subject.to_string().starts_with("azuremachinepools.")
        })
        .unwrap();
    if next {
        assert_eq!(label.outcome, Outcome::Fail, "{label:?}");
        assert!(
            label
                .message
                .starts_with("no contract label for v1beta3 or v1beta2"),
            "{label:?}"
        );
    } else {
        assert_eq!(label.outcome, Outcome::Pass, "{label:?}");
    }
    // Every finding's rule applies to the finding's contract (the column is enforced).
    for inputs in [
        &["tests/fixtures/provider-trees/capa/config/crd"][..],
        &["tests/fixtures/provider-trees/capz/config/crd"],
    ]
    .into_iter()
    .chain(V1BETA2_PROVIDERS.iter().map(|(_, i)| *i))
    {
        for only in [None, Some(Contract::V1Beta1), Some(Contract::V1Beta2)] {
            for f in &check(inputs, only).findings {
                assert!(f.rule.applies_to_contract(f.contract), "{f:?}");
            }
        }
    }
}
