//! `x-kubernetes-validations`: the checks of `ValidateCustomResourceDefinitionOpenAPISchema`
//! that need no CEL compiler (`pkg/apis/apiextensions/validation/validation.go` lines
//! 1265-1293: an empty rule, an empty or multi-line message, a multi-line rule without a
//! message, an empty `messageExpression`, an unknown `reason`, an empty, multi-line or
//! invalid `fieldPath`).
//!
//! Compiling the rules (syntax, types against the schema, the cost budget, `oldSelf` and
//! `optionalOldSelf`, `messageExpression`) is the API server's: not judged here, and every
//! rule left to it is counted, so that `crd-valid` never calls such a CRD accepted.

use serde_json::Value;

use super::{Bad, Refusals};

/// `supportedValidationReason`.
const REASONS: &[&str] = &[
    "FieldValueDuplicate",
    "FieldValueForbidden",
    "FieldValueInvalid",
    "FieldValueRequired",
];

const NOT_COMPILED: &str = "CEL rules (x-kubernetes-validations) not compiled here";

fn has_newlines(s: &str) -> bool {
    s.contains(['\n', '\r'])
}

/// Checks the rules of one schema node; `clean` is false when the node already has schema
/// errors (the server then does not compile its rules either).
pub(super) fn validate(node: &Value, at: &str, clean: bool, r: &mut Refusals) {
    let Some(rules) = node
        .get("x-kubernetes-validations")
        .and_then(Value::as_array)
    else {
        return;
    };
    let before = r.errors.len();
    for (i, rule) in rules.iter().enumerate() {
        let path = format!("{at}.x-kubernetes-validations[{i}]");
        let text = |k: &str| rule[k].as_str().unwrap_or_default();
        let (expr, message, message_expr) =
            (text("rule"), text("message"), text("messageExpression"));
        let trimmed_rule = expr.trim();
        let trimmed_message = message.trim();
        if trimmed_rule.is_empty() {
            r.required(format!("{path}.rule"), "rule is not specified");
        } else if !message.is_empty() && trimmed_message.is_empty() {
            r.invalid(
                format!("{path}.message"),
                &Bad::Str(message),
                "must be non-empty if specified",
            );
        } else if has_newlines(trimmed_message) {
            r.invalid(
                format!("{path}.message"),
                &Bad::Str(message),
                "must not contain line breaks",
            );
        } else if has_newlines(trimmed_rule) && trimmed_message.is_empty() {
            r.required(
                format!("{path}.message"),
                "message must be specified if rule contains line breaks",
            );
        }
        if !message_expr.is_empty() && message_expr.trim().is_empty() {
            r.required(
                format!("{path}.messageExpression"),
                "messageExpression must be non-empty if specified",
            );
        }
        if let Some(reason) = rule.get("reason").and_then(Value::as_str)
            && !REASONS.contains(&reason)
        {
            r.not_supported(format!("{path}.reason"), reason, REASONS);
        }
        let field_path = text("fieldPath");
        if !field_path.is_empty() && field_path.trim().is_empty() {
            r.invalid(
                format!("{path}.fieldPath"),
                &Bad::Str(field_path),
                "must be non-empty if specified",
            );
        }
        if has_newlines(field_path) {
            r.invalid(
                format!("{path}.fieldPath"),
                &Bad::Str(field_path),
                "must not contain line breaks",
            );
        }
        if !field_path.is_empty() && !field_path_valid(node, field_path) {
            r.invalid(
                format!("{path}.fieldPath"),
                &Bad::Str(field_path),
                "must be a valid path",
            );
        }
    }
    if clean && r.errors.len() == before {
        for rule in rules {
            if !rule["rule"].as_str().unwrap_or_default().trim().is_empty() {
                r.not_judged(NOT_COMPILED);
            }
        }
    }
}

/// `cel.ValidFieldPath` on the node's schema: `.a.b`, `['key']` into maps, `[n]` into lists.
fn field_path_valid(schema: &Value, path: &str) -> bool {
    let mut node = schema;
    let mut rest = path;
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            let name = &after[..end];
            if name.is_empty() {
                return false;
            }
            match node["properties"].get(name) {
                Some(next) => node = next,
                None if node["additionalProperties"].is_object() => {
                    node = &node["additionalProperties"];
                }
                None => return false,
            }
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let Some(end) = after.find(']') else {
                return false;
            };
            let key = &after[..end];
            if key.starts_with('\'') && key.ends_with('\'') && key.len() >= 2 {
                let name = &key[1..key.len() - 1];
                match node["properties"].get(name) {
                    Some(next) => node = next,
                    None if node["additionalProperties"].is_object() => {
                        node = &node["additionalProperties"];
                    }
                    None => return false,
                }
            } else if key.parse::<u64>().is_ok() && node["items"].is_object() {
                node = &node["items"];
            } else {
                return false;
            }
            rest = &after[end + 1..];
        } else {
            return false;
        }
    }
    true
}
