//! Field-path errors in the shape of apimachinery's `field.Error`.

use std::fmt;

/// The kind of a field error (apimachinery `field.ErrorType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldErrorType {
    /// A required value is missing.
    Required,
    /// The value is not valid.
    Invalid,
    /// The value may not be set (or changed).
    Forbidden,
    /// The value is too long.
    TooLong,
}

impl FieldErrorType {
    /// The text apimachinery prints for the type.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Required => "Required value",
            Self::Invalid => "Invalid value",
            Self::Forbidden => "Forbidden",
            Self::TooLong => "Too long",
        }
    }

    /// The `reason` used in a Kubernetes `Status` cause (`FieldValueRequired`, ...).
    #[must_use]
    pub const fn cause_reason(self) -> &'static str {
        match self {
            Self::Required => "FieldValueRequired",
            Self::Invalid => "FieldValueInvalid",
            Self::Forbidden => "FieldValueForbidden",
            Self::TooLong => "FieldValueTooLong",
        }
    }
}

/// One validation finding: what is wrong, where, with which value.
///
/// ```
/// use capi_machinepool_admission::{FieldError, FieldErrorType};
/// let e = FieldError::invalid("spec.template.spec.version", "1.2.3", "must start with v");
/// assert_eq!(e.to_string(), r#"spec.template.spec.version: Invalid value: "1.2.3": must start with v"#);
/// assert_eq!(e.type_, FieldErrorType::Invalid);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// The kind of error.
    pub type_: FieldErrorType,
    /// Dotted field path, e.g. `spec.template.spec.bootstrap`.
    pub field: String,
    /// The offending value, when one is reported.
    pub value: Option<String>,
    /// Human readable detail.
    pub detail: String,
}

impl FieldError {
    /// A `Required` error.
    #[must_use]
    pub fn required(field: &str, detail: &str) -> Self {
        Self {
            type_: FieldErrorType::Required,
            field: field.into(),
            value: None,
            detail: detail.into(),
        }
    }

    /// An `Invalid` error carrying the bad value.
    #[must_use]
    pub fn invalid(field: &str, value: &str, detail: &str) -> Self {
        Self {
            type_: FieldErrorType::Invalid,
            field: field.into(),
            value: Some(value.into()),
            detail: detail.into(),
        }
    }

    /// A `Forbidden` error.
    #[must_use]
    pub fn forbidden(field: &str, detail: &str) -> Self {
        Self {
            type_: FieldErrorType::Forbidden,
            field: field.into(),
            value: None,
            detail: detail.into(),
        }
    }

    /// A `TooLong` error.
    #[must_use]
    pub fn too_long(field: &str, detail: &str) -> Self {
        Self {
            type_: FieldErrorType::TooLong,
            field: field.into(),
            value: None,
            detail: detail.into(),
        }
    }
}

impl FieldError {
    /// Everything after the field path: `Invalid value: "v1": must start with v`. A value is
    /// quoted as a short excerpt (see [`capi_diagnostics::excerpt`](mod@capi_diagnostics::excerpt)).
    #[must_use]
    pub fn detail_text(&self) -> String {
        match &self.value {
            Some(value) => format!(
                "{}: \"{}\": {}",
                self.type_.as_str(),
                capi_diagnostics::excerpt::Excerpt::new(value),
                self.detail
            ),
            None => format!("{}: {}", self.type_.as_str(), self.detail),
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.detail_text())
    }
}
