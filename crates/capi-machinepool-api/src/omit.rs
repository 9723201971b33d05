//! Predicates reproducing Go `encoding/json` `omitempty` / `omitzero` decisions.
//!
//! Used in `skip_serializing_if` attributes so that the JSON we emit has exactly the keys
//! the Go types would emit.

/// `omitzero` for a struct value (and `omitempty` for numbers and booleans): the value equals
/// its zero value.
pub(crate) fn is_zero<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}
