//! Properties: `set` is idempotent, the order is total and stable, a summary of one condition
//! agrees with its mirror.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_conditions::mirror::{MirrorOptions, mirror};
use capi_conditions::order::{compare_types, sort};
use capi_conditions::summary::{SummaryOptions, summary};
use capi_conditions::{ConditionSet, new_condition, set};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;
use proptest::prelude::*;

fn type_() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("Available".to_owned()),
        Just("Ready".to_owned()),
        Just("Paused".to_owned()),
        Just("Deleting".to_owned()),
        Just("ScalingUp".to_owned()),
        Just("MachinesReady".to_owned()),
        "[A-Z][a-z]{0,6}",
    ]
}

/// Any type but `Ready` (the summary's target), by construction.
fn non_ready_type() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("Available".to_owned()),
        Just("Paused".to_owned()),
        Just("Deleting".to_owned()),
        Just("ScalingUp".to_owned()),
        Just("MachinesReady".to_owned()),
        "X[a-z]{0,6}",
    ]
}

fn condition() -> impl Strategy<Value = Condition> {
    condition_of(type_())
}

fn condition_of(types: impl Strategy<Value = String>) -> impl Strategy<Value = Condition> {
    (
        types,
        prop_oneof!["True", "False", "Unknown"],
        "[A-Z][a-z]{0,5}",
        "[a-zü<& ]{0,10}",
        // Year 1 to 9999, as metav1.Time prints them.
        -62_135_596_799i64..253_402_300_799,
    )
        .prop_map(|(t, s, r, m, secs)| {
            let mut c = new_condition(&t, &s, &r, &m);
            c.last_transition_time = Time(Timestamp::from_second(secs).unwrap());
            c
        })
}

fn now() -> Time {
    Time(Timestamp::from_second(1_800_000_000).unwrap())
}

proptest! {
    #[test]
    fn set_is_idempotent(initial in proptest::collection::vec(condition(), 0..6), c in condition(), generation in proptest::option::of(1i64..10)) {
        let mut obj = ConditionSet { generation, ..Default::default() };
        for i in initial { set(&mut obj, i, &now()); }
        set(&mut obj, c.clone(), &now());
        let snapshot = obj.clone();
        prop_assert!(!set(&mut obj, c, &now()), "second set reports no change");
        prop_assert_eq!(obj, snapshot);
    }

    #[test]
    fn order_is_total_and_stable(mut list in proptest::collection::vec(condition(), 0..12)) {
        for a in &list {
            for b in &list {
                let (ab, ba) = (compare_types(&a.type_, &b.type_), compare_types(&b.type_, &a.type_));
                prop_assert_eq!(ab, ba.reverse());
                prop_assert_eq!(ab == std::cmp::Ordering::Equal, a.type_ == b.type_);
            }
        }
        let original = list.clone();
        sort(&mut list);
        for w in list.windows(2) {
            prop_assert!(compare_types(&w[0].type_, &w[1].type_) != std::cmp::Ordering::Greater);
        }
        // Stable: equal types keep their relative order.
        for t in original.iter().map(|c| c.type_.clone()) {
            let before: Vec<_> = original.iter().filter(|c| c.type_ == t).collect();
            let after: Vec<_> = list.iter().filter(|c| c.type_ == t).collect();
            prop_assert_eq!(before, after);
        }
    }

    #[test]
    fn summary_of_one_condition_agrees_with_its_mirror(c in condition_of(non_ready_type()), negative in any::<bool>()) {
        let obj = ConditionSet { conditions: vec![c.clone()], ..Default::default() };
        let negative_polarity = if negative { vec![c.type_.clone()] } else { vec![] };
        let opts = SummaryOptions { for_condition_types: vec![c.type_.clone()], negative_polarity, ..Default::default() };
        let s = summary(&obj, "Ready", &opts).unwrap();
        let m = mirror(&obj, &c.type_, &MirrorOptions { target_type: Some("Ready".into()), ..Default::default() });
        // Same verdict; a negative-polarity type is inverted into the positive target.
        let expected = match (m.status.as_str(), negative) {
            ("True", true) => "False",
            ("False", true) => "True",
            (s, _) => s,
        };
        prop_assert_eq!(s.status.as_str(), expected);
        // The summary message carries the mirrored message (or its reason) for anything but a
        // silent info.
        if s.status != "True" || !m.message.is_empty() {
            let detail = if m.message.is_empty() { &m.reason } else { &m.message };
            prop_assert!(s.message.contains(detail.trim()), "{:?} in {:?}", detail, s.message);
        }
    }
}
