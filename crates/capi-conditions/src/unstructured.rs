//! The one reader of conditions from unstructured objects (an InfraMachinePool or bootstrap
//! config read as JSON, or a `kube_core::DynamicObject`).
//!
//! * [`read_list`]: every condition of a JSON list as far as it can be read, with the
//!   problems met on the way (fields of another JSON type, unparsable times, non-objects).
//! * [`check_list`]: [`read_list`] plus the validator's rules for a shape and the list rules
//!   (duplicates, length): what the contract checker reports for objects.
//! * [`UnstructuredConditions::from_value`]: upstream's unstructured getter for mirroring:
//!   `status.v1beta2.conditions` when that is a list, else `status.conditions`; an empty
//!   reason becomes `NoReasonReported`; a condition without type or status, with an invalid
//!   status or time fails the read.
//! * [`contract_conditions`]: `status.conditions` in the shape of a contract version.

use capi_contract::Contract;
use capi_machinepool_api::v1beta1::LegacyCondition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use kube_core::DynamicObject;
use serde_json::Value;

use crate::time::zero_time;
use crate::types::{FALSE, TRUE, UNKNOWN, reason};
use crate::validate::{
    Issue, Problem, Shape, condition_problems, legacy_condition_problems, list_problems,
};

/// One condition as read from JSON, before it is given a shape.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawCondition {
    /// `type` (empty when absent).
    pub type_: String,
    /// `status` (empty when absent).
    pub status: String,
    /// `severity` (v1beta1 conditions; empty when absent).
    pub severity: String,
    /// `reason` (empty when absent).
    pub reason: String,
    /// `message` (empty when absent).
    pub message: String,
    /// `lastTransitionTime`, when present and valid.
    pub last_transition_time: Option<Time>,
    /// `observedGeneration`, when present.
    pub observed_generation: Option<i64>,
    /// True when `severity` is present or `reason` / `message` are absent (the v1beta1 shape).
    pub legacy_shaped: bool,
}

impl RawCondition {
    /// As a v1beta2 condition (an absent time becomes Go's zero time).
    #[must_use]
    pub fn to_condition(&self) -> Condition {
        Condition {
            type_: self.type_.clone(),
            status: self.status.clone(),
            reason: self.reason.clone(),
            message: self.message.clone(),
            last_transition_time: self.last_transition_time.clone().unwrap_or_else(zero_time),
            observed_generation: self.observed_generation,
        }
    }

    /// As a deprecated v1beta1 condition.
    #[must_use]
    pub fn to_legacy(&self) -> LegacyCondition {
        LegacyCondition {
            type_: self.type_.clone(),
            status: self.status.clone(),
            severity: self.severity.clone(),
            last_transition_time: self.last_transition_time.clone(),
            reason: self.reason.clone(),
            message: self.message.clone(),
        }
    }
}

fn read_item(item: &Value, index: usize, issues: &mut Vec<Issue>) -> Option<RawCondition> {
    let Some(map) = item.as_object() else {
        issues.push(Issue {
            index: Some(index),
            field: "",
            problem: Problem::WrongType {
                expected: "an object",
            },
        });
        return None;
    };
    let mut issue = |field: &'static str, problem: Problem| {
        issues.push(Issue {
            index: Some(index),
            field,
            problem,
        });
    };
    let mut text = |field: &'static str| -> String {
        match map.get(field) {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(_) => {
                issue(
                    field,
                    Problem::WrongType {
                        expected: "a string",
                    },
                );
                String::new()
            }
        }
    };
    let mut raw = RawCondition {
        type_: text("type"),
        status: text("status"),
        severity: text("severity"),
        reason: text("reason"),
        message: text("message"),
        legacy_shaped: map.contains_key("severity")
            || !map.contains_key("reason")
            || !map.contains_key("message"),
        ..RawCondition::default()
    };
    match map.get("lastTransitionTime") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if s.is_empty() => {}
        Some(Value::String(s)) => match s.parse() {
            Ok(t) => raw.last_transition_time = Some(Time(t)),
            Err(_) => issue(
                "lastTransitionTime",
                Problem::InvalidLastTransitionTime { value: s.clone() },
            ),
        },
        Some(_) => issue(
            "lastTransitionTime",
            Problem::WrongType {
                expected: "a string",
            },
        ),
    }
    match map.get("observedGeneration") {
        None | Some(Value::Null) => {}
        Some(v) => match v.as_i64() {
            Some(g) => raw.observed_generation = Some(g),
            None => issue(
                "observedGeneration",
                Problem::WrongType {
                    expected: "an int64",
                },
            ),
        },
    }
    Some(raw)
}

