//! Predicates reproducing Go `encoding/json` `omitempty` / `omitzero` decisions.
//!
//! Used in `skip_serializing_if` attributes so that the JSON we emit has exactly the keys
//! the Go types would emit. Lists and maps are `Option`s so that Go's nil and empty values stay
//! apart: both are left out by `omitempty`, but an empty (non-nil) one makes its `omitzero`
//! parent non-zero, and Go prints that parent as `{}`.

use std::collections::BTreeMap;

/// `omitzero` for a struct value (and `omitempty` for numbers and booleans): the value equals
/// its zero value.
pub(crate) fn is_zero<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// `omitempty` for a slice: nil or empty.
pub(crate) fn is_empty_list<T>(value: &Option<Vec<T>>) -> bool {
    value.as_ref().is_none_or(Vec::is_empty)
}

/// `omitempty` for a map: nil or empty.
pub(crate) fn is_empty_map<K, V>(value: &Option<BTreeMap<K, V>>) -> bool {
    value.as_ref().is_none_or(BTreeMap::is_empty)
}
