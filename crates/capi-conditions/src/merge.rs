//! Merging several conditions into one: priorities, the default merge strategy, and the
//! message formats of summary and aggregate conditions.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;

use crate::types::{FALSE, TRUE, UNKNOWN, reason};

/// How much a condition matters when merged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Priority {
    /// Something is wrong (False for a positive type, True for a negative one).
    Issue = 0,
    /// Status Unknown (or not a valid status).
    Unknown = 1,
    /// All good.
    Info = 2,
}

/// Upstream's default priority: True is Info for positive types and an Issue for negative
/// ones, False the reverse, anything else Unknown.
#[must_use]
pub fn priority(condition: &Condition, negative_polarity: &[String]) -> Priority {
    let negative = negative_polarity.contains(&condition.type_);
    match (condition.status.as_str(), negative) {
        (TRUE, false) | (FALSE, true) => Priority::Info,
        (FALSE, false) | (TRUE, true) => Priority::Issue,
        _ => Priority::Unknown,
    }
}

/// Who a merged condition comes from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Owner {
    /// Kind of the object.
    pub kind: String,
    /// Name of the object.
    pub name: String,
    /// A control-plane Machine (its messages go first).
    pub control_plane_machine: bool,
}

/// A condition taking part in a merge.
#[derive(Clone, Debug, PartialEq)]
pub struct MergeInput {
    /// The condition.
    pub condition: Condition,
    /// Its owner.
    pub owner: Owner,
}

/// Reasons for the merged condition by what was found: issues, unknowns, only infos.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reasons {
    /// When any issue is present.
    pub issue: String,
    /// When no issue but an unknown is present.
    pub unknown: String,
    /// When everything is info.
    pub info: String,
}

impl Reasons {
    /// Three reasons.
    #[must_use]
    pub fn new(issue: &str, unknown: &str, info: &str) -> Self {
        Self {
            issue: issue.into(),
            unknown: unknown.into(),
            info: info.into(),
        }
    }
}

impl Default for Reasons {
    fn default() -> Self {
        Self::new(
            reason::ISSUES_REPORTED,
            reason::UNKNOWN_REPORTED,
            reason::INFO_REPORTED,
        )
    }
}

/// Why a merge failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    /// Nothing to merge.
    #[error("can't merge an empty list of conditions")]
    Empty,
    /// Aggregate over no object.
    #[error("sourceObjs can't be empty")]
    NoSourceObjects,
    /// Aggregate negative polarity set to another type than the source type.
    #[error("negativePolarityConditionTypes can only be set to [\"{0}\"]")]
    InvalidNegativePolarity(String),
    /// Summary without condition types.
    #[error("option ForConditionTypes not provided or empty")]
    NoConditionTypes,
    /// Summary of the target type itself.
    #[error("option ForConditionTypes cannot include {0} (target condition type)")]
    TargetInSources(String),
    /// The same override twice.
    #[error("override condition {0} specified multiple times")]
    DuplicateOverride(String),
    /// An override of a condition the object does not have.
    #[error("override condition {0} must exist in source object")]
    OverrideMissing(String),
    /// Summary over an empty scope.
    #[error("summary can't be performed when the list of conditions to be summarized is empty")]
    EmptySummary,
}

/// A caller's function kept in a [`MergeStrategy`]: cloned by reference, equal only to its
/// own clones, printed as `HookFn(..)`.
pub struct HookFn<F: ?Sized>(Arc<F>);

impl<F: ?Sized> Clone for HookFn<F> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<F: ?Sized> std::fmt::Debug for HookFn<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HookFn(..)")
    }
}

/// Two hooks are equal when they are the same function (clones of one `new`).
impl<F: ?Sized> PartialEq for HookFn<F> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl<F: ?Sized> Eq for HookFn<F> {}

/// Rewrites the lines of a summary message (upstream's `SummaryMessageTransformFunc`): it
/// receives the `* Type: message` lines in order and returns the lines to join.
pub type MessageTransform = HookFn<dyn Fn(Vec<String>) -> Vec<String> + Send + Sync>;

impl MessageTransform {
    /// Wraps a function.
    pub fn new(transform: impl Fn(Vec<String>) -> Vec<String> + Send + Sync + 'static) -> Self {
        Self(Arc::new(transform))
    }

    fn apply(&self, lines: Vec<String>) -> Vec<String> {
        (self.0)(lines)
    }
}

/// A priority function replacing the default one (upstream's `GetPriorityFunc` with a
/// function of its own, as core's Machine controller uses to treat deleted external objects
/// as info while the Machine is deleting).
pub type PriorityFn = HookFn<dyn Fn(&Condition) -> Priority + Send + Sync>;

impl PriorityFn {
    /// Wraps a function.
    pub fn new(priority: impl Fn(&Condition) -> Priority + Send + Sync + 'static) -> Self {
        Self(Arc::new(priority))
    }

