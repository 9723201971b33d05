//! Table-driven tests of aggregate, summary and mirror: ties, unknowns, negative polarity,
//! indentation and truncation ("and N more"), with the vectors upstream's tests use.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_conditions::aggregate::{AggregateOptions, aggregate};
use capi_conditions::merge::MergeError;
use capi_conditions::mirror::{Fallback, MirrorOptions, mirror};
use capi_conditions::summary::{SummaryOptions, summary};
use capi_conditions::{ConditionSet, ConditionSource, new_condition};

fn objs(type_: &str, rows: &[(&str, &str)]) -> Vec<ConditionSet> {
    rows.iter()
        .enumerate()
        .map(|(i, (status, message))| ConditionSet {
            kind: "Phase3Obj".into(),
            name: format!("obj{i}"),
            conditions: if status.is_empty() {
                vec![]
            } else {
                vec![new_condition(
                    type_,
                    status,
                    &format!("Reason-{i}"),
                    message,
                )]
            },
            ..Default::default()
        })
        .collect()
}

fn agg(
    type_: &str,
    rows: &[(&str, &str)],
    opts: &AggregateOptions,
) -> Result<(String, String, String), MergeError> {
    let objects = objs(type_, rows);
    let refs: Vec<&dyn ConditionSource> =
        objects.iter().map(|o| o as &dyn ConditionSource).collect();
    aggregate(&refs, type_, opts).map(|c| (c.status, c.reason, c.message))
}

#[test]
fn aggregate_vectors() {
    let d = AggregateOptions::default();
    type Case = (
        &'static str,
        Vec<(&'static str, &'static str)>,
        &'static str,
        &'static str,
    );
    let cases: Vec<Case> = vec![
        (
            "one issue",
            vec![("False", "Message-1"), ("True", "Message-99")],
            "False",
            "* Phase3Obj obj0: Message-1",
        ),
        (
            "same issue from three",
            vec![
                ("False", "Message-1"),
                ("False", "Message-1"),
                ("False", "Message-1"),
                ("True", "Message-99"),
            ],
            "False",
            "* Phase3Objs obj0, obj1, obj2: Message-1",
        ),
        (
            "same issue from more than three",
            vec![("False", "Message-1"); 5]
                .into_iter()
                .chain([("True", "Message-99")])
                .collect(),
            "False",
            "* Phase3Objs obj0, obj1, obj2, ... (2 more): Message-1",
        ),
        (
            "three messages ordered by owner count",
            vec![
                ("False", "Message-1"),
                ("False", "Message-2"),
                ("False", "Message-2"),
                ("False", "Message-1"),
                ("False", "Message-1"),
                ("False", "Message-3"),
                ("True", "Message-99"),
            ],
            "False",
            "* Phase3Objs obj0, obj3, obj4: Message-1\n* Phase3Objs obj1, obj2: Message-2\n* Phase3Obj obj5: Message-3",
        ),
        (
            "list messages are indented",
            vec![
                ("False", "* Message-1"),
                ("False", "* Message-2A\n* Message-2B"),
                ("False", "* Message-2A\n* Message-2B"),
                ("False", "* Message-1"),
                ("False", "* Message-1"),
                ("False", "* Message-3"),
                ("True", "Message-99"),
            ],
            "False",
            "* Phase3Objs obj0, obj3, obj4:\n  * Message-1\n* Phase3Objs obj1, obj2:\n  * Message-2A\n  * Message-2B\n* Phase3Obj obj5:\n  * Message-3",
        ),
        (
            "more than three messages: ties by owner names, then a count",
            vec![
                ("False", "Message-1"),
                ("False", "Message-2"),
                ("False", "Message-4"),
                ("False", "Message-5"),
                ("False", "Message-1"),
                ("False", "Message-3"),
                ("True", "Message-99"),
            ],
            "False",
            "* Phase3Objs obj0, obj4: Message-1\n* Phase3Obj obj1: Message-2\n* Phase3Obj obj2: Message-4\nAnd 2 Phase3Objs with other issues",
        ),
        (
            "issues and an unknown within budget",
            vec![
                ("False", "Message-1"),
                ("False", "Message-2"),
                ("Unknown", "Message-3"),
                ("True", "Message-99"),
            ],
            "False",
            "* Phase3Obj obj0: Message-1\n* Phase3Obj obj1: Message-2\n* Phase3Obj obj2: Message-3",
        ),
        (
            "issues first, unknown counted",
            vec![
                ("False", "Message-1"),
                ("False", "Message-2"),
                ("Unknown", "Message-3"),
                ("False", "Message-4"),
                ("True", "Message-99"),
            ],
            "False",
            "* Phase3Obj obj0: Message-1\n* Phase3Obj obj1: Message-2\n* Phase3Obj obj3: Message-4\nAnd 1 Phase3Obj with status unknown",
        ),
        (
            "issues and unknowns counted separately",
            vec![
                ("False", "Message-1"),
                ("False", "Message-2"),
                ("Unknown", "Message-3"),
                ("False", "Message-4"),
                ("False", "Message-5"),
                ("False", "Message-6"),
                ("True", "Message-99"),
            ],
            "False",
            "* Phase3Obj obj0: Message-1\n* Phase3Obj obj1: Message-2\n* Phase3Obj obj3: Message-4\nAnd 2 Phase3Objs with other issues\nAnd 1 Phase3Obj with status unknown",
        ),
        (
            "missing condition is not yet reported",
            vec![("True", ""), ("", "")],
            "Unknown",
            "* Phase3Obj obj1: Condition Available not yet reported",
        ),
        (
            "only infos: messages kept, empty ones dropped",
            vec![("True", "Message-1"), ("True", ""), ("True", "Message-1")],
            "True",
            "* Phase3Objs obj0, obj2: Message-1",
        ),
        (
            "all info without messages",
            vec![("True", ""), ("True", "")],
            "True",
            "",
        ),
    ];
    for (name, rows, status, message) in cases {
        let (s, _, m) = agg("Available", &rows, &d).unwrap();
        assert_eq!((s.as_str(), m.as_str()), (status, message), "{name}");
    }
}

