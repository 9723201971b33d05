//! The apimachinery strategies generate values the API server would hold: each reads back
//! from its own JSON unchanged ([`go_normalized::json`] is the identity on them), and the
//! shapes the module docs promise do occur.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_machinepool_testing::go_normalized;
use capi_machinepool_testing::strategies::{
    condition, duration, int_or_string, legacy_condition, meta, obj_ref, quantity, time,
};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use proptest::prelude::*;
use proptest::strategy::ValueTree;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn apimachinery_values_read_back_from_their_json(
        q in quantity(), i in int_or_string(), t in time(), d in duration(),
        r in obj_ref(), c in condition(), l in legacy_condition(),
    ) {
        prop_assert_eq!(go_normalized::json(&q).unwrap(), q);
        prop_assert_eq!(go_normalized::json(&i).unwrap(), i);
        prop_assert_eq!(go_normalized::json(&t).unwrap(), t);
        prop_assert_eq!(go_normalized::json(&d).unwrap(), d);
        prop_assert_eq!(go_normalized::json(&r).unwrap(), r);
        prop_assert_eq!(go_normalized::json(&c).unwrap(), c);
        prop_assert_eq!(go_normalized::json(&l).unwrap(), l);
    }

    /// A quantity is what `resource.ParseQuantity` accepts: an optional sign, digits with at
    /// most one point, then a suffix (binary `Ki`..`Ei`, decimal `m`, `k`, `M`..`E`, or an
    /// exponent `e`/`E` and digits) — apimachinery `pkg/api/resource/quantity.go`,
    /// "<quantity> ::= <signedNumber><suffix>".
    #[test]
    fn quantities_follow_the_apimachinery_grammar(q in quantity()) {
        let text = q.0.as_str();
        let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
        let digits_end = unsigned.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(unsigned.len());
        let (number, suffix) = unsigned.split_at(digits_end);
        prop_assert!(!number.is_empty() && number.matches('.').count() <= 1, "{text}");
        let decimal_exponent = suffix.len() > 1 && suffix.starts_with(['e', 'E']) && suffix[1..].chars().all(|c| c.is_ascii_digit());
        prop_assert!(
            ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "m", "k", "M", "G", "T", "P", "E"].contains(&suffix) || decimal_exponent,
            "{text}"
        );
    }
}

/// Both IntOrString forms, and metadata with and without labels, come out of a few hundred
/// draws (a strategy that never produced one would test nothing about it).
#[test]
fn both_forms_occur() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut ints, mut strings, mut labelled, mut unlabelled) = (0, 0, 0, 0);
    for _ in 0..300 {
        match int_or_string().new_tree(&mut runner).unwrap().current() {
            IntOrString::Int(_) => ints += 1,
            IntOrString::String(_) => strings += 1,
        }
        if meta()
            .new_tree(&mut runner)
            .unwrap()
            .current()
            .labels
            .is_some()
        {
            labelled += 1;
        } else {
            unlabelled += 1;
        }
    }
    assert!(ints > 0 && strings > 0 && labelled > 0 && unlabelled > 0);
}
