//! Deprecated Cluster API v1beta1 conditions (with severity): get/set/mark helpers, mirror and
//! the `Ready` summary with severity ordering.
//!
//! Upstream defines no conversion between v1beta1 and v1beta2 conditions (its generated
//! converters are deliberate no-ops: the two lists are kept side by side), so none is offered.

use std::cmp::Ordering;

use capi_machinepool_api::v1beta1::LegacyCondition as Condition;
use capi_machinepool_api::{severity, v1beta1, v1beta2};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

use crate::time::truncate;
use crate::types::{FALSE, TRUE, UNKNOWN};

/// An object with a list of v1beta1 conditions.
pub trait LegacyConditions {
    /// The conditions.
    fn legacy_conditions(&self) -> &[Condition];
    /// The conditions, mutably.
    fn legacy_conditions_mut(&mut self) -> &mut Vec<Condition>;
}

impl LegacyConditions for v1beta1::MachinePool {
    fn legacy_conditions(&self) -> &[Condition] {
        self.status.conditions.as_deref().unwrap_or_default()
    }
    fn legacy_conditions_mut(&mut self) -> &mut Vec<Condition> {
        self.status.conditions.get_or_insert_with(Vec::new)
    }
}

/// On v1beta2 the legacy list lives in `status.deprecated.v1beta1.conditions`.
impl LegacyConditions for v1beta2::MachinePool {
    fn legacy_conditions(&self) -> &[Condition] {
        self.status
            .deprecated
            .as_ref()
            .and_then(|d| d.v1beta1.as_ref())
            .map_or(&[], |l| l.conditions.as_deref().unwrap_or_default())
    }
    fn legacy_conditions_mut(&mut self) -> &mut Vec<Condition> {
        self.status
            .deprecated
            .get_or_insert_with(Default::default)
            .v1beta1
            .get_or_insert_with(Default::default)
            .conditions
            .get_or_insert_with(Vec::new)
    }
}

impl LegacyConditions for Vec<Condition> {
    fn legacy_conditions(&self) -> &[Condition] {
        self
    }
    fn legacy_conditions_mut(&mut self) -> &mut Vec<Condition> {
        self
    }
}

/// The `Ready` type.
pub const READY: &str = "Ready";

/// The condition of the type.
#[must_use]
pub fn get<'a, T: LegacyConditions + ?Sized>(obj: &'a T, type_: &str) -> Option<&'a Condition> {
    obj.legacy_conditions().iter().find(|c| c.type_ == type_)
}

/// True when it exists with status True.
#[must_use]
pub fn is_true<T: LegacyConditions + ?Sized>(obj: &T, type_: &str) -> bool {
    get(obj, type_).is_some_and(|c| c.status == TRUE)
}

/// True when it exists with status False.
#[must_use]
pub fn is_false<T: LegacyConditions + ?Sized>(obj: &T, type_: &str) -> bool {
    get(obj, type_).is_some_and(|c| c.status == FALSE)
}

/// True when Unknown or missing.
#[must_use]
pub fn is_unknown<T: LegacyConditions + ?Sized>(obj: &T, type_: &str) -> bool {
    get(obj, type_).is_none_or(|c| c.status == UNKNOWN)
}

/// A True condition (no reason, severity or message).
#[must_use]
pub fn true_condition(type_: &str) -> Condition {
    Condition {
        type_: type_.into(),
        status: TRUE.into(),
        ..Condition::default()
    }
}

/// A False condition with reason, severity and message.
#[must_use]
pub fn false_condition(type_: &str, reason: &str, severity: &str, message: &str) -> Condition {
    Condition {
        type_: type_.into(),
        status: FALSE.into(),
        reason: reason.into(),
        severity: severity.into(),
        message: message.into(),
        ..Condition::default()
    }
}

/// An Unknown condition with reason and message (no severity).
#[must_use]
pub fn unknown_condition(type_: &str, reason: &str, message: &str) -> Condition {
    Condition {
        type_: type_.into(),
        status: UNKNOWN.into(),
        reason: reason.into(),
        message: message.into(),
        ..Condition::default()
    }
}

fn same_state(a: &Condition, b: &Condition) -> bool {
    a.type_ == b.type_
        && a.status == b.status
        && a.reason == b.reason
        && a.severity == b.severity
        && a.message == b.message
}

fn legacy_order(a: &Condition, b: &Condition) -> Ordering {
    (a.type_ != READY)
        .cmp(&(b.type_ != READY))
        .then_with(|| a.type_.cmp(&b.type_))
}

/// Sets a legacy condition as upstream: any change of status, reason, severity or message
/// replaces it with `lastTransitionTime = now` (unlike v1beta2, where only a status change
/// moves the time); an identical one is kept. The list is always re-sorted, `Ready` first.
pub fn set<T: LegacyConditions + ?Sized>(obj: &mut T, mut condition: Condition, now: &Time) {
    let list = obj.legacy_conditions_mut();
    match list.iter_mut().find(|c| c.type_ == condition.type_) {
        Some(existing) if same_state(existing, &condition) => {}
        Some(existing) => {
            condition.last_transition_time = Some(truncate(now));
            *existing = condition;
        }
        None => {
            if condition.last_transition_time.is_none() {
                condition.last_transition_time = Some(truncate(now));
            }
            list.push(condition);
        }
    }
    list.sort_by(legacy_order);
}