/// Reads every condition of a JSON list; a value that is not a list reads as no condition
/// with one [`Problem::WrongType`] issue.
#[must_use]
pub fn read_list(list: &Value) -> (Vec<(usize, RawCondition)>, Vec<Issue>) {
    let mut issues = Vec::new();
    let Some(items) = list.as_array() else {
        if !list.is_null() {
            issues.push(Issue {
                index: None,
                field: "",
                problem: Problem::WrongType { expected: "a list" },
            });
        }
        return (Vec::new(), issues);
    };
    let conditions = items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| read_item(item, i, &mut issues).map(|c| (i, c)))
        .collect();
    (conditions, issues)
}

/// Every problem of a JSON conditions list under the rules of `shape`: what could not be
/// read, what the validator finds, duplicates and length, in list order.
///
/// ```
/// use capi_conditions::unstructured::check_list;
/// use capi_conditions::validate::{Problem, Shape};
/// let list = serde_json::json!([{"type": "Ready", "status": "Yes", "reason": "Ok", "message": "",
///   "lastTransitionTime": "2026-01-01T00:00:00Z"}]);
/// let issues = check_list(&list, Shape::V1Beta2);
/// assert_eq!(issues[0].path("status.conditions"), "status.conditions[0].status");
/// assert!(matches!(issues[0].problem, Problem::InvalidStatus { .. }));
/// ```
#[must_use]
pub fn check_list(list: &Value, shape: Shape) -> Vec<Issue> {
    let (conditions, mut issues) = read_list(list);
    let validated = match shape {
        Shape::V1Beta2 => list_problems(
            &conditions,
            |(_, c)| c.type_.as_str(),
            |(_, c)| condition_problems(&c.to_condition()),
        ),
        Shape::V1Beta1 => list_problems(
            &conditions,
            |(_, c)| c.type_.as_str(),
            |(_, c)| legacy_condition_problems(&c.to_legacy()),
        ),
    };
    // `list_problems` counts only readable conditions: map its indices back to the list.
    issues.extend(validated.into_iter().map(|mut issue| {
        issue.index = issue.index.map(|i| conditions[i].0);
        if let Problem::DuplicateType { first } = &mut issue.problem {
            *first = conditions[*first].0;
        }
        issue
    }));
    issues.sort_by_key(|i| i.index);
    issues
}

/// Why an unstructured object's conditions cannot be read (upstream's unstructured getter).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnstructuredError {
    /// A condition without type.
    #[error("type must be set for all conditions")]
    MissingType,
    /// A condition without status.
    #[error("status must be set for the {0} condition")]
    MissingStatus(String),
    /// A status other than True/False/Unknown.
    #[error(
        "status for the {type_} condition must be one of True, False, Unknown (found {status:?})"
    )]
    InvalidStatus {
        /// Condition type.
        type_: String,
        /// The status found.
        status: String,
    },
    /// An unparsable `lastTransitionTime`.
    #[error("invalid lastTransitionTime {0:?} (RFC 3339 expected)")]
    InvalidTime(String),
}

/// An unstructured object viewed as a condition holder.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnstructuredConditions {
    kind: String,
    name: String,
    generation: Option<i64>,
    conditions: Vec<Condition>,
}

