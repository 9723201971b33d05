//! Summary: several condition types of one object into one (e.g. `Available`).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;

use crate::access::ConditionSource;
use crate::merge::{MergeError, MergeInput, MergeStrategy, Operation, Owner, Reasons, merge};
use crate::setter::new_condition;
use crate::types::{UNKNOWN, reason};

/// Options of [`summary`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SummaryOptions {
    /// The condition types to summarise, in message order (required, not the target).
    pub for_condition_types: Vec<String>,
    /// Types with negative polarity (True is an issue).
    pub negative_polarity: Vec<String>,
    /// Types that are left out (instead of counting as Unknown) when missing.
    pub ignore_types_if_missing: Vec<String>,
    /// Conditions used instead of the object's own ones of the same type (which must exist).
    pub override_conditions: Vec<Condition>,
    /// Reasons of the result.
    pub reasons: Option<Reasons>,
    /// A custom merge strategy (upstream's `CustomMergeStrategy`): when set, it alone decides
    /// priorities, the result's polarity, reasons and message transform; `negative_polarity`
    /// and `reasons` above are then unused.
    pub merge_strategy: Option<MergeStrategy>,
}

impl SummaryOptions {
    /// The strategy in force: the custom one, or upstream's default built from
    /// `negative_polarity` and `reasons` (summary.go: `DefaultMergeStrategy(GetPriorityFunc(
    /// GetDefaultMergePriorityFunc(negativePolarityConditionTypes...)))`).
    fn strategy(&self) -> MergeStrategy {
        self.merge_strategy
            .clone()
            .unwrap_or_else(|| MergeStrategy {
                negative_polarity: self.negative_polarity.clone(),
                reasons: self.reasons.clone().unwrap_or_default(),
                ..MergeStrategy::default()
            })
    }
}

/// Summarises the object's conditions `for_condition_types` into `target_type`. A missing
/// type counts as Unknown / `NotYetReported` / "Condition not yet reported" unless ignored.
///
/// # Errors
/// Invalid options, an override of a missing condition, or an empty scope.
///
/// ```
/// use capi_conditions::{ConditionSet, new_condition, summary::{summary, SummaryOptions}};
/// let obj = ConditionSet { conditions: vec![new_condition("A", "True", "Ok", ""), new_condition("B", "False", "Broken", "disk full")], ..Default::default() };
/// let opts = SummaryOptions { for_condition_types: vec!["A".into(), "B".into()], ..Default::default() };
/// let c = summary(&obj, "Ready", &opts).unwrap();
/// assert_eq!((c.status.as_str(), c.reason.as_str(), c.message.as_str()), ("False", "IssuesReported", "* B: disk full"));
/// ```
pub fn summary<T: ConditionSource + ?Sized>(
    obj: &T,
    target_type: &str,
    opts: &SummaryOptions,
) -> Result<Condition, MergeError> {
    if opts.for_condition_types.is_empty() {
        return Err(MergeError::NoConditionTypes);
    }
    if opts.for_condition_types.iter().any(|t| t == target_type) {
        return Err(MergeError::TargetInSources(target_type.to_owned()));
    }
    for (i, o) in opts.override_conditions.iter().enumerate() {
        if opts.override_conditions[..i]
            .iter()
            .any(|p| p.type_ == o.type_)
        {
            return Err(MergeError::DuplicateOverride(o.type_.clone()));
        }
        if !obj.conditions().iter().any(|c| c.type_ == o.type_) {
            return Err(MergeError::OverrideMissing(o.type_.clone()));
        }
    }
    let owner = Owner {
        kind: obj.object_kind().into_owned(),
        name: obj.object_name().into_owned(),
        control_plane_machine: obj.is_control_plane_machine(),
    };
    let mut inputs: Vec<MergeInput> = obj
        .conditions()
        .iter()
        .filter(|c| opts.for_condition_types.contains(&c.type_))
        .map(|c| {
            let condition = opts
                .override_conditions
                .iter()
                .find(|o| o.type_ == c.type_)
                .unwrap_or(c)
                .clone();
            MergeInput {
                condition,
                owner: owner.clone(),
            }
        })
        .collect();
    for t in &opts.for_condition_types {
        if !inputs.iter().any(|i| i.condition.type_ == *t)
            && !opts.ignore_types_if_missing.contains(t)
        {
            inputs.push(MergeInput {
                condition: new_condition(
                    t,
                    UNKNOWN,
                    reason::NOT_YET_REPORTED,
                    "Condition not yet reported",
                ),
                owner: owner.clone(),
            });
        }
    }
    if inputs.is_empty() {
        return Err(MergeError::EmptySummary);
    }
    let (status, reason, message) = merge(
        inputs,
        &opts.for_condition_types,
        &opts.strategy(),
        Operation::Summary,
    )?;
    Ok(new_condition(target_type, &status, &reason, &message))
}