/// Sets a True condition.
pub fn mark_true<T: LegacyConditions + ?Sized>(obj: &mut T, type_: &str, now: &Time) {
    set(obj, true_condition(type_), now);
}

/// Sets a False condition.
pub fn mark_false<T: LegacyConditions + ?Sized>(
    obj: &mut T,
    type_: &str,
    reason: &str,
    severity: &str,
    message: &str,
    now: &Time,
) {
    set(obj, false_condition(type_, reason, severity, message), now);
}

/// Sets an Unknown condition.
pub fn mark_unknown<T: LegacyConditions + ?Sized>(
    obj: &mut T,
    type_: &str,
    reason: &str,
    message: &str,
    now: &Time,
) {
    set(obj, unknown_condition(type_, reason, message), now);
}

/// The source's `Ready` as `target_type`; when missing, the fallback
/// (`true` -> True, else False with the given reason, severity and message), or nothing.
#[must_use]
pub fn mirror<T: LegacyConditions + ?Sized>(
    source: &T,
    target_type: &str,
    fallback: Option<(bool, &str, &str, &str)>,
) -> Option<Condition> {
    match get(source, READY) {
        Some(c) => Some(Condition {
            type_: target_type.into(),
            ..c.clone()
        }),
        None => fallback.map(|(ok, reason, sev, msg)| {
            if ok {
                true_condition(target_type)
            } else {
                false_condition(target_type, reason, sev, msg)
            }
        }),
    }
}

/// Merge group of a legacy condition: False+Error 0, False+Warning 1, False+Info 2, True 3,
/// Unknown 4, anything else 99; negative-polarity types have True and False swapped.
#[must_use]
pub fn group(c: &Condition, negative_polarity: &[&str]) -> u8 {
    let status = match (
        c.status.as_str(),
        negative_polarity.contains(&c.type_.as_str()),
    ) {
        (TRUE, true) => FALSE,
        (FALSE, true) => TRUE,
        (s, _) => s,
    };
    match (status, c.severity.as_str()) {
        (FALSE, severity::ERROR) => 0,
        (FALSE, severity::WARNING) => 1,
        (FALSE, severity::INFO) => 2,
        (TRUE, _) => 3,
        (UNKNOWN, _) => 4,
        _ => 99,
    }
}

/// Options of [`summary`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SummaryOptions<'a> {
    /// Only these types, in this priority order (default: every type but Ready).
    pub with_conditions: Vec<&'a str>,
    /// Message `<true> of <n> completed` instead of the top condition's message.
    pub step_counter: bool,
    /// Negative-polarity types.
    pub negative_polarity: Vec<&'a str>,
}

