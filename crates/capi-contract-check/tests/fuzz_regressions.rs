//! Inputs found by the cargo-fuzz targets (`fuzz/`), kept as regression tests: each goes through
//! the same code path as its target and must give an answer, not a panic. Files named
//! `crash-*` once broke a target's assertion (see `fuzz/README.md`); the others are
//! coverage-increasing inputs the fuzzer kept.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_contract_check::{CheckOptions, Checker, CrdInput};
use capi_manifests::Limits;
use capi_manifests::load::documents;

#[test]
fn contract_check_inputs() {
    for (name, data) in capi_test_support::fuzz_inputs("contract_check") {
        let Ok(text) = std::str::from_utf8(&data) else {
            continue;
        };
        let Ok(docs) = documents(text, &name, &Limits::default()) else {
            continue;
        };
        let mut checker = Checker::new(CheckOptions::default());
        for d in &docs {
            checker.add_crd(&CrdInput::from(d.value.clone()));
            checker.add_object(&d.value, Some(&d.source));
        }
        let _ = checker.finish().to_string();
    }
}
