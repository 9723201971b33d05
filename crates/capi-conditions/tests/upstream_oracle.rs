//! `summary` and `mirror` against upstream's own `util/conditions` (Cluster API v1.14.2,
//! `NewSummaryCondition` and `NewMirrorCondition`, through the Go oracle `tests/go/oracle`):
//! generated condition lists (duplicated types, multi-line and bulleted messages, missing
//! types, negative polarity, ignored-if-missing types) must give the same condition, or both
//! an error.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_conditions::mirror::{Fallback, MirrorOptions, mirror};
use capi_conditions::summary::{SummaryOptions, summary};
use capi_conditions::{ConditionSet, new_condition};
use capi_test_support::oracle::{Answer, oracle};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;
use proptest::prelude::*;
use serde_json::{Value, json};

/// A small pool of types, so that lists repeat them and scopes hit and miss them.
const TYPES: [&str; 6] = [
    "Available",
    "Ready",
    "MachinesReady",
    "Deleting",
    "ScalingUp",
    "Paused",
];

fn condition() -> impl Strategy<Value = Condition> {
    (
        0usize..TYPES.len(),
        prop::sample::select(vec!["True", "False", "Unknown"]),
        prop_oneof![Just(String::new()), "[A-Z][A-Za-z]{0,8}"],
        prop_oneof![
            Just(String::new()),
            "[a-z <&]{1,12}",
            "[a-z]{1,6}\n[a-z]{1,6}",
            "\\* [a-z]{1,6}\n\\* [a-z]{1,6}",
            " [a-z]{1,4} \n\n  [a-z]{1,4}\n",
        ],
        prop::option::of(1i64..5),
        0i64..4_000_000_000,
    )
        .prop_map(|(t, status, reason, message, generation, secs)| {
            let mut c = new_condition(TYPES[t], status, &reason, &message);
            c.observed_generation = generation;
            c.last_transition_time = Time(Timestamp::from_second(secs).unwrap());
            c
        })
}

fn types() -> impl Strategy<Value = Vec<String>> {
    proptest::sample::subsequence(TYPES.to_vec(), 0..=TYPES.len())
        .prop_shuffle()
        .prop_map(|v| v.into_iter().map(str::to_owned).collect())
}

/// The parts of a condition both sides fill; the time as whole seconds (Go writes RFC 3339
/// seconds; a summary has none, which Go writes as `null`).
fn comparable(c: &Value) -> Value {
    let time = c["lastTransitionTime"]
        .as_str()
        .map(|t| t.parse::<Timestamp>().unwrap().as_second());
    json!({
        "type": c["type"], "status": c["status"], "reason": c["reason"],
        "message": c.get("message").cloned().unwrap_or_else(|| json!("")),
        "observedGeneration": c.get("observedGeneration").cloned().unwrap_or(Value::Null),
        "lastTransitionTime": time,
    })
}

/// 0001-01-01T00:00:00Z, Go's zero `time.Time`, in Unix seconds.
const GO_ZERO_TIME: i64 = -62_135_596_800;

fn ours_comparable(c: &Condition) -> Value {
    let mut v = serde_json::to_value(c).unwrap();
    if c.last_transition_time.0.as_second() == GO_ZERO_TIME {
        // `new_condition` leaves the time at Go's zero `time.Time`, which `metav1.Time`
        // writes as `null`.
        v["lastTransitionTime"] = Value::Null;
    }
    comparable(&v)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(capi_test_support::proptest_cases(256)))]

    #[test]
    fn summary_is_upstreams(
        conditions in proptest::collection::vec(condition(), 0..7),
        target in prop_oneof![Just("Ready"), Just("Available")],
        for_types in types(),
        negative in types(),
        ignore in types(),
    ) {
        let Some(oracle) = oracle() else { return Ok(()) };
        let obj = ConditionSet { conditions: conditions.clone(), ..Default::default() };
        let opts = SummaryOptions {
            for_condition_types: for_types.clone(),
            negative_polarity: negative.clone(),
            ignore_types_if_missing: ignore.clone(),
            ..Default::default()
        };
        let ours = summary(&obj, target, &opts);
        let theirs = oracle.call(&json!({
            "op": "conditions-summary", "conditions": conditions, "target": target,
            "for": for_types, "negative": negative, "ignoreMissing": ignore,
        }));
        match (ours, theirs) {
            (Err(_), Answer::Err(_)) => {}
            (Ok(c), Answer::Ok { value, .. }) => {
                prop_assert_eq!(ours_comparable(&c), comparable(&value));
            }
            (ours, theirs) => {
                prop_assert!(false, "ours {:?}, upstream {:?}", ours, theirs);
            }
        }
    }

    #[test]
    fn mirror_is_upstreams(
        conditions in proptest::collection::vec(condition(), 0..5),
        source in 0usize..TYPES.len(),
        target in prop::option::of(prop_oneof![Just("InfrastructureReady"), Just("Ready")]),
        fallback in prop::option::of((prop::sample::select(vec!["", "False", "Unknown"]), "[A-Z][a-z]{0,6}", "[a-z ]{0,8}")),
    ) {
        let Some(oracle) = oracle() else { return Ok(()) };
        let obj = ConditionSet { conditions: conditions.clone(), ..Default::default() };
        let opts = MirrorOptions {
            target_type: target.map(str::to_owned),
            fallback: fallback.clone().map(|(status, reason, message)| Fallback {
                status: status.to_owned(), reason, message,
            }),
        };
        let ours = mirror(&obj, TYPES[source], &opts);
        let mut request = json!({
            "op": "conditions-mirror", "conditions": conditions, "source": TYPES[source],
        });
        if let Some(t) = target {
            request["target"] = json!(t);
        }
        if let Some((status, reason, message)) = fallback {
            request["fallback"] = json!({"status": status, "reason": reason, "message": message});
        }
        let theirs = oracle.call(&request);
        prop_assert_eq!(ours_comparable(&ours), comparable(theirs.value()));
    }
}