    fn apply(&self, condition: &Condition) -> Priority {
        (self.0)(condition)
    }
}

/// A custom merge strategy: upstream's `DefaultMergeStrategy` with its options, given to
/// [`crate::summary::SummaryOptions::merge_strategy`] or
/// [`crate::aggregate::AggregateOptions::merge_strategy`] (upstream's `CustomMergeStrategy`).
/// When set, it replaces what the operation's own `negative_polarity` and `reasons` would
/// build, so the result's polarity can differ from the sources'.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergeStrategy {
    /// Types whose True is an issue, for the priorities (`GetDefaultMergePriorityFunc(types...)`).
    pub negative_polarity: Vec<String>,
    /// A priority function of the caller's (`GetPriorityFunc(func)`); when set,
    /// `negative_polarity` is unused (the function may call [`priority`] itself).
    pub priority: Option<PriorityFn>,
    /// The result has negative polarity: issues make it True, infos False
    /// (`TargetConditionHasPositivePolarity(false)`).
    pub target_negative_polarity: bool,
    /// Reasons of the result (`ComputeReasonFunc(GetDefaultComputeMergeReasonFunc(..))`).
    pub reasons: Reasons,
    /// Rewrites the summary message lines (`SummaryMessageTransformFunc`); aggregates ignore it.
    pub summary_message_transform: Option<MessageTransform>,
}

/// The operation a merge serves (decides the message format).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Operation {
    Summary,
    Aggregate,
}

/// Merges conditions with `strategy`.
pub(crate) fn merge(
    mut inputs: Vec<MergeInput>,
    type_order: &[String],
    strategy: &MergeStrategy,
    operation: Operation,
) -> Result<(String, String, String), MergeError> {
    if inputs.is_empty() {
        return Err(MergeError::Empty);
    }
    let index = |t: &str| type_order.iter().position(|o| o == t).unwrap_or(0);
    inputs.sort_by(|a, b| {
        index(&a.condition.type_)
            .cmp(&index(&b.condition.type_))
            .then_with(|| {
                a.condition
                    .last_transition_time
                    .0
                    .cmp(&b.condition.last_transition_time.0)
            })
    });
    let with_priority: Vec<(MergeInput, Priority)> = inputs
        .into_iter()
        .map(|i| {
            let p = match &strategy.priority {
                Some(custom) => custom.apply(&i.condition),
                None => priority(&i.condition, &strategy.negative_polarity),
            };
            (i, p)
        })
        .collect();
    let (status, reason) = merged_status(&with_priority, strategy);
    let message = match operation {
        Operation::Summary => summary_message(
            &with_priority,
            status,
            strategy.summary_message_transform.as_ref(),
        ),
        Operation::Aggregate => aggregate_message(&with_priority),
    };
    Ok((status.to_owned(), reason, message))
}

/// Status and reason of the merged condition: issues first, then unknowns, then infos; the
/// status read with the target's polarity.
fn merged_status(
    with_priority: &[(MergeInput, Priority)],
    strategy: &MergeStrategy,
) -> (&'static str, String) {
    let has = |p: Priority| with_priority.iter().any(|(_, q)| *q == p);
    let negative = strategy.target_negative_polarity;
    let reasons = &strategy.reasons;
    if has(Priority::Issue) {
        (if negative { TRUE } else { FALSE }, reasons.issue.clone())
    } else if has(Priority::Unknown) {
        (UNKNOWN, reasons.unknown.clone())
    } else {
        (if negative { FALSE } else { TRUE }, reasons.info.clone())
    }
}

fn is_go_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{c}')
}

/// Upstream's "bullet" test: a `*` followed by at least one ASCII white space, anywhere.
fn is_bullet(s: &str) -> bool {
    s.char_indices()
        .any(|(i, c)| c == '*' && s[i + 1..].chars().next().is_some_and(is_go_space))
}

/// Formats a message after a `* Type:` header: single-line messages follow a space, multi-line
/// ones (or bullets) go on indented lines.
///
/// ```
/// use capi_conditions::merge::indent_if_multiline;
/// assert_eq!(indent_if_multiline("ok"), " ok");
/// assert_eq!(indent_if_multiline("a\nb"), "\n  * a\n  * b");
/// assert_eq!(indent_if_multiline("a\n* b"), "\n  * a\n    * b");
/// assert_eq!(indent_if_multiline("* a\n* b"), "\n  * a\n  * b");
/// ```
#[must_use]
pub fn indent_if_multiline(message: &str) -> String {
    if !message.contains('\n') && !is_bullet(message) {
        return format!(" {message}");
    }
    let lines: Vec<&str> = message.split('\n').collect();
    let all_bullets = lines.iter().all(|l| is_bullet(l));
    let indented: Vec<String> = lines
        .iter()
        .map(|l| {
            if all_bullets {
                format!("  {l}")
            } else if is_bullet(l) {
                format!("    {l}")
            } else {
                format!("  * {l}")
            }
        })
        .collect();
    format!("\n{}", indented.join("\n"))
}