#[test]
fn aggregate_negative_polarity_and_errors() {
    let neg = AggregateOptions {
        negative_polarity: vec!["ScalingUp".into()],
        ..Default::default()
    };
    let (status, reason, message) = agg(
        "ScalingUp",
        &[("True", "Message-1"), ("False", "Message-99")],
        &neg,
    )
    .unwrap();
    assert_eq!(
        (status.as_str(), reason.as_str(), message.as_str()),
        ("True", "IssuesReported", "* Phase3Obj obj0: Message-1")
    );
    let bad = AggregateOptions {
        negative_polarity: vec!["Other".into()],
        ..Default::default()
    };
    assert_eq!(
        agg("ScalingUp", &[("True", "m")], &bad),
        Err(MergeError::InvalidNegativePolarity("ScalingUp".into()))
    );
    assert_eq!(
        aggregate(&[], "Ready", &AggregateOptions::default()),
        Err(MergeError::NoSourceObjects)
    );
    let info = agg("Available", &[("True", "")], &AggregateOptions::default()).unwrap();
    assert_eq!(info.1, "InfoReported");
    let unknown = agg(
        "Available",
        &[("Unknown", "x"), ("True", "")],
        &AggregateOptions::default(),
    )
    .unwrap();
    assert_eq!(
        (unknown.0.as_str(), unknown.1.as_str()),
        ("Unknown", "UnknownReported")
    );
}

fn obj(conditions: &[(&str, &str, &str, &str)]) -> ConditionSet {
    ConditionSet {
        kind: "Phase3Obj".into(),
        name: "obj".into(),
        conditions: conditions
            .iter()
            .map(|(t, s, r, m)| new_condition(t, s, r, m))
            .collect(),
        ..Default::default()
    }
}

