//! `x-kubernetes-map-type`, `x-kubernetes-list-type` and `x-kubernetes-list-map-keys` of one
//! schema node (`validation.go` lines 1183-1262) and `validateMapListKeysMapSet` (lines
//! 1375-1420), in the server's order.

use serde_json::{Map, Value};

use super::schema::ty;
use super::{Refusals, is_true};

/// The list and map type checks of the node `obj` at `at`.
pub(super) fn validate(obj: &Map<String, Value>, at: &str, r: &mut Refusals) {
    let t = obj.get("type").and_then(Value::as_str).unwrap_or_default();
    map_type(obj, t, at, r);
    let list_type = obj.get("x-kubernetes-list-type").and_then(Value::as_str);
    let items = obj.get("items").filter(|i| i.is_object());
    list_type_checks(t, list_type, items, at, r);
    let keys: Vec<&str> = obj
        .get("x-kubernetes-list-map-keys")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|k| k.as_str().unwrap_or_default()).collect())
        .unwrap_or_default();
    let keys_value = obj
        .get("x-kubernetes-list-map-keys")
        .unwrap_or(&Value::Null);
    map_keys(obj, list_type, &keys, keys_value, at, r);
    map_set_items(list_type, items, &keys, at, r);
}

/// `x-kubernetes-map-type`: on objects only, `atomic` or `granular`.
fn map_type(obj: &Map<String, Value>, t: &str, at: &str, r: &mut Refusals) {
    let map_type = obj.get("x-kubernetes-map-type").and_then(Value::as_str);
    if map_type.is_some() && t != "object" {
        if t.is_empty() {
            r.required(
                format!("{at}.type"),
                "must be object if x-kubernetes-map-type is specified",
            );
        } else {
            r.invalid(
                format!("{at}.type"),
                t,
                "must be object if x-kubernetes-map-type is specified",
            );
        }
    }
    if let Some(m) = map_type.filter(|m| !matches!(*m, "atomic" | "granular")) {
        r.not_supported(
            format!("{at}.x-kubernetes-map-type"),
            m,
            &["atomic", "granular"],
        );
    }
}

/// `x-kubernetes-list-type`: on arrays only, a set's items atomic, one of the three values.
fn list_type_checks(
    t: &str,
    list_type: Option<&str>,
    items: Option<&Value>,
    at: &str,
    r: &mut Refusals,
) {
    if list_type.is_some() && t != "array" {
        if t.is_empty() {
            r.required(
                format!("{at}.type"),
                "must be array if x-kubernetes-list-type is specified",
            );
        } else {
            r.invalid(
                format!("{at}.type"),
                t,
                "must be array if x-kubernetes-list-type is specified",
            );
        }
    } else if list_type == Some("set")
        && let Some(item) = items
    {
        match ty(item) {
            "array" => {
                if let Some(inner) = item["x-kubernetes-list-type"]
                    .as_str()
                    .filter(|l| *l != "atomic")
                {
                    r.invalid(
                        format!("{at}.items.x-kubernetes-list-type"),
                        inner,
                        "must be atomic as item of a list with x-kubernetes-list-type=set",
                    );
                }
            }
            "object" if item["x-kubernetes-map-type"].as_str() != Some("atomic") => {
                r.invalid(
                    format!("{at}.items.x-kubernetes-map-type"),
                    &item["x-kubernetes-list-type"],
                    "must be atomic as item of a list with x-kubernetes-list-type=set",
                );
            }
            _ => {}
        }
    }
    if let Some(l) = list_type.filter(|l| !matches!(*l, "atomic" | "set" | "map")) {
        r.not_supported(
            format!("{at}.x-kubernetes-list-type"),
            l,
            &["atomic", "set", "map"],
        );
    }
}

/// `x-kubernetes-list-map-keys` with `x-kubernetes-list-type: map`: keys present, scalar
/// properties of the single object item schema, no duplicates.
fn map_keys(
    obj: &Map<String, Value>,
    list_type: Option<&str>,
    keys: &[&str],
    keys_value: &Value,
    at: &str,
    r: &mut Refusals,
) {
    if !keys.is_empty() {
        match list_type {
            None => r.required(
                format!("{at}.x-kubernetes-list-type"),
                "must be map if x-kubernetes-list-map-keys is non-empty",
            ),
            Some("map") => {}
            Some(l) => r.invalid(
                format!("{at}.x-kubernetes-list-type"),
                l,
                "must be map if x-kubernetes-list-map-keys is non-empty",
            ),
        }
    }
    if list_type == Some("map") {
        if keys.is_empty() {
            r.required(
                format!("{at}.x-kubernetes-list-map-keys"),
                "must not be empty if x-kubernetes-list-type is map",
            );
        }
        match obj.get("items") {
            None => r.required(
                format!("{at}.items"),
                "must have a schema if x-kubernetes-list-type is map",
            ),
            Some(Value::Array(_)) => r.invalid(
                format!("{at}.items"),
                "<items>",
                "must only have a single schema if x-kubernetes-list-type is map",
            ),
            Some(item) if ty(item) != "object" => r.invalid(
                format!("{at}.items.type"),
                ty(item),
                "must be object if parent array's x-kubernetes-list-type is map",
            ),
            Some(item) => {
                let mut seen = std::collections::BTreeSet::new();
                for k in keys {
                    match item["properties"].get(*k) {
                        Some(p) if matches!(ty(p), "array" | "object") => r.invalid(
                            format!("{at}.items.properties[{k}].type"),
                            ty(item),
                            "must be a scalar type if parent array's x-kubernetes-list-type is map",
                        ),
                        Some(_) => {}
                        None => r.invalid(
                            format!("{at}.x-kubernetes-list-map-keys"),
                            keys_value,
                            "entries must all be names of item properties",
                        ),
                    }
                    if !seen.insert(*k) {
                        r.invalid(
                            format!("{at}.x-kubernetes-list-map-keys"),
                            keys_value,
                            "must not contain duplicate entries",
                        );
                    }
                }
            }
        }
    }
}

/// `validateMapListKeysMapSet`: items of a set or map not nullable; map keys required or
/// defaulted, and not nullable.
fn map_set_items(
    list_type: Option<&str>,
    items: Option<&Value>,
    keys: &[&str],
    at: &str,
    r: &mut Refusals,
) {
    if let (Some(l @ ("set" | "map")), Some(item)) = (list_type, items) {
        if is_true(item, "nullable") {
            r.forbidden(
                format!("{at}.items.nullable"),
                format!("cannot be nullable when x-kubernetes-list-type is {l}"),
            );
        }
        if l == "map" {
            let required: Vec<&str> = item["required"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for k in keys {
                let Some(p) = item["properties"].get(*k) else {
                    continue;
                };
                if !required.contains(k) && p.get("default").is_none_or(Value::is_null) {
                    r.required(
                        format!("{at}.items.properties[{k}].default"),
                        "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
                    );
                }
                if is_true(p, "nullable") {
                    r.forbidden(
                        format!("{at}.items.properties[{k}].nullable"),
                        "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
                    );
                }
            }
        }
    }
}
