//! The CEL compiler the model judges rules with by default: [`capi_cel`] (parse, type-check,
//! `oldSelf`, cost per rule, per `messageExpression` and per schema, defaults against their
//! rules), as the API server compiles a CRD's rules on create. What it does not model is
//! left not judged, with the rule counted as such.

use std::cell::RefCell;

use serde_json::Value;

use super::cel::{CelRule, CelVerdict, RuleJudge};
use crate::field_error::{BadValue, FieldError, FieldErrorType};
use crate::go_text::go_json;

/// Judges each rule with `capi_cel`, compiling each version's schema once.
#[derive(Debug, Default)]
pub struct CelCompiler {
    /// The last schema compiled: its field path and report (versions are walked in turn).
    last: RefCell<Option<(String, capi_cel::CrdCelReport)>>,
}

impl CelCompiler {
    /// A compiler with nothing compiled yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs `f` on the report of the schema at `root_path`, compiling it the first time.
    fn with_report<T>(
        &self,
        root: &Value,
        root_path: &str,
        f: impl FnOnce(&capi_cel::CrdCelReport) -> T,
    ) -> T {
        let mut last = self.last.borrow_mut();
        if last.as_ref().is_none_or(|(path, _)| path != root_path) {
            *last = Some((
                root_path.to_owned(),
                capi_cel::compile_schema(root, root_path),
            ));
        }
        match last.as_ref() {
            Some((_, report)) => f(report),
            None => f(&capi_cel::CrdCelReport::default()),
        }
    }
}

/// True when `path` is `prefix` or below it.
fn at_or_below(path: &str, prefix: &str) -> bool {
    path.strip_prefix(prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
}

/// True for a path inside a rule entry (`...x-kubernetes-validations[0].rule`) or a node's
/// list of rules, rather than the schema as a whole (the total, a default).
fn in_rules(path: &str) -> bool {
    path.contains(".x-kubernetes-validations")
}

/// A `x-kubernetes-validations` entry as the server prints the internal `ValidationRule`
/// struct it passes to `field.Invalid`: `json.Marshal` with Go's field names in declaration
/// order, HTML-escaped strings, `null` for the unset pointers (`Reason`, `OptionalOldSelf`).
fn go_validation_rule(entry: &Value) -> String {
    let text = |k: &str| go_json(&Value::from(entry[k].as_str().unwrap_or_default()));
    let pointer = |v: &Value| match v {
        Value::Null => "null".to_owned(),
        other => go_json(other),
    };
    format!(
        r#"{{"Rule":{},"Message":{},"MessageExpression":{},"Reason":{},"FieldPath":{},"OptionalOldSelf":{}}}"#,
        text("rule"),
        text("message"),
        text("messageExpression"),
        pointer(&entry["reason"]),
        text("fieldPath"),
        pointer(&entry["optionalOldSelf"]),
    )
}

/// The server's `field.Error` for one of `capi_cel`'s; `entry` is the rule entry the error is
/// about (for errors that print it).
fn field_error(e: &capi_cel::FieldError, entry: Option<&Value>) -> FieldError {
    match e.kind {
        capi_cel::ErrorKind::Invalid => {
            let value = match &e.value {
                Some(capi_cel::ErrorValue::Json(v)) => Some(BadValue::Json(v.clone())),
                Some(capi_cel::ErrorValue::RuleEntry) => {
                    entry.map(|r| BadValue::Marshaled(go_validation_rule(r)))
                }
                None => None,
            };
            FieldError::new(
                FieldErrorType::Invalid,
                e.field_path.clone(),
                value,
                e.detail.clone(),
            )
        }
        capi_cel::ErrorKind::Forbidden => {
            FieldError::forbidden(e.field_path.clone(), e.detail.clone())
        }
        capi_cel::ErrorKind::Required => {
            FieldError::required(e.field_path.clone(), e.detail.clone())
        }
    }
}

impl RuleJudge for CelCompiler {
    fn judge_rule(&self, rule: &CelRule<'_>) -> CelVerdict {
        self.with_report(rule.root, rule.root_path, |report| {
            // Left to the server: the rule itself, or every rule of its node.
            let node_rules = format!("{}.x-kubernetes-validations", rule.schema_path);
            let not_judged = report
                .not_judged
                .iter()
                .any(|n| at_or_below(&n.field_path, rule.path) || n.field_path == node_rules);
            if not_judged {
                return CelVerdict::NotJudged;
            }
            CelVerdict::Judged(
                report
                    .errors
                    .iter()
                    .filter(|e| at_or_below(&e.field_path, rule.path))
                    .map(|e| field_error(e, Some(rule.rule)))
                    .collect(),
            )
        })
    }

    fn judge_schema(&self, root: &Value, root_path: &str) -> CelVerdict {
        self.with_report(root, root_path, |report| {
            let errors: Vec<FieldError> = report
                .errors
                .iter()
                .filter(|e| !in_rules(&e.field_path))
                .map(|e| field_error(e, None))
                .collect();
            let not_judged = report.not_judged.iter().any(|n| !in_rules(&n.field_path));
            // A refusal found is certain; with none, what was not judged decides.
            if not_judged && errors.is_empty() {
                CelVerdict::NotJudged
            } else {
                CelVerdict::Judged(errors)
            }
        })
    }

    fn not_judged_reason(&self) -> &'static str {
        NOT_MODELLED
    }

    fn judges_defaults(&self) -> bool {
        true
    }
}

/// What a rule the compiler leaves to the server is counted as.
pub(super) const NOT_MODELLED: &str =
    "CEL rules using what the offline CEL model does not cover (docs/crd-validation.md)";

#[cfg(test)]
mod tests {
    use super::*;

    /// The server's cause for a rule that does not compile, from a real API server
    /// (apiextensions-apiserver v0.37.2; `crates/capi-machinepool-cli/tests/server.rs` compares
    /// the whole message with the live server's).
    #[test]
    fn a_rule_entry_prints_as_the_internal_struct() {
        let entry = serde_json::json!({"rule": "self.replicas >"});
        assert_eq!(
            go_validation_rule(&entry),
            r#"{"Rule":"self.replicas \u003e","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}"#
        );
        let full = serde_json::json!({"rule": "a", "message": "m", "reason": "FieldValueForbidden",
            "fieldPath": ".x", "optionalOldSelf": true, "messageExpression": "'e'"});
        assert_eq!(
            go_validation_rule(&full),
            r#"{"Rule":"a","Message":"m","MessageExpression":"'e'","Reason":"FieldValueForbidden","FieldPath":".x","OptionalOldSelf":true}"#
        );
    }

    #[test]
    fn paths_are_matched_by_whole_segments() {
        assert!(at_or_below(
            "a.x-kubernetes-validations[1].rule",
            "a.x-kubernetes-validations[1]"
        ));
        assert!(!at_or_below(
            "a.x-kubernetes-validations[10].rule",
            "a.x-kubernetes-validations[1]"
        ));
        assert!(at_or_below("a.b", "a.b"));
        assert!(in_rules(
            "s.properties[spec].x-kubernetes-validations[0].rule"
        ));
        assert!(!in_rules("s.properties[spec].default"));
    }
}