fn types(t: &[&str]) -> Vec<String> {
    t.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn summary_vectors() {
    let neg = types(&["!C"]);
    let opts = |f: &[&str]| SummaryOptions {
        for_condition_types: types(f),
        negative_polarity: neg.clone(),
        ..Default::default()
    };
    let cases: Vec<(&str, ConditionSet, SummaryOptions, &str, &str)> = vec![
        (
            "negative polarity issue",
            obj(&[
                ("B", "True", "Reason-B", ""),
                ("!C", "True", "Reason-!C", "Message-!C"),
            ]),
            opts(&["B", "!C"]),
            "False",
            "* !C: Message-!C",
        ),
        (
            "reason when message empty",
            obj(&[
                ("B", "True", "Reason-B", ""),
                ("!C", "True", "Reason-!C", ""),
            ]),
            opts(&["B", "!C"]),
            "False",
            "* !C: Reason-!C",
        ),
        (
            "multiline messages in type order",
            obj(&[
                ("B", "False", "Reason-B", "Message-B"),
                ("!C", "True", "Reason-!C", "Message-!C1\nMessage-!C2"),
                ("D", "Unknown", "Reason-D", "Message-D\n* More message-D"),
            ]),
            opts(&["B", "!C", "D"]),
            "False",
            "* B: Message-B\n* !C:\n  * Message-!C1\n  * Message-!C2\n* D:\n  * Message-D\n    * More message-D",
        ),
        (
            "infos hidden unless all good",
            obj(&[("A", "True", "Ok", "all fine"), ("B", "Unknown", "Hm", "")]),
            opts(&["A", "B"]),
            "Unknown",
            "* B: Hm",
        ),
        (
            "all good lists info messages",
            obj(&[("A", "True", "Ok", "all fine"), ("B", "True", "Ok", "")]),
            opts(&["A", "B"]),
            "True",
            "* A: all fine",
        ),
        (
            "missing counts as unknown",
            obj(&[("A", "True", "Ok", "")]),
            opts(&["A", "B"]),
            "Unknown",
            "* B: Condition not yet reported",
        ),
        (
            "missing can be ignored",
            obj(&[("A", "True", "Ok", "")]),
            SummaryOptions {
                ignore_types_if_missing: types(&["B"]),
                ..opts(&["A", "B"])
            },
            "True",
            "",
        ),
    ];
    for (name, o, opts, status, message) in cases {
        let c = summary(&o, "Ready", &opts).unwrap();
        assert_eq!(
            (c.status.as_str(), c.message.as_str()),
            (status, message),
            "{name}"
        );
    }
}

#[test]
fn summary_overrides_and_errors() {
    let o = obj(&[("A", "False", "Bad", "broken")]);
    let opts = SummaryOptions {
        for_condition_types: types(&["A"]),
        override_conditions: vec![new_condition("A", "True", "Fine", "")],
        ..Default::default()
    };
    assert_eq!(summary(&o, "Ready", &opts).unwrap().status, "True");
    let missing = SummaryOptions {
        override_conditions: vec![new_condition("Z", "True", "R", "")],
        ..opts.clone()
    };
    assert_eq!(
        summary(&o, "Ready", &missing),
        Err(MergeError::OverrideMissing("Z".into()))
    );
    let dup = SummaryOptions {
        override_conditions: vec![new_condition("A", "True", "R", ""); 2],
        ..opts.clone()
    };
    assert_eq!(
        summary(&o, "Ready", &dup),
        Err(MergeError::DuplicateOverride("A".into()))
    );
    assert_eq!(
        summary(&o, "Ready", &SummaryOptions::default()),
        Err(MergeError::NoConditionTypes)
    );
    let target = SummaryOptions {
        for_condition_types: types(&["Ready"]),
        ..Default::default()
    };
    assert_eq!(
        summary(&o, "Ready", &target),
        Err(MergeError::TargetInSources("Ready".into()))
    );
    let empty = SummaryOptions {
        for_condition_types: types(&["B"]),
        ignore_types_if_missing: types(&["B"]),
        ..Default::default()
    };
    assert_eq!(summary(&o, "Ready", &empty), Err(MergeError::EmptySummary));
}

#[test]
fn mirror_cases() {
    let src = obj(&[("Ready", "False", "NotReady", "waiting")]);
    let to = |t: &str| MirrorOptions {
        target_type: Some(t.into()),
        ..Default::default()
    };
    let c = mirror(&src, "Ready", &to("InfrastructureReady"));
    assert_eq!(
        (
            c.type_.as_str(),
            c.status.as_str(),
            c.reason.as_str(),
            c.message.as_str()
        ),
        ("InfrastructureReady", "False", "NotReady", "waiting")
    );
    let none = obj(&[]);
    let c = mirror(&none, "Ready", &MirrorOptions::default());
    assert_eq!(
        (c.status.as_str(), c.reason.as_str(), c.message.as_str()),
        (
            "Unknown",
            "NotYetReported",
            "Condition Ready not yet reported"
        )
    );
    let fb = MirrorOptions {
        fallback: Some(Fallback {
            status: "True".into(),
            reason: "Ready".into(),
            message: String::new(),
        }),
        ..to("X")
    };
    let c = mirror(&none, "Ready", &fb);
    assert_eq!(
        (c.type_.as_str(), c.status.as_str(), c.reason.as_str()),
        ("X", "True", "Ready")
    );
    let empty_fallback = MirrorOptions {
        fallback: Some(Fallback::default()),
        ..Default::default()
    };
    assert_eq!(
        mirror(&none, "Ready", &empty_fallback).status,
        "Unknown",
        "an empty fallback status means no fallback"
    );
}
