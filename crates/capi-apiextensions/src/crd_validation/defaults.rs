//! Defaults, as `structuraldefaulting.ValidateDefaults` checks them
//! (`pkg/apiserver/schema/defaulting/validation.go`), run only when the structural rules hold:
//! every `default` under `items` and `properties` (not under `additionalProperties`, which the
//! walk does not enter) must survive pruning unchanged ("must not have unknown fields") and
//! validate against its own schema (kube-openapi's validator, as for objects: `type`, `enum`,
//! lengths, `pattern`, bounds, item and property counts, `required`, member by member, with
//! the server's messages). A default under a schema with CEL rules is
//! also checked against them by the server: that part is not judged here.

use serde_json::Value;

/// What a default reaching CEL rules is counted as when the rule judge does not evaluate
/// defaults ([`super::RuleJudge::judges_defaults`]).
pub(super) const DEFAULTS_AGAINST_CEL: &str = "defaults checked against their CEL rules";

use crate::openapi::{Schema, SchemaOptions, prune_value};

use super::{Refusals, is_true};

/// Walks the schema tree from the root (`at`) and checks every default.
pub(super) fn validate_tree(node: &Value, at: &str, r: &mut Refusals) {
    walk(node, at, false, true, r);
}

/// `root`: the resource root, which the server walks as an embedded resource (`ValidateDefaults`
/// with `isResourceRoot`): its `metadata`, `apiVersion` and `kind` are object metadata.
fn walk(node: &Value, at: &str, inside_meta: bool, root: bool, r: &mut Refusals) {
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
            prune_value(&mut pruned, node);
            if pruned != *default {
                r.invalid(&path, default, "must not have unknown fields");
            }
            value_errors(default, node, &path, r);
            if has_cel(node) {
                r.not_judged(DEFAULTS_AGAINST_CEL);
            }
        }
    }
    if let Some(items) = obj.get("items").filter(|i| i.is_object()) {
        walk(items, &format!("{at}.items"), inside_meta, false, r);
    }
    let embedded = root || is_true(node, "x-kubernetes-embedded-resource");
    for (k, child) in obj
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let meta =
            inside_meta || (embedded && matches!(k.as_str(), "metadata" | "apiVersion" | "kind"));
        walk(child, &format!("{at}.properties[{k}]"), meta, false, r);
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

/// A default its own schema refuses: kube-openapi's validation as the API server runs it
/// (`crate::openapi`, the validator `validate` uses on MachinePools),
/// with the server's paths and messages. CEL rules are left out (counted by the caller); a
/// string the default holds under a `format` other than `date-time`, `duration` and `byte`, a
/// junctor (`anyOf`...) it fails, a `multipleOf` that is not positive, or a schema using
/// keywords that validator does not check (embedded resources), leaves the default not judged.
fn value_errors(value: &Value, schema: &Value, path: &str, r: &mut Refusals) {
    let mut schema = schema.clone();
    without_cel(&mut schema);
    let options = SchemaOptions {
        unchecked_string_formats: true,
        junctors: true,
    };
    match Schema::with_options(schema, options) {
        Ok(schema) => {
            if !schema.string_formats_in(value).is_empty() {
                r.not_judged("defaults checked against string formats");
            }
            let outcome = schema.validate_value(value);
            if !outcome.not_judged.is_empty() {
                r.not_judged("defaults refused by allOf/anyOf/oneOf/not, or under a multipleOf that is not positive (messages not reproduced)");
            }
            for e in outcome.errors {
                r.push(e.under(path));
            }
        }
        Err(_) => r.not_judged("defaults under schemas with embedded resources"),
    }
}

/// The schema without its CEL rules (judged by the server only).
fn without_cel(node: &mut Value) {
    if let Value::Object(map) = node {
        map.remove("x-kubernetes-validations");
        for (key, child) in map.iter_mut() {
            match key.as_str() {
                "properties" => {
                    if let Value::Object(props) = child {
                        props.values_mut().for_each(without_cel);
                    }
                }
                "items" | "additionalProperties" => without_cel(child),
                _ => {}
            }
        }
    }
}