fn summary_message(
    inputs: &[(MergeInput, Priority)],
    status: &str,
    transform: Option<&MessageTransform>,
) -> String {
    let mut lines = Vec::new();
    for (input, p) in inputs {
        let c = &input.condition;
        if *p == Priority::Info && (status != TRUE || c.message.is_empty()) {
            continue;
        }
        let body = if c.message.is_empty() {
            format!(" {}", c.reason)
        } else {
            indent_if_multiline(&c.message)
        };
        lines.push(format!("* {}:{body}", c.type_));
    }
    match transform {
        Some(t) => t.apply(lines).join("\n"),
        None => lines.join("\n"),
    }
}

/// How many messages an aggregate lists before summing up the rest.
const MAX_AGGREGATE_MESSAGES: usize = 3;

struct MessageGroup {
    message: String,
    owners: Vec<String>,
}

fn aggregate_message(inputs: &[(MergeInput, Priority)]) -> String {
    let problems: Vec<&(MergeInput, Priority)> = inputs
        .iter()
        .filter(|(_, p)| *p == Priority::Issue)
        .chain(inputs.iter().filter(|(_, p)| *p == Priority::Unknown))
        .collect();
    if problems.is_empty() {
        let infos: Vec<_> = inputs
            .iter()
            .filter(|(i, p)| *p == Priority::Info && !i.condition.message.is_empty())
            .collect();
        aggregate_lines(&infos, &[(Priority::Info, "with additional info")])
    } else {
        aggregate_lines(
            &problems,
            &[
                (Priority::Issue, "with other issues"),
                (Priority::Unknown, "with status unknown"),
            ],
        )
    }
}

fn plural(kind: &str) -> String {
    capi_contract::naming::pluralize(kind)
}

fn aggregate_lines(inputs: &[&(MergeInput, Priority)], suffixes: &[(Priority, &str)]) -> String {
    let mut by_kind: BTreeMap<&str, Vec<MessageGroup>> = BTreeMap::new();
    let mut message_priority: BTreeMap<&str, Priority> = BTreeMap::new();
    let mut must_go_first: BTreeMap<&str, bool> = BTreeMap::new();
    let mut control_plane: Vec<&str> = Vec::new();
    for (input, p) in inputs {
        let msg = input.condition.message.as_str();
        let groups = by_kind.entry(input.owner.kind.as_str()).or_default();
        match groups.iter_mut().find(|g| g.message == msg) {
            Some(g) => g.owners.push(input.owner.name.clone()),
            None => groups.push(MessageGroup {
                message: msg.to_owned(),
                owners: vec![input.owner.name.clone()],
            }),
        }
        let entry = message_priority.entry(msg).or_insert(*p);
        *entry = (*entry).min(*p);
        *must_go_first.entry(msg).or_default() |= input.owner.control_plane_machine;
        if input.owner.control_plane_machine {
            control_plane.push(&input.owner.name);
        }
    }
    let mut budget = MAX_AGGREGATE_MESSAGES;
    let mut lines = Vec::new();
    for (kind, mut groups) in by_kind {
        let key = |g: &MessageGroup| {
            (
                !must_go_first
                    .get(g.message.as_str())
                    .copied()
                    .unwrap_or(false),
                message_priority
                    .get(g.message.as_str())
                    .copied()
                    .unwrap_or(Priority::Info),
                std::cmp::Reverse(g.owners.len()),
                g.owners.join(","),
            )
        };
        groups.sort_by_key(key);
        let mut remaining: BTreeMap<Priority, usize> = BTreeMap::new();
        for g in &mut groups {
            let p = message_priority
                .get(g.message.as_str())
                .copied()
                .unwrap_or(Priority::Info);
            if budget == 0 {
                *remaining.entry(p).or_default() += g.owners.len();
                continue;
            }
            g.owners.sort_by(|a, b| {
                let cp = |n: &String| !control_plane.contains(&n.as_str());
                cp(a).cmp(&cp(b)).then_with(|| a.cmp(b))
            });
            let header = match g.owners.len() {
                1 => format!("* {kind} {}:", g.owners[0]),
                2 | 3 => format!("* {} {}:", plural(kind), g.owners.join(", ")),
                n => format!(
                    "* {} {}, ... ({} more):",
                    plural(kind),
                    g.owners[..3].join(", "),
                    n - 3
                ),
            };
            lines.push(format!("{header}{}", indent_if_multiline(&g.message)));
            budget -= 1;
        }
        for (p, suffix) in suffixes {
            match remaining.get(p).copied().unwrap_or(0) {
                0 => {}
                1 => lines.push(format!("And 1 {kind} {suffix}")),
                k => lines.push(format!("And {k} {} {suffix}", plural(kind))),
            }
        }
    }
    lines.join("\n")
}
