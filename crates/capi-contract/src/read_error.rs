//! Why a contract field could not be read (re-exported by [`crate::reader`]).

/// Why a field could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// The field is absent (or null).
    #[error("{path} is missing")]
    Missing {
        /// Dotted path.
        path: String,
    },
    /// The field has another type, or a value out of range.
    #[error("{path}: expected {expected}, found {found}")]
    WrongType {
        /// Dotted path.
        path: String,
        /// What the contract expects.
        expected: &'static str,
        /// What was found (JSON text, truncated).
        found: String,
    },
    /// The contract (and every older contract it still reads) has no such field
    /// ([`ContractField`](crate::fields::ContractField) without a row for it).
    #[error("contract {contract} has no such field")]
    NotInContract {
        /// The contract read at.
        contract: crate::Contract,
    },
}

impl ReadError {
    /// True for [`ReadError::Missing`] and [`ReadError::NotInContract`]: the object holds no
    /// value for the field (the contract's "missing means ..." defaults apply).
    #[must_use]
    pub fn is_missing(&self) -> bool {
        matches!(self, Self::Missing { .. } | Self::NotInContract { .. })
    }
}

/// Extension for the common "missing means default" contract rule.
pub trait ReadResultExt<T> {
    /// `Ok(default)` when the field is missing; wrong types stay errors.
    ///
    /// # Errors
    /// A [`ReadError::WrongType`].
    fn or_missing(self, default: T) -> Result<T, ReadError>;
}

impl<T> ReadResultExt<T> for Result<T, ReadError> {
    fn or_missing(self, default: T) -> Result<T, ReadError> {
        match self {
            Err(e) if e.is_missing() => Ok(default),
            other => other,
        }
    }
}
