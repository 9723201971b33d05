//! Reading, setting and deleting v1beta2 conditions.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};

use crate::access::{ConditionsMut, HasConditions, ObjectIdentity};
use crate::time::{is_zero, truncate, zero_time};
use crate::types::{FALSE, TRUE, UNKNOWN};

/// A condition with the given fields, `lastTransitionTime` zero (set fills it in).
#[must_use]
pub fn new_condition(type_: &str, status: &str, reason: &str, message: &str) -> Condition {
    Condition {
        type_: type_.to_owned(),
        status: status.to_owned(),
        reason: reason.to_owned(),
        message: message.to_owned(),
        last_transition_time: zero_time(),
        observed_generation: None,
    }
}

/// The first condition of the type.
#[must_use]
pub fn get<'a, T: HasConditions + ?Sized>(obj: &'a T, type_: &str) -> Option<&'a Condition> {
    obj.conditions().iter().find(|c| c.type_ == type_)
}

/// True when the condition exists.
#[must_use]
pub fn has<T: HasConditions + ?Sized>(obj: &T, type_: &str) -> bool {
    get(obj, type_).is_some()
}

/// True when the condition exists with status True.
#[must_use]
pub fn is_true<T: HasConditions + ?Sized>(obj: &T, type_: &str) -> bool {
    get(obj, type_).is_some_and(|c| c.status == TRUE)
}

/// True when the condition exists with status False.
#[must_use]
pub fn is_false<T: HasConditions + ?Sized>(obj: &T, type_: &str) -> bool {
    get(obj, type_).is_some_and(|c| c.status == FALSE)
}

/// True when the condition has status Unknown **or is missing** (as upstream).
#[must_use]
pub fn is_unknown<T: HasConditions + ?Sized>(obj: &T, type_: &str) -> bool {
    get(obj, type_).is_none_or(|c| c.status == UNKNOWN)
}

/// The reason, or "" when missing.
#[must_use]
pub fn reason<T: HasConditions + ?Sized>(obj: &T, type_: &str) -> String {
    get(obj, type_)
        .map(|c| c.reason.clone())
        .unwrap_or_default()
}

/// The message, or "" when missing.
#[must_use]
pub fn message<T: HasConditions + ?Sized>(obj: &T, type_: &str) -> String {
    get(obj, type_)
        .map(|c| c.message.clone())
        .unwrap_or_default()
}

/// The last transition time, when the condition exists.
#[must_use]
pub fn last_transition_time<T: HasConditions + ?Sized>(obj: &T, type_: &str) -> Option<Time> {
    get(obj, type_).map(|c| c.last_transition_time.clone())
}

/// Sets a condition with upstream's rules and returns whether anything changed:
///
/// * `observedGeneration` becomes the object's generation (when it has one);
/// * a zero `lastTransitionTime` becomes `now`; times are truncated to seconds;
/// * an existing condition keeps its `lastTransitionTime` unless the status changes;
/// * on change the list is re-sorted in the default order.
///
/// ```
/// use capi_conditions::{ConditionSet, new_condition, set, get};
/// use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
/// use k8s_openapi::jiff::Timestamp;
/// let mut obj = ConditionSet { generation: Some(3), ..Default::default() };
/// let t1 = Time(Timestamp::from_second(1_700_000_000).unwrap());
/// assert!(set(&mut obj, new_condition("Ready", "False", "NotReady", "waiting"), &t1));
/// let t2 = Time(Timestamp::from_second(1_700_000_100).unwrap());
/// // Same status, new message: changed, but the transition time is kept.
/// assert!(set(&mut obj, new_condition("Ready", "False", "NotReady", "still waiting"), &t2));
/// assert_eq!(get(&obj, "Ready").unwrap().last_transition_time, t1);
/// assert_eq!(get(&obj, "Ready").unwrap().observed_generation, Some(3));
/// ```
pub fn set<T: ConditionsMut + ObjectIdentity + ?Sized>(
    obj: &mut T,
    mut condition: Condition,
    now: &Time,
) -> bool {
    if let Some(generation) = obj.object_generation() {
        condition.observed_generation = Some(generation);
    }
    if is_zero(&condition.last_transition_time) {
        condition.last_transition_time = now.clone();
    }
    condition.last_transition_time = truncate(&condition.last_transition_time);
    let list = obj.conditions_mut();
    let changed = match list.iter_mut().find(|c| c.type_ == condition.type_) {
        None => {
            list.push(condition);
            true
        }
        Some(existing) => {
            let mut changed = false;
            if existing.status != condition.status {
                existing.status = condition.status;
                existing.last_transition_time = condition.last_transition_time;
                changed = true;
            }
            if existing.reason != condition.reason {
                existing.reason = condition.reason;
                changed = true;
            }
            if existing.message != condition.message {
                existing.message = condition.message;
                changed = true;
            }
            if existing.observed_generation != condition.observed_generation {
                existing.observed_generation = condition.observed_generation;
                changed = true;
            }
            changed
        }
    };
    if changed {
        crate::order::sort(list);
    }
    changed
}

/// Removes every condition of the type.
pub fn delete<T: ConditionsMut + ?Sized>(obj: &mut T, type_: &str) {
    obj.conditions_mut().retain(|c| c.type_ != type_);
}

/// `True` or `False`.
#[must_use]
pub fn bool_to_status(b: bool) -> &'static str {
    if b { TRUE } else { FALSE }
}