impl UnstructuredConditions {
    /// Reads conditions as upstream's unstructured getter does (see the module docs).
    ///
    /// # Errors
    /// A condition without type or status, an invalid status, or an unparsable time.
    pub fn from_value(object: &Value) -> Result<Self, UnstructuredError> {
        let status = &object["status"];
        let list = if status["v1beta2"]["conditions"].is_array() {
            &status["v1beta2"]["conditions"]
        } else {
            &status["conditions"]
        };
        let (raws, issues) = read_list(list);
        if let Some(Issue {
            problem: Problem::InvalidLastTransitionTime { value },
            ..
        }) = issues
            .iter()
            .find(|i| matches!(i.problem, Problem::InvalidLastTransitionTime { .. }))
        {
            return Err(UnstructuredError::InvalidTime(value.clone()));
        }
        let mut conditions = Vec::with_capacity(raws.len());
        for (_, raw) in raws {
            if raw.type_.is_empty() {
                return Err(UnstructuredError::MissingType);
            }
            if raw.status.is_empty() {
                return Err(UnstructuredError::MissingStatus(raw.type_));
            }
            if ![TRUE, FALSE, UNKNOWN].contains(&raw.status.as_str()) {
                return Err(UnstructuredError::InvalidStatus {
                    type_: raw.type_,
                    status: raw.status,
                });
            }
            let mut c = raw.to_condition();
            if c.reason.is_empty() {
                reason::NO_REASON_REPORTED.clone_into(&mut c.reason);
            }
            conditions.push(c);
        }
        let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
        Ok(Self {
            kind: text(&object["kind"]),
            name: text(&object["metadata"]["name"]),
            generation: object["metadata"]["generation"].as_i64(),
            conditions,
        })
    }

    /// [`UnstructuredConditions::from_value`] for a `kube_core::DynamicObject` (its `data`
    /// holds `status`; kind and name come from its TypeMeta and metadata).
    ///
    /// # Errors
    /// See [`UnstructuredConditions::from_value`].
    pub fn from_dynamic(object: &DynamicObject) -> Result<Self, UnstructuredError> {
        let mut view = Self::from_value(&object.data)?;
        if let Some(types) = &object.types {
            types.kind.clone_into(&mut view.kind);
        }
        view.name = object.metadata.name.clone().unwrap_or_default();
        view.generation = object.metadata.generation;
        Ok(view)
    }

    /// Writes the conditions back into `object`: `status.v1beta2.conditions` when the object has
    /// that list (a v1beta1 object), else `status.conditions`.
    ///
    /// ```
    /// use capi_conditions::{new_condition, set, unstructured::UnstructuredConditions};
    /// use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
    /// let mut obj = serde_json::json!({"kind": "FooMachinePool", "metadata": {"name": "p", "generation": 2}});
    /// let mut view = UnstructuredConditions::from_value(&obj).unwrap();
    /// let now = Time(k8s_openapi::jiff::Timestamp::from_second(1_800_000_000).unwrap());
    /// set(&mut view, new_condition("Ready", "True", "Ready", ""), &now);
    /// view.write_to(&mut obj);
    /// assert_eq!(obj["status"]["conditions"][0]["observedGeneration"], 2);
    /// ```
    pub fn write_to(&self, object: &mut Value) {
        let list = Value::Array(
            self.conditions
                .iter()
                .filter_map(|c| {
                    serde_json::to_value(capi_machinepool_api::wire::GoCondition(c)).ok()
                })
                .collect(),
        );
        if !object["status"].is_object() {
            object["status"] = Value::Object(serde_json::Map::new());
        }
        if object["status"]["v1beta2"]["conditions"].is_array() {
            object["status"]["v1beta2"]["conditions"] = list;
        } else {
            object["status"]["conditions"] = list;
        }
    }
}

crate::impl_conditions!(UnstructuredConditions => conditions);

crate::impl_object_identity!(UnstructuredConditions => kind: kind, name: name, generation: generation);

/// The conditions of an InfraMachinePool, in the shape of its contract version.
#[derive(Debug, Clone, PartialEq)]
pub enum ContractConditions {
    /// v1beta2 contract: `metav1.Condition`s.
    V1Beta2(Vec<Condition>),
    /// v1beta1 contract: Cluster API v1beta1 conditions (with severity).
    V1Beta1(Vec<LegacyCondition>),
}

/// Why [`contract_conditions`] could not read the list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContractConditionsError {
    /// `status.conditions` is absent or `null`.
    #[error("status.conditions is missing")]
    Missing,
    /// A condition could not be read.
    #[error("{}: {}", .0.path("status.conditions"), .0.problem)]
    Unreadable(Issue),
}

