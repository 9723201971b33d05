//! Custom merge strategies (upstream's `CustomMergeStrategy` with `DefaultMergeStrategy`
//! options): the summary message transform, and a result whose polarity differs from the
//! source's. Rows ported from upstream's util/conditions tests, cited per row.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_conditions::aggregate::{AggregateOptions, aggregate};
use capi_conditions::merge::{
    MergeError, MergeStrategy, MessageTransform, Priority, PriorityFn, Reasons, priority,
};
use capi_conditions::summary::{SummaryOptions, summary};
use capi_conditions::{ConditionSet, ConditionSource, new_condition};

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// util/conditions/summary_test.go TestSummary: `toLowerMsg`.
fn to_lower() -> MessageTransform {
    MessageTransform::new(|lines| lines.into_iter().map(|l| l.to_lowercase()).collect())
}

/// util/conditions/summary_test.go TestSummary "More than one info (no issues, no unknown)"
/// (the row with `SummaryMessageTransformFunc(toLowerMsg)`), and the same conditions with
/// the default strategy, whose message is not transformed.
#[test]
fn summary_more_than_one_info_with_a_message_transform() {
    let obj = ConditionSet {
        conditions: vec![
            new_condition("B", "True", "Reason-B", "Message-B"),
            new_condition("A", "True", "Reason-A", ""),
            new_condition("!C", "False", "Reason-!C", "Message-!C"),
        ],
        ..Default::default()
    };
    let default_opts = SummaryOptions {
        for_condition_types: strings(&["A", "B", "!C"]),
        negative_polarity: strings(&["!C"]),
        ..Default::default()
    };
    let custom = SummaryOptions {
        merge_strategy: Some(MergeStrategy {
            negative_polarity: strings(&["!C"]),
            summary_message_transform: Some(to_lower()),
            ..MergeStrategy::default()
        }),
        ..default_opts.clone()
    };
    let rows = [
        (&custom, "* b: message-b\n* !c: message-!c"),
        (&default_opts, "* B: Message-B\n* !C: Message-!C"),
    ];
    for (opts, message) in rows {
        let c = summary(&obj, "Available", opts).unwrap();
        assert_eq!(
            (
                c.type_.as_str(),
                c.status.as_str(),
                c.reason.as_str(),
                c.message.as_str()
            ),
            ("Available", "True", "InfoReported", message)
        );
    }
}

/// The transform sees the lines of issues too (summary_message in upstream's
/// merge_strategies.go applies it to whatever lines it kept).
#[test]
fn summary_transform_applies_to_issue_lines() {
    let obj = ConditionSet {
        conditions: vec![
            new_condition("A", "False", "Reason-A", "Message-A"),
            new_condition("B", "True", "Reason-B", "Message-B"),
        ],
        ..Default::default()
    };
    let opts = SummaryOptions {
        for_condition_types: strings(&["A", "B"]),
        merge_strategy: Some(MergeStrategy {
            summary_message_transform: Some(to_lower()),
            ..MergeStrategy::default()
        }),
        ..Default::default()
    };
    let c = summary(&obj, "Available", &opts).unwrap();
    assert_eq!(
        (c.status.as_str(), c.reason.as_str(), c.message.as_str()),
        ("False", "IssuesReported", "* a: message-a")
    );
}

fn scaling_up_objects() -> Vec<ConditionSet> {
    [
        ("True", "Reason-1", "Message-1"),
        ("False", "Reason-99", "Message-99"),
    ]
    .iter()
    .enumerate()
    .map(|(i, (status, reason, message))| ConditionSet {
        kind: "Phase3Obj".into(),
        name: format!("obj{i}"),
        conditions: vec![new_condition("ScalingUp", status, reason, message)],
        ..Default::default()
    })
    .collect()
}

/// util/conditions/aggregate_test.go TestAggregate "One issue with custom merge strategy"
/// and "One issue with custom merge strategy (negative polarity)": the source ScalingUp has
/// negative polarity; the custom strategy's target polarity decides the result's status.
#[test]
fn aggregate_one_issue_with_custom_merge_strategy() {
    let objects = scaling_up_objects();
    let refs: Vec<&dyn ConditionSource> =
        objects.iter().map(|o| o as &dyn ConditionSource).collect();
    let rows = [
        (
            false,
            Reasons::new("bad", "unknown", "good"),
            "False",
            "bad",
        ),
        (true, Reasons::new("good", "unknown", "bad"), "True", "good"),
    ];
    for (target_negative_polarity, reasons, status, reason) in rows {
        let opts = AggregateOptions {
            negative_polarity: strings(&["ScalingUp"]),
            merge_strategy: Some(MergeStrategy {
                negative_polarity: strings(&["ScalingUp"]),
                target_negative_polarity,
                reasons,
                ..MergeStrategy::default()
            }),
            ..Default::default()
        };
        let c = aggregate(&refs, "ScalingUp", &opts).unwrap();
        assert_eq!(
            (
                c.type_.as_str(),
                c.status.as_str(),
                c.reason.as_str(),
                c.message.as_str()
            ),
            ("ScalingUp", status, reason, "* Phase3Obj obj0: Message-1"),
            "target negative polarity: {target_negative_polarity}"
        );
    }
}

/// aggregate.go validates NegativePolarityConditionTypes before it looks at the strategy.
#[test]
fn aggregate_validates_negative_polarity_with_a_custom_strategy() {
    let objects = scaling_up_objects();
    let refs: Vec<&dyn ConditionSource> =
        objects.iter().map(|o| o as &dyn ConditionSource).collect();
    let opts = AggregateOptions {
        negative_polarity: strings(&["Other"]),
        merge_strategy: Some(MergeStrategy::default()),
        ..Default::default()
    };
    assert_eq!(
        aggregate(&refs, "ScalingUp", &opts).unwrap_err(),
        MergeError::InvalidNegativePolarity("ScalingUp".into())
    );
}

/// A priority function of the caller's replaces the default priorities, as core's
/// core/reconcilers/machine/machine_controller_status.go machineConditionCustomMergeStrategy
/// does: while the Machine is deleting, an InfrastructureReady False with reason
/// `InfrastructureDeleted` is info, anything else keeps the default priority.
#[test]
fn summary_with_a_custom_priority_function() {
    let obj = ConditionSet {
        conditions: vec![
            new_condition("BootstrapConfigReady", "True", "Ready", ""),
            new_condition(
                "InfrastructureReady",
                "False",
                "InfrastructureDeleted",
                "deleted",
            ),
        ],
        ..Default::default()
    };
    let deleting = PriorityFn::new(|c| {
        if c.type_ == "InfrastructureReady" && c.reason == "InfrastructureDeleted" {
            Priority::Info
        } else {
            priority(c, &[])
        }
    });
    let opts = |custom: Option<PriorityFn>| SummaryOptions {
        for_condition_types: strings(&["BootstrapConfigReady", "InfrastructureReady"]),
        merge_strategy: Some(MergeStrategy {
            priority: custom,
            reasons: Reasons::new("NotReady", "ReadyUnknown", "Ready"),
            ..MergeStrategy::default()
        }),
        ..Default::default()
    };
    let rows = [
        (
            Some(deleting),
            "True",
            "Ready",
            "* InfrastructureReady: deleted",
        ),
        (None, "False", "NotReady", "* InfrastructureReady: deleted"),
    ];
    for (custom, status, reason, message) in rows {
        let c = summary(&obj, "Ready", &opts(custom)).unwrap();
        assert_eq!(
            (c.status.as_str(), c.reason.as_str(), c.message.as_str()),
            (status, reason, message)
        );
    }
}
