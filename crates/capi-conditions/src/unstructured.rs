//! v1beta2 conditions of an unstructured object (e.g. an InfraMachinePool read as JSON).

use std::borrow::Cow;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use serde_json::Value;

use crate::access::{ConditionsMut, HasConditions};
use crate::time::zero_time;
use crate::types::{FALSE, TRUE, UNKNOWN, reason};

/// Why an unstructured object's conditions cannot be read.
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

fn string(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

impl UnstructuredConditions {
    /// Reads conditions as upstream does: `status.v1beta2.conditions` when that is a list
    /// (even empty), else `status.conditions`; non-object items are skipped, an empty reason
    /// becomes `NoReasonReported`, legacy fields (severity) are ignored.
    ///
    /// # Errors
    /// A condition without type or status, an invalid status, or an unparsable time.
    pub fn from_value(object: &Value) -> Result<Self, UnstructuredError> {
        let status = &object["status"];
        let list = status["v1beta2"]["conditions"]
            .as_array()
            .or_else(|| status["conditions"].as_array());
        let mut conditions = Vec::new();
        for item in list.into_iter().flatten().filter(|i| i.is_object()) {
            let type_ = string(item, "type");
            if type_.is_empty() {
                return Err(UnstructuredError::MissingType);
            }
            let status = string(item, "status");
            if status.is_empty() {
                return Err(UnstructuredError::MissingStatus(type_));
            }
            if ![TRUE, FALSE, UNKNOWN].contains(&status.as_str()) {
                return Err(UnstructuredError::InvalidStatus { type_, status });
            }
            let ltt = match item
                .get("lastTransitionTime")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
            {
                Some(s) => Time(
                    s.parse()
                        .map_err(|_| UnstructuredError::InvalidTime(s.to_owned()))?,
                ),
                None => zero_time(),
            };
            let mut reason_text = string(item, "reason");
            if reason_text.is_empty() {
                reason::NO_REASON_REPORTED.clone_into(&mut reason_text);
            }
            conditions.push(Condition {
                type_,
                status,
                reason: reason_text,
                message: string(item, "message"),
                last_transition_time: ltt,
                observed_generation: item.get("observedGeneration").and_then(Value::as_i64),
            });
        }
        Ok(Self {
            kind: string(object, "kind"),
            name: string(&object["metadata"], "name"),
            generation: object["metadata"]["generation"].as_i64(),
            conditions,
        })
    }
}

impl UnstructuredConditions {
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
                .filter_map(|c| serde_json::to_value(c).ok())
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

impl ConditionsMut for UnstructuredConditions {
    fn conditions_mut(&mut self) -> &mut Vec<Condition> {
        &mut self.conditions
    }
}

impl HasConditions for UnstructuredConditions {
    fn conditions(&self) -> &[Condition] {
        &self.conditions
    }
    fn generation(&self) -> Option<i64> {
        self.generation
    }
    fn kind(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.kind)
    }
    fn name(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
}
