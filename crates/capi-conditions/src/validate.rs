//! The one condition validator: the rules of the CRD schema of a conditions list, for v1beta2
//! (`metav1.Condition`) and deprecated Cluster API v1beta1 conditions.
//!
//! Everything that looks at conditions uses it: [`validate_conditions`] for typed objects,
//! [`crate::unstructured`] when reading unstructured objects, and the contract checker for
//! InfraMachinePool objects. Problems are typed ([`Problem`]); each caller decides how bad
//! they are.

use std::fmt;

use capi_diagnostics::excerpt::Excerpt;
use capi_machinepool_api::apimachinery::{is_condition_reason, qualified_name_errors};
use capi_machinepool_api::v1beta1::LegacyCondition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;

use crate::types::{FALSE, TRUE, UNKNOWN};

/// Most conditions in a list (`+kubebuilder:validation:MaxItems=32`).
pub const MAX_CONDITIONS: usize = 32;

/// The rules a condition follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `metav1.Condition`: type a qualified name of at most 316 characters, reason required,
    /// CamelCase, at most 1024; message at most 32768.
    V1Beta2,
    /// Cluster API v1beta1 (with severity): type at most 256 characters, reason optional,
    /// at most 256; message at most 10240.
    V1Beta1,
}

impl Shape {
    fn max_type(self) -> usize {
        match self {
            Self::V1Beta2 => 316,
            Self::V1Beta1 => 256,
        }
    }
    fn max_reason(self) -> usize {
        match self {
            Self::V1Beta2 => 1024,
            Self::V1Beta1 => 256,
        }
    }
    fn max_message(self) -> usize {
        match self {
            Self::V1Beta2 => 32768,
            Self::V1Beta1 => 10240,
        }
    }
}

/// What is wrong with a condition (or a list).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// `type` is empty or absent.
    MissingType,
    /// `type` is too long.
    TypeTooLong {
        /// Characters.
        length: usize,
        /// The limit.
        max: usize,
    },
    /// `type` is not a qualified name (`[prefix/]CamelCase`).
    TypeNotQualifiedName {
        /// Why.
        detail: String,
    },
    /// `status` is not `True`, `False` or `Unknown` (or is absent).
    InvalidStatus {
        /// What was found.
        status: String,
    },
    /// `reason` is empty (v1beta2 requires one).
    MissingReason,
    /// `reason` does not match `^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`.
    ReasonNotCamelCase {
        /// What was found.
        reason: String,
    },
    /// `reason` is too long.
    ReasonTooLong {
        /// Characters.
        length: usize,
        /// The limit.
        max: usize,
    },
    /// `message` is too long.
    MessageTooLong {
        /// Characters.
        length: usize,
        /// The limit.
        max: usize,
    },
    /// `observedGeneration` is negative.
    NegativeObservedGeneration,
    /// `lastTransitionTime` is not an RFC 3339 time (unstructured reads only).
    InvalidLastTransitionTime {
        /// What was found.
        value: String,
    },
    /// A field has another JSON type (unstructured reads only).
    WrongType {
        /// What the field must be.
        expected: &'static str,
    },
    /// The type appears earlier in the list (the list is a map keyed by type).
    DuplicateType {
        /// Index of the first one.
        first: usize,
    },
    /// The list has more than [`MAX_CONDITIONS`] conditions.
    TooMany {
        /// How many.
        count: usize,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MissingType => f.write_str("must be set"),
            Self::TypeTooLong { max, .. } => write!(f, "must be at most {max} characters"),
            Self::TypeNotQualifiedName { detail } => f.write_str(detail),
            Self::InvalidStatus { status } => {
                write!(
                    f,
                    "\"{}\" is not one of True, False, Unknown",
                    Excerpt::new(status)
                )
            }
            Self::MissingReason => {
                f.write_str("must be set and match ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")
            }
            Self::ReasonNotCamelCase { reason } => write!(
                f,
                "\"{}\" must match ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$",
                Excerpt::new(reason)
            ),
            Self::ReasonTooLong { max, .. } => write!(f, "must be at most {max} characters"),
            Self::MessageTooLong { length, max } => {
                write!(f, "must be at most {max} characters (has {length})")
            }
            Self::NegativeObservedGeneration => f.write_str("must be >= 0"),
            Self::InvalidLastTransitionTime { value } => {
                write!(f, "\"{}\" is not an RFC 3339 time", Excerpt::new(value))
            }
            Self::WrongType { expected } => write!(f, "must be {expected}"),
            Self::DuplicateType { first } => {
                write!(f, "duplicate condition type (first at index {first})")
            }
            Self::TooMany { count } => {
                write!(f, "{count} conditions, at most {MAX_CONDITIONS}")
            }
        }
    }
}

/// A problem at a field of a condition of a list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    /// Index of the condition, `None` for the list itself.
    pub index: Option<usize>,
    /// The field (`type`, `status`, ...), empty for the list or the whole condition.
    pub field: &'static str,
    /// What is wrong.
    pub problem: Problem,
}

/// `conditions[0].reason: <problem>`: the issue under a list named `conditions`; use
/// [`Issue::path`] for the list's real path.
///
/// ```
/// use capi_conditions::validate::{Issue, Problem};
/// let issue = Issue { index: Some(0), field: "type", problem: Problem::MissingType };
/// assert_eq!(issue.to_string(), "conditions[0].type: must be set");
/// ```
impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path("conditions"), self.problem)
    }
}

