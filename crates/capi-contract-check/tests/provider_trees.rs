//! On every real provider tree (`tests/fixtures/provider-trees`), `check DIR` gives the
//! verdicts that `check` gives on what a real kustomize renders from it (`rendered.yaml`,
//! made with `kubectl kustomize`, see the README there): every CRD, every rule, every outcome.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::collections::BTreeSet;

use capi_contract_check::{CheckOptions, Outcome, Report, Target, check_documents};
use capi_manifests::{Limits, load::load};
use capi_test_support::fixture;

fn check(path: &str, opts: &CheckOptions) -> Report {
    let loaded = load(&[fixture(path)], Limits::default()).unwrap();
    check_documents(loaded.documents, &loaded.notes, opts)
}

/// `(subject, rule, outcome)` of every CRD finding (kustomization notes left out: the rendered
/// bundle has no kustomization).
fn verdicts(report: &Report) -> BTreeSet<(String, &'static str, Outcome)> {
    report
        .findings
        .iter()
        .filter(|f| !matches!(f.subject.target, Target::Kustomization { .. }))
        .map(|f| (f.subject.target.to_string(), f.rule.id, f.outcome))
        .collect()
}

#[test]
fn directory_verdicts_equal_rendered_verdicts() {
    for tree in ["capz", "capa", "capi-dev"] {
        for opts in [
            CheckOptions::default(),
            CheckOptions {
                v1beta1_compat: false,
                ..CheckOptions::default()
            },
        ] {
            let dir = check(&format!("provider-trees/{tree}/config/crd"), &opts);
            let rendered = check(&format!("provider-trees/{tree}/rendered.yaml"), &opts);
            let (d, r) = (verdicts(&dir), verdicts(&rendered));
            assert_eq!(
                d.difference(&r).collect::<Vec<_>>(),
                Vec::<&(String, &str, Outcome)>::new(),
                "{tree}: only in the directory check"
            );
            assert_eq!(
                r.difference(&d).collect::<Vec<_>>(),
                Vec::<&(String, &str, Outcome)>::new(),
                "{tree}: only in the rendered check"
            );
            assert_eq!(dir.skipped.len(), rendered.skipped.len(), "{tree}");
            assert!(!d.is_empty());
        }
    }
}

#[test]
fn azure_pools_pass_the_contract_label_rules() {
    let report = check("provider-trees/capz/config/crd", &CheckOptions::default());
    let label_rules: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.rule.id.starts_with("contract-label"))
        .collect();
    assert!(!label_rules.is_empty());
    for f in label_rules {
        assert_eq!(
            f.outcome,
            Outcome::Pass,
            "{} {}: {}",
            f.subject,
            f.rule.id,
            f.message
        );
    }
    assert!(report.passes(), "{report}");
}

#[test]
fn findings_name_the_file_and_line_they_come_from() {
    let report = check("provider-trees/capz/config/crd", &CheckOptions::default());
    let pool = report
        .findings
        .iter()
        .find(|f| f.subject.to_string() == "azuremachinepools.infrastructure.cluster.x-k8s.io")
        .unwrap();
    let source = pool.subject.source.as_ref().unwrap();
    assert!(
        source
            .file
            .ends_with("bases/infrastructure.cluster.x-k8s.io_azuremachinepools.yaml"),
        "{source}"
    );
    assert_eq!(
        (source.document, source.line),
        (0, 2),
        "the document starts after its `---` line"
    );
    // Kustomization fields that were not emulated are named, as INFO.
    let note = report
        .findings
        .iter()
        .find(|f| f.rule.id == "kustomize-rendering")
        .unwrap();
    assert_eq!(
        (note.outcome, note.path.as_str()),
        (Outcome::Info, "configurations")
    );
}
