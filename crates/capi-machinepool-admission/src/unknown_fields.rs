//! Fields a typed decode drops: what the API server prunes from an object because its
//! schema does not know them, reported as dotted paths (`spec.someFutureField`,
//! `status.conditions[1].extra`). A field whose value is zero (`null`, `false`, `0`, `""`,
//! `[]`, `{}`) is not reported: Go's `omitempty` would not print it either.
//!
//! The paths come from the decode itself: a key the typed object's `Deserialize` skips
//! (serde's `deserialize_ignored_any`, which derived types and k8s-openapi's types call for
//! keys they do not know) is reported, with no second pass over the object.
//! [`decode_with_unknown_fields`] keeps the typed object for callers that go on with it
//! (`capi-machinepool convert`); [`unknown_fields`] only lists the paths.

use std::fmt::Write as _;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// Whether `v` is Go's zero value of its JSON type (what `omitempty` leaves out).
fn is_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

/// The fields of `value` (paths such as `spec.someFutureField`) that the typed object `T`
/// does not carry: decoding drops them, as the API server prunes fields its schema does not
/// know. Empty when `value` does not decode as `T` (the decoding error says more).
///
/// A known field that holds only zero values (`template: {metadata: {}}`) is not reported
/// although Go's `omitzero` does not print it back: nothing in it is lost.
#[must_use]
pub fn unknown_fields<T: DeserializeOwned>(value: &Value) -> Vec<String> {
    decode_with_unknown_fields::<T>(value).map_or_else(|_| Vec::new(), |(_, dropped)| dropped)
}

/// Decodes `value` as `T` and, in the same pass, lists the fields the decode drops (see the
/// module docs): a key `T` skips whose value is not zero.
///
/// `tests/unknown_fields.rs` holds the answer to the one of printing the typed object back
/// and comparing (what this crate did before), on every MachinePool of the repository's
/// fixtures and on generated objects; they differ only where that comparison reported a
/// known field holding nothing but zero values.
///
/// ```
/// use capi_machinepool_admission::decode_with_unknown_fields;
/// use capi_machinepool_api::v1beta2::MachinePool;
/// let object = serde_json::json!({
///     "apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
///     "metadata": {"name": "a", "color": "blue"},
///     "spec": {"replicas": 2, "someFutureField": {"x": 1}, "emptyFutureField": ""},
/// });
/// let (pool, dropped) = decode_with_unknown_fields::<MachinePool>(&object).unwrap();
/// assert_eq!(pool.spec.replicas, Some(2));
/// assert_eq!(dropped, ["metadata.color", "spec.someFutureField"]);
/// ```
///
/// # Errors
/// When `value` does not decode as `T` (no field is reported then).
pub fn decode_with_unknown_fields<T: DeserializeOwned>(
    value: &Value,
) -> Result<(T, Vec<String>), serde_json::Error> {
    decode_reporting(value, value)
}

/// [`decode_with_unknown_fields`] through any deserializer that reads `value` (the admission
/// pipeline's tracks the path of a decode error as well).
pub(crate) fn decode_reporting<'de, D, T>(
    deserializer: D,
    value: &Value,
) -> Result<(T, Vec<String>), D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    let mut ignored = Vec::new();
    let typed = serde_ignored::deserialize(deserializer, |path| ignored.push(segments(&path)))?;
    let dropped = ignored
        .into_iter()
        .filter(|at| at_path(value, at).is_none_or(|v| !is_zero(v)))
        .map(|at| path_text(&at))
        .collect();
    Ok((typed, dropped))
}

/// One step of a path into a JSON value.
enum Segment {
    Key(String),
    Index(usize),
}

/// The keys and indexes of `path`, root first (`Option` and newtype layers, which add no
/// step in the JSON, left out).
fn segments(path: &serde_ignored::Path<'_>) -> Vec<Segment> {
    use serde_ignored::Path;
    let mut out = Vec::new();
    let mut at = path;
    loop {
        at = match at {
            Path::Root => break,
            Path::Seq { parent, index } => {
                out.push(Segment::Index(*index));
                parent
            }
            Path::Map { parent, key } => {
                out.push(Segment::Key(key.clone()));
                parent
            }
            Path::Some { parent }
            | Path::NewtypeStruct { parent }
            | Path::NewtypeVariant { parent } => parent,
        };
    }
    out.reverse();
    out
}

/// The member of `value` at `path` (`None` when the path leads nowhere in `value`).
fn at_path<'v>(value: &'v Value, path: &[Segment]) -> Option<&'v Value> {
    path.iter().try_fold(value, |v, segment| match segment {
        Segment::Key(key) => v.get(key.as_str()),
        Segment::Index(index) => v.get(*index),
    })
}

/// `path` as [`unknown_fields`] writes it: keys joined by dots, indexes in brackets.
fn path_text(path: &[Segment]) -> String {
    let mut out = String::new();
    for segment in path {
        match segment {
            Segment::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Segment::Index(index) => {
                // Writing to a String cannot fail.
                let _ = write!(out, "[{index}]");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use capi_machinepool_api::v1beta2::MachinePool;
    use serde_json::json;

    use super::*;

    #[test]
    fn skipped_keys_with_values_are_reported_where_they_are() {
        let object = json!({
            "apiVersion": "cluster.x-k8s.io/v1beta2",
            "kind": "MachinePool",
            "metadata": {
                "name": "a",
                "labels": {"anyKey": "kept"},
                "managedFields": [{"manager": "m", "fieldsV1": {"f:anything": {}}, "extra": true}],
                "unknown": "a",
            },
            "spec": {
                "zeroUnknown": {},
                "emptyList": [],
                "template": {"spec": {
                    "clusterName": "c",
                    "bootstrap": {"configRef": {}},
                    "infrastructureRef": {"apiGroup": "g", "kind": "K", "name": "n", "extra": "x"},
                    "unknownList": [1],
                }},
            },
            "status": {"conditions": [
                {"type": "A", "status": "True", "reason": "R", "lastTransitionTime": "2026-01-01T00:00:00Z"},
                {"type": "B", "status": "True", "reason": "R", "lastTransitionTime": "2026-01-01T00:00:00Z", "x": 1, "y": {"z": [0]}},
            ]},
        });
        let (pool, dropped) = decode_with_unknown_fields::<MachinePool>(&object).unwrap();
        assert_eq!(
            dropped,
            [
                "metadata.managedFields[0].extra",
                "metadata.unknown",
                "spec.template.spec.infrastructureRef.extra",
                "spec.template.spec.unknownList",
                "status.conditions[1].x",
                "status.conditions[1].y",
            ]
        );
        assert_eq!(pool.spec.template.spec.cluster_name, "c");
        assert_eq!(unknown_fields::<MachinePool>(&object), dropped);
        // Not a MachinePool: no paths, the decode error says why.
        assert!(unknown_fields::<MachinePool>(&json!({"kind": "Machine"})).is_empty());
    }

    #[test]
    fn paths_are_dotted_with_indexes_in_brackets() {
        let path = [
            Segment::Index(0),
            Segment::Key("a".into()),
            Segment::Index(2),
            Segment::Key("b".into()),
        ];
        assert_eq!(path_text(&path), "[0].a[2].b");
        let value = json!([{"a": [0, 0, {"b": 1}]}]);
        assert_eq!(at_path(&value, &path), Some(&json!(1)));
        assert_eq!(at_path(&value, &[Segment::Key("a".into())]), None);
    }
}
