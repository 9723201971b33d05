//! The invariants of `x-kubernetes-list-type: set` and `map` on a custom resource
//! (`apiextensions-apiserver/pkg/apiserver/schema/listtype`, `ValidateListSetsAndMaps`): the
//! second occurrence of an item (of a set) or of a key (of a map) is a `Duplicate value`;
//! later occurrences are not reported again.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::go_text::go_json;
use crate::{BadValue, FieldError, FieldErrorType};

/// Walks `value` (an object at `path`, empty for the root) along `schema`.
pub(super) fn validate_object(
    path: &str,
    schema: &Value,
    value: &Map<String, Value>,
    out: &mut Vec<FieldError>,
) {
    if let Some(additional) = schema.get("additionalProperties").filter(|a| a.is_object()) {
        for (key, member) in value {
            walk(&format!("{path}[{key}]"), additional, member, out);
        }
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (key, member) in value {
            if let Some(sub) = properties.get(key) {
                let child = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                walk(&child, sub, member, out);
            }
        }
    }
}

fn walk(path: &str, schema: &Value, value: &Value, out: &mut Vec<FieldError>) {
    match value {
        Value::Object(map) => validate_object(path, schema, map, out),
        Value::Array(items) => {
            match schema.get("x-kubernetes-list-type").and_then(Value::as_str) {
                Some("set") => {
                    for i in second_occurrences(items.iter()) {
                        duplicate(path, i, items[i].clone(), out);
                    }
                }
                Some("map") => map_list(path, schema, items, out),
                _ => {}
            }
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    walk(&format!("{path}[{i}]"), item_schema, item, out);
                }
            }
        }
        _ => {}
    }
}

fn duplicate(path: &str, index: usize, value: Value, out: &mut Vec<FieldError>) {
    out.push(FieldError::new(
        FieldErrorType::Duplicate,
        format!("{path}[{index}]"),
        Some(BadValue::Json(value)),
        "",
    ));
}

/// The indices where an item is seen for the second time. Scalars are equal as Go compares
/// `interface{}` values (an int64 is never a float64); lists and objects by their JSON.
fn second_occurrences<'a>(items: impl Iterator<Item = &'a Value>) -> Vec<usize> {
    let mut seen: HashMap<String, u32> = HashMap::new();
    let mut out = Vec::new();
    for (i, item) in items.enumerate() {
        let key = match item {
            Value::Number(n) if n.as_i64().is_some() => format!("i{n}"),
            Value::Number(n) => format!("f{}", n.as_f64().unwrap_or(f64::NAN)),
            Value::String(s) => format!("s{s}"),
            other => format!("j{}", go_json(other)),
        };
        let times = seen.entry(key).or_insert(0);
        *times += 1;
        if *times == 2 {
            out.push(i);
        }
    }
    out
}

fn map_list(path: &str, schema: &Value, items: &[Value], out: &mut Vec<FieldError>) {
    if let Some(i) = items.iter().position(|x| !x.is_null() && !x.is_object()) {
        out.push(FieldError::invalid(
            format!("{path}[{i}]"),
            BadValue::Json(items[i].clone()),
            "must be an object for an array of list-type map",
        ));
        return;
    }
    let key_fields: Vec<&str> = schema
        .get("x-kubernetes-list-map-keys")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    // Each item's key: the present key fields, as an object (an absent key is "unspecified").
    let keys: Vec<Value> = items
        .iter()
        .map(|item| {
            let mut key = Map::new();
            for k in &key_fields {
                if let Some(v) = item.get(*k) {
                    key.insert((*k).to_owned(), v.clone());
                }
            }
            Value::Object(key)
        })
        .collect();
    if let [single] = key_fields.as_slice() {
        // One key field: compared by its value alone ("unspecified" apart from any value).
        let by_value: Vec<Value> = keys
            .iter()
            .map(|k| match k.get(*single) {
                Some(v) => serde_json::json!([v]),
                None => Value::Null,
            })
            .collect();
        for i in second_occurrences(by_value.iter()) {
            duplicate(path, i, keys[i].clone(), out);
        }
        return;
    }
    for i in second_occurrences(keys.iter()) {
        duplicate(path, i, keys[i].clone(), out);
    }
}
