//! Field-path errors in the shape of apimachinery's `field.Error`
//! (`k8s.io/apimachinery/pkg/util/validation/field/errors.go`): one type for every finding
//! of the model, printed as the API server prints it.

use std::fmt;

use serde_json::Value;

use crate::go_text::{go_float, go_json, go_quote};

/// The kind of a field error (apimachinery `field.ErrorType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FieldErrorType {
    /// A required value is missing.
    Required,
    /// The value is not valid.
    Invalid,
    /// The value is of the wrong type (printed as `Invalid value`, as apimachinery does).
    TypeInvalid,
    /// The value is not one of the allowed values.
    NotSupported,
    /// The value (or, in a keyed list, its key) appears twice.
    Duplicate,
    /// The value may not be set (or changed).
    Forbidden,
    /// The value is too long.
    TooLong,
    /// The list or map has too many entries.
    TooMany,
    /// The server failed to validate (not the value's fault).
    Internal,
}

impl FieldErrorType {
    /// The text apimachinery prints for the type.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Required => "Required value",
            Self::Invalid | Self::TypeInvalid => "Invalid value",
            Self::NotSupported => "Unsupported value",
            Self::Duplicate => "Duplicate value",
            Self::Forbidden => "Forbidden",
            Self::TooLong => "Too long",
            Self::TooMany => "Too many",
            Self::Internal => "Internal error",
        }
    }

    /// The `reason` used in a Kubernetes `Status` cause (`FieldValueRequired`, ...).
    #[must_use]
    pub const fn cause_reason(self) -> &'static str {
        match self {
            Self::Required => "FieldValueRequired",
            Self::Invalid => "FieldValueInvalid",
            Self::TypeInvalid => "FieldValueTypeInvalid",
            Self::NotSupported => "FieldValueNotSupported",
            Self::Duplicate => "FieldValueDuplicate",
            Self::Forbidden => "FieldValueForbidden",
            Self::TooLong => "FieldValueTooLong",
            Self::TooMany => "FieldValueTooMany",
            Self::Internal => "InternalError",
        }
    }
}

/// The offending value of a [`FieldError`], printed as apimachinery's `ErrorBody` prints a
/// `BadValue`: a string quoted (Go `%q`), a number or boolean as Go's `%v`, anything else as
/// JSON.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum BadValue {
    /// A string (quoted when printed).
    String(String),
    /// Any JSON value (a string is quoted, numbers and booleans printed bare, the rest as JSON).
    Json(Value),
    /// A Go value apimachinery prints with `json.Marshal` (a pointer, a typed struct whose
    /// fields keep their declaration order), already printed so: shown as given.
    Marshaled(String),
}

impl From<&str> for BadValue {
    fn from(value: &str) -> Self {
        Self::String(value.to_owned())
    }
}

impl From<&String> for BadValue {
    fn from(value: &String) -> Self {
        Self::String(value.clone())
    }
}

impl From<String> for BadValue {
    fn from(value: String) -> Self {
        Self::String(value)
    }
}

impl From<&Value> for BadValue {
    fn from(value: &Value) -> Self {
        Self::Json(value.clone())
    }
}

impl From<Value> for BadValue {
    fn from(value: Value) -> Self {
        Self::Json(value)
    }
}

impl BadValue {
    /// The string, when the value is one.
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::String(s) | Self::Json(Value::String(s)) => Some(s),
            Self::Json(_) | Self::Marshaled(_) => None,
        }
    }
}

impl fmt::Display for BadValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::String(s) | Self::Json(Value::String(s)) => f.write_str(&go_quote(s)),
            Self::Json(Value::Number(n)) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
                (Some(i), _, _) => write!(f, "{i}"),
                (None, Some(u), _) => write!(f, "{u}"),
                (None, None, Some(x)) => f.write_str(&go_float(x)),
                _ => write!(f, "{n}"),
            },
            Self::Json(other) => f.write_str(&go_json(other)),
            Self::Marshaled(text) => f.write_str(text),
        }
    }
}

/// One validation finding: what is wrong, where, with which value.
///
/// ```
/// use capi_apiextensions::{FieldError, FieldErrorType};
/// let e = FieldError::invalid("spec.template.spec.version", "1.2.3", "must start with v");
/// assert_eq!(e.to_string(), r#"spec.template.spec.version: Invalid value: "1.2.3": must start with v"#);
/// assert_eq!(e.type_, FieldErrorType::Invalid);
/// let e = FieldError::new(FieldErrorType::TooMany, "spec.providerIDList", Some(serde_json::json!(5).into()), "must have at most 4 items");
/// assert_eq!(e.to_string(), "spec.providerIDList: Too many: 5: must have at most 4 items");
/// ```
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{field}: {}", self.detail_text())]
pub struct FieldError {
    /// The kind of error.
    pub type_: FieldErrorType,
    /// Dotted field path, e.g. `spec.template.spec.bootstrap`.
    pub field: String,
    /// The offending value, when one is reported.
    pub value: Option<BadValue>,
    /// Human readable detail.
    pub detail: String,
}