/// `status.conditions` in the shape of `contract`. For the v1beta2 contract, a list in the
/// deprecated v1beta1 shape (a `severity`, or no `reason` / `message`) is returned as
/// [`ContractConditions::V1Beta1`] (temporary compatibility).
///
/// # Errors
/// Missing, or a condition that cannot be read (see [`read_list`]).
///
/// ```
/// use capi_conditions::unstructured::{ContractConditions, contract_conditions};
/// use capi_contract::Contract;
/// let obj = serde_json::json!({"status": {"conditions": [{"type": "Ready", "status": "False",
///   "severity": "Warning", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}});
/// assert!(matches!(contract_conditions(&obj, Contract::V1Beta2),
///     Ok(ContractConditions::V1Beta1(c)) if c[0].severity == "Warning"));
/// ```
pub fn contract_conditions(
    object: &Value,
    contract: Contract,
) -> Result<ContractConditions, ContractConditionsError> {
    let list = &object["status"]["conditions"];
    if list.is_null() {
        return Err(ContractConditionsError::Missing);
    }
    let (raws, issues) = read_list(list);
    if let Some(issue) = issues.into_iter().next() {
        return Err(ContractConditionsError::Unreadable(issue));
    }
    // Conditions are metav1.Condition from the v1beta2 contract on.
    let legacy = contract < Contract::V1Beta2 || raws.iter().any(|(_, c)| c.legacy_shaped);
    Ok(if legacy {
        ContractConditions::V1Beta1(raws.iter().map(|(_, c)| c.to_legacy()).collect())
    } else {
        ContractConditions::V1Beta2(raws.iter().map(|(_, c)| c.to_condition()).collect())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HasConditions;
    use serde_json::json;

    #[test]
    fn prefers_v1beta2_block_and_defaults_reason() {
        let obj = json!({"status": {"conditions": [{"type": "Legacy", "status": "True"}],
            "v1beta2": {"conditions": [{"type": "Ready", "status": "False", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}});
        let view = UnstructuredConditions::from_value(&obj).unwrap();
        assert_eq!(view.conditions().len(), 1);
        assert_eq!(view.conditions()[0].reason, reason::NO_REASON_REPORTED);
        let mut obj2 = obj.clone();
        view.write_to(&mut obj2);
        assert_eq!(
            obj2["status"]["conditions"], obj["status"]["conditions"],
            "legacy list untouched"
        );
    }

    #[test]
    fn errors() {
        let bad = |c: Value| {
            UnstructuredConditions::from_value(&json!({"status": {"conditions": [c]}})).unwrap_err()
        };
        assert_eq!(
            bad(json!({"status": "True"})),
            UnstructuredError::MissingType
        );
        assert_eq!(
            bad(json!({"type": "A"})),
            UnstructuredError::MissingStatus("A".into())
        );
        assert!(matches!(
            bad(json!({"type": "A", "status": "Yes"})),
            UnstructuredError::InvalidStatus { .. }
        ));
        assert!(matches!(
            bad(json!({"type": "A", "status": "True", "lastTransitionTime": "yesterday"})),
            UnstructuredError::InvalidTime(_)
        ));
        // Non-object items are skipped.
        let ok = UnstructuredConditions::from_value(&json!({"status": {"conditions": [1, "x"]}}))
            .unwrap();
        assert!(ok.conditions().is_empty());
    }

    #[test]
    fn contract_shapes() {
        let obj = json!({"status": {"conditions": [{"type": "Ready", "status": "True", "reason": "Ready", "message": "",
            "lastTransitionTime": "2026-01-01T00:00:00Z"}]}});
        assert!(
            matches!(contract_conditions(&obj, Contract::V1Beta2), Ok(ContractConditions::V1Beta2(c)) if c.len() == 1)
        );
        assert!(matches!(
            contract_conditions(&json!({}), Contract::V1Beta2),
            Err(ContractConditionsError::Missing)
        ));
    }

    #[test]
    fn check_list_reports_every_item_with_list_indices() {
        let list = json!([
            "not an object",
            {"type": "Ready", "status": "True", "reason": "Ok", "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"},
            {"type": "Ready", "status": "True", "reason": "", "message": "", "lastTransitionTime": "yesterday"}
        ]);
        let issues: Vec<(Option<usize>, &str)> = check_list(&list, Shape::V1Beta2)
            .iter()
            .map(|i| (i.index, i.field))
            .collect::<Vec<_>>()
            .into_iter()
            .collect();
        assert_eq!(
            issues,
            vec![
                (Some(0), ""),
                (Some(2), "lastTransitionTime"),
                (Some(2), "reason"),
                (Some(2), "type")
            ]
        );
    }
}
