//! The CEL differential: mutants of real provider CRDs (families in
//! `common/mutants.rs`) judged by this crate and by upstream's own
//! `ValidateCustomResourceDefinition` (tests/go/kubeapiserver/crdvalidate): same verdict, same
//! field paths, same messages. A mutant this crate reports as not judged is counted, not
//! compared. Skips without Go unless `CAPI_REQUIRE_GO=1`.
//!
//! The mutants are the same every run; `CAPI_CEL_RANDOM=1` draws new ones.
//! `CAPI_CEL_DISAGREEMENTS=<file>` writes every disagreement of the run to the file (one JSON
//! line each) instead of failing at the first, to turn them into regression fixtures.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use common::mutants::{Base, FAMILIES, mutate};
use common::{Oracle, agrees, crd, ours};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Value, json};

fn bases() -> Vec<Base> {
    let root = capi_test_support::workspace_root().join("tests/fixtures/provider-trees");
    let mut files = Vec::new();
    for tree in std::fs::read_dir(&root).expect("provider trees").flatten() {
        let dir = tree.path().join("config/crd/bases");
        if let Ok(entries) = std::fs::read_dir(&dir) {
            files.extend(
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "yaml")),
            );
        }
    }
    files.sort();
    files
        .iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(f).ok()?;
            let doc: Value = serde_saphyr::from_str(&text).ok()?;
            Base::from_crd(&f.file_name()?.to_string_lossy(), &doc)
        })
        .collect()
}

#[derive(Default)]
struct Counts {
    mutants: AtomicUsize,
    agree: AtomicUsize,
    not_judged: AtomicUsize,
    disagree: AtomicUsize,
    static_errors: AtomicUsize,
}

/// An upstream error no CEL judgment is responsible for (a mutation that broke a bound
/// against an existing default, for example): such mutants are counted and left out.
fn static_error(e: &(String, String, String)) -> bool {
    let cel = e.1.contains("x-kubernetes-validations")
        || e.2
            .starts_with("x-kubernetes-validations estimated rule cost total")
        || (e.1.ends_with(".default") && e.0 == "FieldValueInvalid");
    !cel
}

#[test]
fn cel_mutants_agree_with_upstream() {
    let Some(oracle) = Oracle::start() else {
        return;
    };
    let all = bases();
    // Only bases the server accepts as they are, so every error comes from the mutation.
    let valid: Vec<Base> = all
        .into_iter()
        .filter(|b| {
            let verdict = oracle
                .lock()
                .expect("oracle")
                .judge(&crd(&b.group, &b.plural, &b.kind, &b.schema));
            verdict.is_empty()
        })
        .collect();
    assert!(valid.len() >= 10, "only {} valid bases", valid.len());
    let record = std::env::var_os("CAPI_CEL_DISAGREEMENTS");
    let counts = Counts::default();
    let reasons = std::sync::Mutex::new(std::collections::BTreeMap::<String, usize>::new());
    let per_family: Vec<AtomicUsize> = FAMILIES.iter().map(|_| AtomicUsize::new(0)).collect();
    let cases = capi_test_support::proptest_cases(600);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (0..valid.len(), 0..FAMILIES.len(), any::<u64>());
    let result = runner.run(&strategy, |(b, f, seed)| {
        let base = &valid[b];
        let m = mutate(base, f, seed);
        counts.mutants.fetch_add(1, Ordering::Relaxed);
        per_family[f].fetch_add(1, Ordering::Relaxed);
        let theirs = oracle.lock().expect("oracle").judge(&crd(&base.group, &base.plural, &base.kind, &m.schema));
        if theirs.iter().any(static_error) {
            counts.static_errors.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        }
        match ours(&m.schema) {
            Err(why) => {
                counts.not_judged.fetch_add(1, Ordering::Relaxed);
                let reason = why.split(": ").skip(1).collect::<Vec<_>>().join(": ");
                *reasons.lock().expect("reasons").entry(reason).or_default() += 1;
            }
            Ok(o) if agrees(&o, &theirs) => {
                counts.agree.fetch_add(1, Ordering::Relaxed);
            }
            Ok(o) => {
                counts.disagree.fetch_add(1, Ordering::Relaxed);
                let line = json!({"base": base.name, "family": m.family, "what": m.what, "ours": o, "upstream": theirs, "schema": m.schema});
                if let Some(path) = &record {
                    use std::io::Write;
                    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path).expect("record file");
                    writeln!(f, "{line}").expect("write record");
                } else {
                    prop_assert!(false, "{} mutant of {} ({}): ours {:?}, upstream {:?}", m.family, base.name, m.what, o, theirs);
                }
            }
        }
        Ok(())
    });
    let n = |a: &AtomicUsize| a.load(Ordering::Relaxed);
    eprintln!(
        "cel differential: {} mutants in {} families over {} bases: {} agree, {} not judged, {} disagree ({} left out: static errors)",
        n(&counts.mutants),
        FAMILIES.len(),
        valid.len(),
        n(&counts.agree),
        n(&counts.not_judged),
        n(&counts.disagree),
        n(&counts.static_errors)
    );
    for (f, c) in FAMILIES.iter().zip(&per_family) {
        eprintln!("  {f}: {}", n(c));
    }
    for (why, count) in reasons.lock().expect("reasons").iter() {
        eprintln!("  not judged {count}x: {why}");
    }
    if let Err(e) = result {
        panic!("{e}");
    }
    if record.is_none() {
        assert_eq!(n(&counts.disagree), 0);
    }
}