/// The legacy `Ready` summary: the "worst" group wins (False+Error, False+Warning,
/// False+Info, True, Unknown); all True gives `Ready=True`. `None` when nothing is in scope.
///
/// ```
/// use capi_conditions::v1beta1::{summary, false_condition, true_condition, SummaryOptions};
/// let list = vec![true_condition("BootstrapReady"), false_condition("InfrastructureReady", "WaitingForInfrastructure", "Info", "")];
/// let ready = summary(&list, &SummaryOptions { step_counter: true, ..Default::default() }).unwrap();
/// assert_eq!((ready.status.as_str(), ready.reason.as_str(), ready.severity.as_str(), ready.message.as_str()),
///            ("False", "WaitingForInfrastructure", "Info", "1 of 2 completed"));
/// ```
#[must_use]
pub fn summary<T: LegacyConditions + ?Sized>(
    obj: &T,
    opts: &SummaryOptions<'_>,
) -> Option<Condition> {
    let scope: Vec<&Condition> = obj
        .legacy_conditions()
        .iter()
        .filter(|c| {
            c.type_ != READY
                && (opts.with_conditions.is_empty()
                    || opts.with_conditions.contains(&c.type_.as_str()))
        })
        .collect();
    let top = scope
        .iter()
        .map(|c| group(c, &opts.negative_polarity))
        .min()?;
    if top == 3 {
        return Some(true_condition(READY));
    }
    let mut members: Vec<&Condition> = scope
        .iter()
        .copied()
        .filter(|c| group(c, &opts.negative_polarity) == top)
        .collect();
    members.sort_by(|a, b| legacy_order(a, b));
    let chosen = opts
        .with_conditions
        .iter()
        .find_map(|t| members.iter().find(|c| c.type_ == *t))
        .or(members.first())
        .copied()?;
    let n = if opts.with_conditions.is_empty() {
        scope.len()
    } else {
        opts.with_conditions.len()
    };
    let done = scope
        .iter()
        .filter(|c| group(c, &opts.negative_polarity) == 3)
        .count();
    let message = if opts.step_counter {
        format!("{done} of {n} completed")
    } else {
        chosen.message.clone()
    };
    Some(match top {
        4 => unknown_condition(READY, &chosen.reason, &message),
        _ => false_condition(READY, &chosen.reason, &chosen.severity, &message),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::jiff::Timestamp;

    fn t(s: i64) -> Time {
        Time(Timestamp::from_second(s).unwrap_or(Timestamp::UNIX_EPOCH))
    }

    #[test]
    fn set_bumps_time_on_any_change_and_sorts_ready_first() {
        let mut list: Vec<Condition> = Vec::new();
        mark_false(
            &mut list,
            "InfrastructureReady",
            "Waiting",
            severity::INFO,
            "",
            &t(100),
        );
        mark_true(&mut list, READY, &t(100));
        mark_true(&mut list, "BootstrapReady", &t(100));
        let types: Vec<&str> = list.iter().map(|c| c.type_.as_str()).collect();
        assert_eq!(types, ["Ready", "BootstrapReady", "InfrastructureReady"]);
        // Same state: kept.
        mark_false(
            &mut list,
            "InfrastructureReady",
            "Waiting",
            severity::INFO,
            "",
            &t(200),
        );
        assert_eq!(
            get(&list, "InfrastructureReady").and_then(|c| c.last_transition_time.clone()),
            Some(t(100))
        );
        // Only the message changes: the legacy library still moves the time.
        mark_false(
            &mut list,
            "InfrastructureReady",
            "Waiting",
            severity::INFO,
            "2 of 3",
            &t(300),
        );
        assert_eq!(
            get(&list, "InfrastructureReady").and_then(|c| c.last_transition_time.clone()),
            Some(t(300))
        );
        assert!(is_unknown(&list, "Missing"));
        assert!(is_false(&list, "InfrastructureReady") && is_true(&list, READY));
    }

    #[test]
    fn summary_severity_ordering() {
        let list = vec![
            false_condition("A", "AInfo", severity::INFO, "a"),
            false_condition("B", "BWarning", severity::WARNING, "b"),
            false_condition("C", "CError", severity::ERROR, "c"),
            unknown_condition("D", "DUnknown", "d"),
        ];
        let ready = summary(&list, &SummaryOptions::default()).unwrap();
        assert_eq!(
            (
                ready.reason.as_str(),
                ready.severity.as_str(),
                ready.message.as_str()
            ),
            ("CError", "Error", "c")
        );
        let without_error: Vec<Condition> =
            list.iter().filter(|c| c.type_ != "C").cloned().collect();
        assert_eq!(
            summary(&without_error, &SummaryOptions::default())
                .unwrap()
                .reason,
            "BWarning"
        );
        let only_unknown = vec![true_condition("A"), unknown_condition("D", "DUnknown", "d")];
        // True ranks before Unknown, so a mix of True and Unknown is True.
        assert_eq!(
            summary(&only_unknown, &SummaryOptions::default())
                .unwrap()
                .status,
            TRUE
        );
        let unknown = vec![unknown_condition("D", "DUnknown", "d")];
        assert_eq!(
            summary(&unknown, &SummaryOptions::default())
                .unwrap()
                .status,
            UNKNOWN
        );
        // WithConditions picks the reason by priority order inside the top group.
        let opts = SummaryOptions {
            with_conditions: vec!["B", "A"],
            ..Default::default()
        };
        let two = vec![
            false_condition("A", "RA", severity::WARNING, ""),
            false_condition("B", "RB", severity::WARNING, ""),
        ];
        assert_eq!(summary(&two, &opts).unwrap().reason, "RB");
        assert_eq!(
            summary(&Vec::<Condition>::new(), &SummaryOptions::default()),
            None
        );
    }

    #[test]
    fn negative_polarity_swaps_status() {
        let list = vec![Condition {
            type_: "Degraded".into(),
            status: TRUE.into(),
            reason: "Bad".into(),
            severity: severity::WARNING.into(),
            ..Condition::default()
        }];
        let opts = SummaryOptions {
            negative_polarity: vec!["Degraded"],
            ..Default::default()
        };
        assert_eq!(summary(&list, &opts).unwrap().status, FALSE);
    }

    #[test]
    fn mirror_with_fallback() {
        let infra = vec![false_condition(READY, "Provisioning", severity::INFO, "")];
        assert_eq!(
            mirror(&infra, "InfrastructureReady", None).map(|c| c.reason),
            Some("Provisioning".into())
        );
        let none: Vec<Condition> = vec![];
        assert_eq!(mirror(&none, "InfrastructureReady", None), None);
        let fb = mirror(
            &none,
            "InfrastructureReady",
            Some((false, "WaitingForInfrastructure", severity::INFO, "")),
        )
        .unwrap();
        assert_eq!(
            (fb.status.as_str(), fb.reason.as_str()),
            (FALSE, "WaitingForInfrastructure")
        );
    }

    #[test]
    fn v1beta2_pool_stores_legacy_conditions_in_deprecated() {
        let mut mp = v1beta2::MachinePool::default();
        mark_true(&mut mp, READY, &t(1));
        assert_eq!(
            mp.status
                .deprecated
                .and_then(|d| d.v1beta1)
                .map(|l| l.conditions.unwrap_or_default().len()),
            Some(1)
        );
    }
}
