//! Mirror: copy a condition of another object under (possibly) another type.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};

use crate::access::{ConditionsMut, HasConditions, ObjectIdentity};
use crate::setter::{get, new_condition, set};
use crate::types::{UNKNOWN, reason};

/// What to report when the source condition is missing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fallback {
    /// Status (an empty status means "no fallback").
    pub status: String,
    /// Reason.
    pub reason: String,
    /// Message.
    pub message: String,
}

/// Options of [`mirror`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MirrorOptions {
    /// Type of the resulting condition (default: the source type).
    pub target_type: Option<String>,
    /// Used when the source has no such condition.
    pub fallback: Option<Fallback>,
}

/// The mirrored condition: status, reason, message and `lastTransitionTime` of the source
/// condition (observedGeneration is left for [`set`]); else the fallback; else
/// Unknown / `NotYetReported` / `Condition <type> not yet reported`.
///
/// ```
/// use capi_conditions::{ConditionSet, new_condition, mirror::{mirror, MirrorOptions}};
/// let infra = ConditionSet { conditions: vec![new_condition("Ready", "False", "Provisioning", "2 of 3 instances")], ..Default::default() };
/// let opts = MirrorOptions { target_type: Some("InfrastructureReady".into()), ..Default::default() };
/// let c = mirror(&infra, "Ready", &opts);
/// assert_eq!((c.type_.as_str(), c.status.as_str(), c.reason.as_str()), ("InfrastructureReady", "False", "Provisioning"));
/// ```
#[must_use]
pub fn mirror<T: HasConditions + ?Sized>(
    source: &T,
    source_type: &str,
    opts: &MirrorOptions,
) -> Condition {
    let target = opts.target_type.as_deref().unwrap_or(source_type);
    if let Some(c) = get(source, source_type) {
        return Condition {
            type_: target.to_owned(),
            status: c.status.clone(),
            reason: c.reason.clone(),
            message: c.message.clone(),
            last_transition_time: c.last_transition_time.clone(),
            observed_generation: None,
        };
    }
    if let Some(f) = opts.fallback.as_ref().filter(|f| !f.status.is_empty()) {
        return new_condition(target, &f.status, &f.reason, &f.message);
    }
    new_condition(
        target,
        UNKNOWN,
        reason::NOT_YET_REPORTED,
        &format!("Condition {source_type} not yet reported"),
    )
}

/// [`mirror`] then [`set`] on `target`; returns whether `target` changed.
pub fn set_mirror<S: HasConditions + ?Sized, T: ConditionsMut + ObjectIdentity + ?Sized>(
    target: &mut T,
    source: &S,
    source_type: &str,
    opts: &MirrorOptions,
    now: &Time,
) -> bool {
    set(target, mirror(source, source_type, opts), now)
}