impl FieldError {
    /// An error of any type.
    #[must_use]
    pub fn new(
        type_: FieldErrorType,
        field: impl Into<String>,
        value: Option<BadValue>,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            type_,
            field: field.into(),
            value,
            detail: detail.into(),
        }
    }

    /// A `Required` error.
    #[must_use]
    pub fn required(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(FieldErrorType::Required, field, None, detail)
    }

    /// An `Invalid` error carrying the bad value.
    #[must_use]
    pub fn invalid(
        field: impl Into<String>,
        value: impl Into<BadValue>,
        detail: impl Into<String>,
    ) -> Self {
        Self::new(FieldErrorType::Invalid, field, Some(value.into()), detail)
    }

    /// A `Forbidden` error.
    #[must_use]
    pub fn forbidden(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(FieldErrorType::Forbidden, field, None, detail)
    }

    /// A `TooLong` error.
    #[must_use]
    pub fn too_long(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(FieldErrorType::TooLong, field, None, detail)
    }

    /// A `NotSupported` error: `value` is not one of `supported` (printed as Go quotes them,
    /// in the order given).
    #[must_use]
    pub fn not_supported(
        field: impl Into<String>,
        value: impl Into<BadValue>,
        supported: &[&str],
    ) -> Self {
        let quoted: Vec<String> = supported.iter().map(|s| go_quote(s)).collect();
        let detail = if quoted.is_empty() {
            String::new()
        } else {
            format!("supported values: {}", quoted.join(", "))
        };
        Self::new(
            FieldErrorType::NotSupported,
            field,
            Some(value.into()),
            detail,
        )
    }

    /// A `Duplicate` error.
    #[must_use]
    pub fn duplicate(field: impl Into<String>, value: impl Into<BadValue>) -> Self {
        Self::new(FieldErrorType::Duplicate, field, Some(value.into()), "")
    }

    /// A `TooMany` error: `actual` entries where at most `max` are allowed.
    #[must_use]
    pub fn too_many(field: impl Into<String>, actual: usize, max: usize) -> Self {
        Self::new(
            FieldErrorType::TooMany,
            field,
            Some(BadValue::Json(Value::from(actual))),
            format!("must have at most {max} items"),
        )
    }

    /// An `Internal` error (the server could not validate; no value printed).
    #[must_use]
    pub fn internal(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(FieldErrorType::Internal, field, None, detail)
    }

    /// The same error at `prefix.field` (`prefix` alone when the field is the value itself,
    /// printed `<nil>` by a validator run on a bare value).
    #[must_use]
    pub fn under(mut self, prefix: &str) -> Self {
        self.field = if self.field == "<nil>" {
            prefix.to_owned()
        } else {
            format!("{prefix}.{}", self.field)
        };
        self
    }

    /// Everything after the field path: `Invalid value: "v1": must start with v`, as
    /// apimachinery's `ErrorBody` prints it (`Required`, `Forbidden` and `Too long` never
    /// print a value).
    #[must_use]
    pub fn detail_text(&self) -> String {
        let shows_value = !matches!(
            self.type_,
            FieldErrorType::Required
                | FieldErrorType::Forbidden
                | FieldErrorType::TooLong
                | FieldErrorType::Internal
        );
        let mut out = self.type_.as_str().to_owned();
        if let Some(value) = self.value.as_ref().filter(|_| shows_value) {
            out.push_str(&format!(": {value}"));
        }
        if !self.detail.is_empty() {
            out.push_str(": ");
            out.push_str(&self.detail);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// apimachinery `field.Error.ErrorBody` (v0.37.2 `pkg/util/validation/field/errors.go`):
    /// simple types with `%v`, strings with `%q`, other values as JSON; Required, Forbidden and
    /// TooLong print no value; an empty detail adds nothing.
    #[test]
    fn error_bodies_as_apimachinery_prints_them() {
        let body = |t, v: Option<Value>, d: &str| {
            FieldError::new(t, "f", v.map(BadValue::Json), d).detail_text()
        };
        assert_eq!(body(FieldErrorType::Required, None, ""), "Required value");
        assert_eq!(
            body(
                FieldErrorType::Duplicate,
                Some(json!({"conditionType": "A"})),
                ""
            ),
            r#"Duplicate value: {"conditionType":"A"}"#
        );
        assert_eq!(
            body(
                FieldErrorType::NotSupported,
                Some(json!("Sideways")),
                r#"supported values: "Positive", "Negative""#
            ),
            r#"Unsupported value: "Sideways": supported values: "Positive", "Negative""#
        );
        assert_eq!(
            body(
                FieldErrorType::TooLong,
                Some(json!("x")),
                "may not be more than 1 byte"
            ),
            "Too long: may not be more than 1 byte"
        );
        assert_eq!(
            body(FieldErrorType::Invalid, Some(json!(-1)), "d"),
            "Invalid value: -1: d"
        );
        assert_eq!(
            body(FieldErrorType::Invalid, Some(json!(1.5)), "d"),
            "Invalid value: 1.5: d"
        );
        assert_eq!(
            body(FieldErrorType::Invalid, Some(json!(true)), "d"),
            "Invalid value: true: d"
        );
    }
}
