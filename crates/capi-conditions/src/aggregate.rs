//! Aggregate: one condition type across many objects (e.g. `Ready` of every Machine).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;

use crate::access::ConditionSource;
use crate::merge::{MergeError, MergeInput, MergeStrategy, Operation, Owner, Reasons, merge};
use crate::setter::{get, new_condition};
use crate::types::{UNKNOWN, reason};

/// Options of [`aggregate`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AggregateOptions {
    /// Type of the result (default: the source type).
    pub target_type: Option<String>,
    /// Either empty or exactly `[source_type]` (the source type has negative polarity).
    pub negative_polarity: Vec<String>,
    /// Reasons of the result (default: IssuesReported / UnknownReported / InfoReported).
    pub reasons: Option<Reasons>,
    /// A custom merge strategy (upstream's `CustomMergeStrategy`): when set, it alone decides
    /// priorities, the result's polarity and reasons; `negative_polarity` above is then only
    /// validated, and `reasons` unused.
    pub merge_strategy: Option<MergeStrategy>,
}

impl AggregateOptions {
    /// The strategy in force: the custom one, or upstream's default, whose result has the
    /// source's polarity (aggregate.go: `TargetConditionHasPositivePolarity(!negative)`).
    fn strategy(&self) -> MergeStrategy {
        self.merge_strategy
            .clone()
            .unwrap_or_else(|| MergeStrategy {
                negative_polarity: self.negative_polarity.clone(),
                target_negative_polarity: !self.negative_polarity.is_empty(),
                reasons: self.reasons.clone().unwrap_or_default(),
                ..MergeStrategy::default()
            })
    }
}

/// Aggregates `source_type` over `objects`; an object without the condition counts as
/// Unknown / `NotYetReported`. The message lists at most three distinct messages with their
/// owners, then `And N <Kinds> with other issues` (see `docs/conditions.md`).
///
/// # Errors
/// No object, or an invalid negative-polarity option.
///
/// ```
/// use capi_conditions::{ConditionSet, new_condition, aggregate::{aggregate, AggregateOptions}};
/// let m = |name: &str, status: &str, msg: &str| ConditionSet { kind: "Machine".into(), name: name.into(),
///     conditions: vec![new_condition("Ready", status, "R", msg)], ..Default::default() };
/// let machines = [m("m1", "False", "Node not ready"), m("m2", "False", "Node not ready"), m("m3", "True", "")];
/// let objs: Vec<&dyn capi_conditions::ConditionSource> = machines.iter().map(|m| m as _).collect();
/// let c = aggregate(&objs, "Ready", &AggregateOptions::default()).unwrap();
/// assert_eq!(c.status, "False");
/// assert_eq!(c.message, "* Machines m1, m2: Node not ready");
/// ```
pub fn aggregate(
    objects: &[&dyn ConditionSource],
    source_type: &str,
    opts: &AggregateOptions,
) -> Result<Condition, MergeError> {
    if objects.is_empty() {
        return Err(MergeError::NoSourceObjects);
    }
    if !(opts.negative_polarity.is_empty() || opts.negative_polarity == [source_type]) {
        return Err(MergeError::InvalidNegativePolarity(source_type.to_owned()));
    }
    let inputs: Vec<MergeInput> = objects
        .iter()
        .map(|o| MergeInput {
            condition: get(*o, source_type).cloned().unwrap_or_else(|| {
                new_condition(
                    source_type,
                    UNKNOWN,
                    reason::NOT_YET_REPORTED,
                    &format!("Condition {source_type} not yet reported"),
                )
            }),
            owner: Owner {
                kind: o.object_kind().into_owned(),
                name: o.object_name().into_owned(),
                control_plane_machine: o.is_control_plane_machine(),
            },
        })
        .collect();
    let (status, reason, message) = merge(
        inputs,
        &[source_type.to_owned()],
        &opts.strategy(),
        Operation::Aggregate,
    )?;
    Ok(new_condition(
        opts.target_type.as_deref().unwrap_or(source_type),
        &status,
        &reason,
        &message,
    ))
}