impl Issue {
    /// The issue's field path under `list_path`, e.g. `status.conditions[0].reason`.
    #[must_use]
    pub fn path(&self, list_path: &str) -> String {
        match (self.index, self.field) {
            (None, _) => list_path.to_owned(),
            (Some(i), "") => format!("{list_path}[{i}]"),
            (Some(i), field) => format!("{list_path}[{i}].{field}"),
        }
    }
}

/// The common part of both shapes.
fn common(
    shape: Shape,
    type_: &str,
    status: &str,
    reason: &str,
    message: &str,
    out: &mut Vec<(&'static str, Problem)>,
) {
    if type_.is_empty() {
        out.push(("type", Problem::MissingType));
    } else {
        let length = type_.chars().count();
        if length > shape.max_type() {
            out.push((
                "type",
                Problem::TypeTooLong {
                    length,
                    max: shape.max_type(),
                },
            ));
        }
        if shape == Shape::V1Beta2 {
            for detail in qualified_name_errors(type_) {
                out.push(("type", Problem::TypeNotQualifiedName { detail }));
            }
        }
    }
    if ![TRUE, FALSE, UNKNOWN].contains(&status) {
        out.push((
            "status",
            Problem::InvalidStatus {
                status: status.to_owned(),
            },
        ));
    }
    let reason_length = reason.chars().count();
    if reason_length > shape.max_reason() {
        out.push((
            "reason",
            Problem::ReasonTooLong {
                length: reason_length,
                max: shape.max_reason(),
            },
        ));
    }
    if shape == Shape::V1Beta2 {
        if reason.is_empty() {
            out.push(("reason", Problem::MissingReason));
        } else if !is_condition_reason(reason) {
            out.push((
                "reason",
                Problem::ReasonNotCamelCase {
                    reason: reason.to_owned(),
                },
            ));
        }
    }
    let length = message.chars().count();
    if length > shape.max_message() {
        out.push((
            "message",
            Problem::MessageTooLong {
                length,
                max: shape.max_message(),
            },
        ));
    }
}

/// Every problem of one v1beta2 condition, with its field.
#[must_use]
pub fn condition_problems(c: &Condition) -> Vec<(&'static str, Problem)> {
    let mut out = Vec::new();
    common(
        Shape::V1Beta2,
        &c.type_,
        &c.status,
        &c.reason,
        &c.message,
        &mut out,
    );
    if c.observed_generation.is_some_and(|g| g < 0) {
        out.push(("observedGeneration", Problem::NegativeObservedGeneration));
    }
    out
}

/// Every problem of one deprecated v1beta1 condition, with its field.
#[must_use]
pub fn legacy_condition_problems(c: &LegacyCondition) -> Vec<(&'static str, Problem)> {
    let mut out = Vec::new();
    common(
        Shape::V1Beta1,
        &c.type_,
        &c.status,
        &c.reason,
        &c.message,
        &mut out,
    );
    out
}

/// Every problem of a list of conditions of `shape` (each condition's, duplicates, length).
#[must_use]
pub fn list_problems<C>(
    list: &[C],
    type_of: impl Fn(&C) -> &str,
    problems: impl Fn(&C) -> Vec<(&'static str, Problem)>,
) -> Vec<Issue> {
    let mut out = Vec::new();
    if list.len() > MAX_CONDITIONS {
        out.push(Issue {
            index: None,
            field: "",
            problem: Problem::TooMany { count: list.len() },
        });
    }
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, c) in list.iter().enumerate() {
        out.extend(problems(c).into_iter().map(|(field, problem)| Issue {
            index: Some(i),
            field,
            problem,
        }));
        let t = type_of(c);
        if !t.is_empty() {
            match seen.get(t) {
                Some(&first) => out.push(Issue {
                    index: Some(i),
                    field: "type",
                    problem: Problem::DuplicateType { first },
                }),
                None => {
                    seen.insert(t, i);
                }
            }
        }
    }
    out
}

/// Every problem of the condition at `path` (e.g. `status.conditions[0]`), as
/// `path.field: problem` lines; empty when valid.
///
/// ```
/// use capi_conditions::{new_condition, validate::validate_condition};
/// assert!(validate_condition(&new_condition("Ready", "True", "Ready", ""), "c").is_empty());
/// let errs = validate_condition(&new_condition("", "Yes", "not camel", ""), "c");
/// assert_eq!(errs.len(), 3);
/// ```
#[must_use]
pub fn validate_condition(c: &Condition, path: &str) -> Vec<String> {
    condition_problems(c)
        .into_iter()
        .map(|(field, problem)| format!("{path}.{field}: {problem}"))
        .collect()
}

/// Validates a v1beta2 conditions list: every condition, no type twice (list-map key), at
/// most [`MAX_CONDITIONS`].
#[must_use]
pub fn validate_conditions(list: &[Condition], path: &str) -> Vec<String> {
    list_problems(list, |c| c.type_.as_str(), condition_problems)
        .into_iter()
        .map(|i| format!("{}: {}", i.path(path), i.problem))
        .collect()
}
