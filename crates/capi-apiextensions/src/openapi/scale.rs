//! The scale subresource's check of `specReplicasPath` on every create and update
//! (`apiextensions-apiserver/pkg/registry/customresource/validator.go`, `ValidateScaleSpec`):
//! the value there, read with `unstructured.NestedInt64`, is an int64 (a whole float is not),
//! not negative, and fits an int32. Errors are reported at the path as written in the CRD
//! (`.spec.replicas`, leading dot included).

use serde_json::Value;

use crate::go_text::{go_type, go_v};
use crate::{BadValue, FieldError};

/// The errors for `object` with the scale subresource's `specReplicasPath` (`.spec.replicas`).
#[must_use]
pub fn validate_scale_spec(object: &Value, spec_replicas_path: &str) -> Vec<FieldError> {
    let fields: Vec<&str> = spec_replicas_path
        .strip_prefix('.')
        .unwrap_or(spec_replicas_path)
        .split('.')
        .collect();
    let invalid = |value: i64, detail: String| {
        vec![FieldError::invalid(
            spec_replicas_path,
            BadValue::Json(value.into()),
            &detail,
        )]
    };
    let mut at = object;
    for (i, field) in fields.iter().enumerate() {
        let Value::Object(map) = at else {
            return invalid(
                0,
                format!(
                    ".{} accessor error: {} is of the type {}, expected map[string]interface{{}}",
                    fields[..=i].join("."),
                    go_v(at),
                    go_type(at)
                ),
            );
        };
        match map.get(*field) {
            Some(next) => at = next,
            None => return Vec::new(),
        }
    }
    match at.as_number().and_then(serde_json::Number::as_i64) {
        Some(n) if n < 0 => invalid(n, "should be a non-negative integer".into()),
        Some(n) if n > i64::from(i32::MAX) => {
            invalid(n, format!("should be less than or equal to {}", i32::MAX))
        }
        Some(_) => Vec::new(),
        None => invalid(
            0,
            format!(
                ".{} accessor error: {} is of the type {}, expected int64",
                fields.join("."),
                go_v(at),
                go_type(at)
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Messages of `unstructured.NestedInt64` (`"%v accessor error: %v is of the type %T,
    /// expected int64"`) and of `ValidateScaleSpec`, as the real server returned them in
    /// tests/e2e/tests/validate_generated.rs.
    #[test]
    fn replicas_must_be_an_int64() {
        let text = |o: Value| -> Vec<String> {
            validate_scale_spec(&o, ".spec.replicas")
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        assert_eq!(
            text(json!({"spec": {"replicas": 2.0}})),
            [
                ".spec.replicas: Invalid value: 0: .spec.replicas accessor error: 2 is of the type float64, expected int64"
            ]
        );
        assert_eq!(
            text(json!({"spec": {"replicas": "a"}})),
            [
                ".spec.replicas: Invalid value: 0: .spec.replicas accessor error: a is of the type string, expected int64"
            ]
        );
        assert_eq!(
            text(json!({"spec": {"replicas": -1}})),
            [".spec.replicas: Invalid value: -1: should be a non-negative integer"]
        );
        assert!(text(json!({"spec": {}})).is_empty());
        assert!(text(json!({"spec": {"replicas": 3}})).is_empty());
    }
}
