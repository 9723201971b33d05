//! Defaults, as `structuraldefaulting.ValidateDefaults` checks them
//! (`pkg/apiserver/schema/defaulting/validation.go`), run only when the structural rules hold:
//! every `default` under `items` and `properties` (not under `additionalProperties`, which the
//! walk does not enter) must survive pruning unchanged ("must not have unknown fields") and
//! validate against its own schema (kube-openapi's validator: `type`, `enum`, lengths, bounds,
//! item counts, `required`, member by member). A default under a schema with CEL rules is
//! also checked against them by the server: that part is not judged here.

use serde_json::Value;

use super::{Bad, Refusals, is_true, json_kind};

/// Walks the schema tree from the root (`at`) and checks every default.
pub(super) fn validate_tree(node: &Value, at: &str, r: &mut Refusals) {
    walk(node, at, false, r);
}

fn walk(node: &Value, at: &str, inside_meta: bool, r: &mut Refusals) {
    let Some(obj) = node.as_object() else {
        return;
    };
    if let Some(default) = obj.get("default").filter(|d| !d.is_null()) {
        if inside_meta {
            // Defaults inside (embedded) metadata are coerced into ObjectMeta first.
            r.not_judged("defaults inside object metadata");
        } else {
            let path = format!("{at}.default");
            let mut pruned = default.clone();
            prune(
                &mut pruned,
                node,
                is_true(node, "x-kubernetes-embedded-resource"),
            );
            if pruned != *default {
                r.invalid(&path, &Bad::Json(default), "must not have unknown fields");
            }
            value_errors(default, node, &path, r);
            if has_cel(node) {
                r.not_judged("defaults checked against their CEL rules");
            }
        }
    }
    if let Some(items) = obj.get("items").filter(|i| i.is_object()) {
        walk(items, &format!("{at}.items"), inside_meta, r);
    }
    let embedded = is_true(node, "x-kubernetes-embedded-resource");
    for (k, child) in obj
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let meta =
            inside_meta || (embedded && matches!(k.as_str(), "metadata" | "apiVersion" | "kind"));
        walk(child, &format!("{at}.properties[{k}]"), meta, r);
    }
}

/// True when the schema or one below it carries `x-kubernetes-validations`.
fn has_cel(node: &Value) -> bool {
    node.get("x-kubernetes-validations")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty())
        || node
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| p.values().any(has_cel))
        || ["items", "additionalProperties"]
            .iter()
            .any(|k| node.get(*k).is_some_and(|c| c.is_object() && has_cel(c)))
}

/// Pruning (`pkg/apiserver/schema/pruning`): fields the schema does not specify are dropped,
/// unless `x-kubernetes-preserve-unknown-fields` or `additionalProperties` keeps them; an
/// embedded resource keeps `apiVersion`, `kind` and `metadata`.
fn prune(value: &mut Value, schema: &Value, embedded: bool) {
    match value {
        Value::Object(members) => {
            let props = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties");
            let preserve = is_true(schema, "x-kubernetes-preserve-unknown-fields");
            members.retain(|k, _| {
                props.is_some_and(|p| p.contains_key(k))
                    || additional.is_some_and(|a| a.is_object() || *a == Value::Bool(true))
                    || preserve
                    || (embedded && matches!(k.as_str(), "apiVersion" | "kind" | "metadata"))
            });
            for (k, member) in members.iter_mut() {
                if let Some(s) = props.and_then(|p| p.get(k)) {
                    prune(member, s, is_true(s, "x-kubernetes-embedded-resource"));
                } else if let Some(a) = additional.filter(|a| a.is_object()) {
                    prune(member, a, is_true(a, "x-kubernetes-embedded-resource"));
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items").filter(|i| i.is_object()) {
                for item in items {
                    prune(
                        item,
                        item_schema,
                        is_true(item_schema, "x-kubernetes-embedded-resource"),
                    );
                }
            }
        }
        _ => {}
    }
}

/// A default its own schema refuses (kube-openapi's validation of the value). `pattern` is
/// checked where the Go pattern compiles here too; `format` is left to the server.
fn value_errors(value: &Value, schema: &Value, path: &str, r: &mut Refusals) {
    let Some(schema) = schema.as_object() else {
        return;
    };
    if value.is_null() && schema.get("nullable") == Some(&Value::Bool(true)) {
        return;
    }
    let ty = schema
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let type_ok = match ty {
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        _ => true,
    };
    if !type_ok {
        r.push(
            path,
            format!(
                "Invalid value: {:?}: must be of type {ty}",
                json_kind(value)
            ),
        );
        return;
    }
    if let Some(Value::Array(allowed)) = schema.get("enum")
        && !allowed.contains(value)
    {
        r.push(
            path,
            format!(
                "Unsupported value: {}: not one of the enum values",
                Bad::Json(value)
            ),
        );
    }
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    if let Some(text) = value.as_str() {
        let chars = text.chars().count() as f64;
        if let Some(min) = bound("minLength").filter(|min| chars < *min) {
            r.push(
                path,
                format!(
                    "Invalid value: {}: should be at least {min} chars long",
                    Bad::Json(value)
                ),
            );
        }
        if let Some(max) = bound("maxLength").filter(|max| chars > *max) {
            r.push(path, format!("Too long: may not be more than {max} bytes"));
        }
        if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
            match super::pattern::matches(pattern, text) {
                Some(true) => {}
                Some(false) => r.push(
                    path,
                    format!(
                        "Invalid value: {}: should match '{pattern}'",
                        Bad::Json(value)
                    ),
                ),
                None => r.not_judged(
                    "defaults checked against patterns this crate cannot run as Go does",
                ),
            }
        }
    }
    if let Some(number) = value.as_f64() {
        if let Some(min) = bound("minimum").filter(|min| number < *min) {
            r.push(
                path,
                format!("Invalid value: {value}: should be greater than or equal to {min}"),
            );
        }
        if let Some(max) = bound("maximum").filter(|max| number > *max) {
            r.push(
                path,
                format!("Invalid value: {value}: should be less than or equal to {max}"),
            );
        }
    }
    if let Some(items) = value.as_array() {
        let count = items.len() as f64;
        if let Some(min) = bound("minItems").filter(|min| count < *min) {
            r.push(
                path,
                format!(
                    "Invalid value: {}: should have at least {min} items",
                    items.len()
                ),
            );
        }
        if let Some(max) = bound("maxItems").filter(|max| count > *max) {
            r.push(
                path,
                format!("Too many: {}: must have at most {max} items", items.len()),
            );
        }
        if let Some(item_schema) = schema.get("items") {
            for (i, item) in items.iter().enumerate() {
                value_errors(item, item_schema, &format!("{path}[{i}]"), r);
            }
        }
    }
    if let Some(members) = value.as_object() {
        let properties = schema.get("properties").and_then(Value::as_object);
        for (key, member) in members {
            if let Some(member_schema) = properties.and_then(|p| p.get(key)) {
                value_errors(member, member_schema, &format!("{path}.{key}"), r);
            }
        }
        for required in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !members.contains_key(required) {
                r.push(format!("{path}.{required}"), "Required value");
            }
        }
    }
}
