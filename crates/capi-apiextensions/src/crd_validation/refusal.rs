//! What the model refuses in a CRD: a field error, as the API server reports it in the
//! causes of a 422, or a request the server answers before validating it (a body it cannot
//! decode, a body over its size limit).

use crate::FieldError;

/// One refusal of a CRD. `Display` is the server's text: `<field path>: <message>`.
///
/// ```
/// use capi_apiextensions::{FieldError, Refusal};
/// let r = Refusal::from(FieldError::required("spec.group", ""));
/// assert_eq!(r.field(), "spec.group");
/// assert_eq!(r.message(), "Required value");
/// assert_eq!(r.to_string(), "spec.group: Required value");
/// ```
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// A field the server's validation refuses (a cause of its 422 answer).
    #[error(transparent)]
    Field(#[from] FieldError),
    /// A value the server's decoder refuses (a 400 answer: nothing else is judged).
    #[error(
        "{path}: cannot be decoded: {problem} (the API server answers 400 \"cannot be handled as a CustomResourceDefinition\" and judges nothing else)"
    )]
    Undecodable {
        /// Where (`<root>` for the whole object).
        path: String,
        /// What the decoder says (`cannot unmarshal string into bool`).
        problem: String,
    },
    /// A request over the server's size limit (a 413 answer), reported on `metadata.name`.
    #[error(
        "metadata.name: Request entity too large: limit is {limit} (the CRD is {size} bytes as JSON; split its versions' schemas or drop descriptions, e.g. controller-gen crd:maxDescLen=0)"
    )]
    TooLarge {
        /// The CRD's size as Go's `encoding/json` writes it, in bytes.
        size: usize,
        /// The server's limit, in bytes.
        limit: usize,
    },
}

impl Refusal {
    /// The field path the refusal is reported at.
    #[must_use]
    pub fn field(&self) -> &str {
        match self {
            Self::Field(e) => &e.field,
            Self::Undecodable { path, .. } => path,
            Self::TooLarge { .. } => "metadata.name",
        }
    }

    /// Everything after the field path (`Required value: ...`).
    #[must_use]
    pub fn message(&self) -> String {
        match self {
            Self::Field(e) => e.detail_text(),
            other => {
                let text = other.to_string();
                let skip = other.field().len() + 2;
                text.get(skip..).unwrap_or_default().to_owned()
            }
        }
    }

    /// The field error, when the refusal is one.
    #[must_use]
    pub fn as_field_error(&self) -> Option<&FieldError> {
        match self {
            Self::Field(e) => Some(e),
            _ => None,
        }
    }
}
