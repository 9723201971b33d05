//! The node budget of one load: every document kept, every patch use and every patch result
//! is counted against [`Limits::max_total_nodes`](crate::Limits::max_total_nodes), so that no
//! combination of documents that are each within the per-document limits can exhaust memory.

use serde_json::Value;

use crate::{Limits, ManifestError};

/// Nodes counted so far against a limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    used: usize,
    limit: usize,
}

impl Budget {
    /// A budget of `limits.max_total_nodes` nodes.
    #[must_use]
    pub fn new(limits: &Limits) -> Self {
        Self {
            used: 0,
            limit: limits.max_total_nodes,
        }
    }

    /// Nodes counted so far.
    #[must_use]
    pub fn used(&self) -> usize {
        self.used
    }

    /// Counts `nodes` more, for what `what` names (a file, a patch).
    ///
    /// # Errors
    /// [`ManifestError::TooManyNodes`] when the total passes the limit.
    pub fn charge(&mut self, nodes: usize, what: &str) -> Result<(), ManifestError> {
        self.used = self.used.saturating_add(nodes);
        if self.used > self.limit {
            return Err(ManifestError::TooManyNodes {
                path: what.to_owned(),
                limit: self.limit,
            });
        }
        Ok(())
    }

    /// Counts the nodes of `value` (see [`nodes`]).
    ///
    /// # Errors
    /// See [`Budget::charge`].
    pub fn charge_value(&mut self, value: &Value, what: &str) -> Result<(), ManifestError> {
        let room = self.limit.saturating_sub(self.used).saturating_add(1);
        self.charge(nodes_up_to(value, room), what)
    }
}

/// The nodes of a value as a YAML parser counts them: every scalar, sequence and mapping, and
/// every mapping key.
#[must_use]
pub fn nodes(value: &Value) -> usize {
    nodes_up_to(value, usize::MAX)
}

/// [`nodes`], stopping once `cap` is reached (a value past the budget is not walked whole).
fn nodes_up_to(value: &Value, cap: usize) -> usize {
    let mut count = 0usize;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        count += 1;
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                count += map.len();
                stack.extend(map.values());
            }
            _ => {}
        }
        if count >= cap {
            return count;
        }
    }
    count
}

/// The deepest nesting of sequences and mappings in `value` (0 for a scalar).
#[must_use]
pub fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((v, d)) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items.iter().map(|i| (i, d + 1))),
            Value::Object(map) => stack.extend(map.values().map(|i| (i, d + 1))),
            _ => deepest = deepest.max(d),
        }
        if matches!(v, Value::Array(_) | Value::Object(_)) {
            deepest = deepest.max(d + 1);
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nodes_count_scalars_collections_and_keys() {
        // {a: [1, 2], b: c}: the mapping, keys a and b, the sequence, 1, 2, c.
        assert_eq!(nodes(&json!({"a": [1, 2], "b": "c"})), 7);
        assert_eq!(nodes(&json!(null)), 1);
        assert_eq!(depth(&json!({"a": [1, {"b": 2}]})), 3);
        assert_eq!(depth(&json!(1)), 0);
    }

    #[test]
    fn the_budget_stops_at_its_limit() {
        let limits = Limits {
            max_total_nodes: 10,
            ..Limits::default()
        };
        let mut budget = Budget::new(&limits);
        budget.charge_value(&json!([1, 2, 3]), "a").unwrap();
        assert_eq!(budget.used(), 4);
        let err = budget
            .charge_value(&json!([1, 2, 3, 4, 5, 6]), "b")
            .unwrap_err();
        assert!(matches!(err, ManifestError::TooManyNodes { .. }), "{err}");
    }
}
