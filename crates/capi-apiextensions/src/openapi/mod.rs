//! What the API server checks on a custom resource against its CRD's structural schema,
//! after pruning and before any webhook: kube-openapi's schema validation and the list-type
//! invariants, with the server's field paths and messages.
//!
//! Covered: `type`, `format` (the type side: `int32`, `int64`), `nullable`, `enum`,
//! `minLength`/`maxLength`/`pattern`, `minimum`/`maximum` (and exclusive), `minItems`/`maxItems`,
//! `minProperties`/`maxProperties`, `properties`, `additionalProperties`, `required`, and
//! `x-kubernetes-list-type` `set`/`map`, `multipleOf` (`multiple_of`) and the string formats
//! `date-time`, `duration` and `byte` (`format`). Not covered, because the MachinePool
//! schemas use none of them: the other string formats (`email`, `uri`, ...),
//! `x-kubernetes-validations` (CEL), embedded resources, and the refusals of
//! `allOf`/`anyOf`/`oneOf`/`not`. [`Schema::new`] refuses a schema that uses one, so a
//! verdict is never given on rules not checked; [`Schema::with_options`] accepts formats and
//! junctors and says, per value, what it did not judge (how `crd-valid` checks defaults).
//!
//! ```
//! use capi_apiextensions::openapi::Schema;
//! let schema = Schema::new(serde_json::json!({"type": "object", "properties": {
//!     "spec": {"type": "object", "required": ["name"], "properties": {
//!         "name": {"type": "string"},
//!         "replicas": {"type": "integer", "format": "int32", "minimum": 0}}}}})).unwrap();
//! let errors: Vec<String> = schema
//!     .validate(&serde_json::json!({"spec": {"replicas": -1}}))
//!     .iter()
//!     .map(ToString::to_string)
//!     .collect();
//! assert_eq!(errors, [
//!     "spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0",
//!     "spec.name: Required value",
//! ]);
//! ```

mod format;
mod list_type;
mod multiple_of;
mod scale;
mod value;

pub use scale::validate_scale_spec;

use std::collections::HashMap;

use serde_json::Value;

use crate::FieldError;

/// Keywords whose checks this module does not implement.
const UNSUPPORTED: &[&str] = &[
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "x-kubernetes-validations",
    "x-kubernetes-embedded-resource",
];

/// Why a schema cannot be used here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    /// The schema uses a keyword whose check is not implemented.
    #[error("{path}: {keyword} is not checked by this crate")]
    Unsupported {
        /// Where (a JSON pointer into the schema).
        path: String,
        /// The keyword.
        keyword: String,
    },
    /// A string format other than the integer ones.
    #[error("{path}: format {format:?} of a string is not checked by this crate")]
    StringFormat {
        /// Where (a JSON pointer into the schema).
        path: String,
        /// The format.
        format: String,
    },
    /// A `pattern` that does not compile.
    #[error("{path}: pattern {pattern:?} does not compile: {message}")]
    Pattern {
        /// Where (a JSON pointer into the schema).
        path: String,
        /// The pattern.
        pattern: String,
        /// The compiler's message.
        message: String,
    },
}

/// A structural schema (an `openAPIV3Schema` of a CRD version), its patterns compiled.
#[derive(Debug, Clone)]
pub struct Schema {
    root: Value,
    patterns: HashMap<String, regex::Regex>,
}

/// Which checks [`Schema::with_options`] accepts without implementing them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchemaOptions {
    /// Accept string `format`s (not checked: [`Schema::string_formats_in`] says which a value
    /// meets, so a caller can say what it did not judge).
    pub unchecked_string_formats: bool,
    /// Accept `allOf`/`anyOf`/`oneOf`/`not`: a value they accept adds nothing (as on the
    /// server); a value they refuse is reported in [`Outcome::not_judged`] (the server's
    /// messages for it depend on a best-match count not reproduced here).
    pub junctors: bool,
}

/// What [`Schema::validate_value`] found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// The server's errors, at paths relative to the value (`<nil>` for the value itself).
    pub errors: Vec<FieldError>,
    /// What was refused but not judged here (a junctor the value fails).
    pub not_judged: Vec<String>,
}

impl Schema {
    /// Compiles `root`.
    ///
    /// # Errors
    /// When the schema uses a keyword this module does not check (see the module
    /// documentation) or a pattern that does not compile.
    pub fn new(root: Value) -> Result<Self, SchemaError> {
        Self::with_options(root, SchemaOptions::default())
    }

    /// Compiles `root`, accepting what `options` allows without checking it.
    ///
    /// # Errors
    /// As [`Schema::new`], less what `options` accepts.
    pub fn with_options(root: Value, options: SchemaOptions) -> Result<Self, SchemaError> {
        let mut patterns = HashMap::new();
        scan(&root, "", options, &mut patterns)?;
        Ok(Self { root, patterns })
    }

    /// The string formats (`date-time`, ...) whose nodes `value` has a string at: what a
    /// schema built with [`SchemaOptions::unchecked_string_formats`] did not check in it.
    #[must_use]
    pub fn string_formats_in(&self, value: &Value) -> Vec<String> {
        let mut out = Vec::new();
        formats_met(value, &self.root, &mut out);
        out
    }

    /// The errors the API server reports for `object` (already pruned: unknown fields and
    /// `null`s of non-nullable fields removed, `status` dropped on create), in kube-openapi's
    /// order followed by the list-type errors. The server reports the same set, in an order
    /// that varies between requests (it walks Go maps).
    #[must_use]
    pub fn validate(&self, object: &Value) -> Vec<FieldError> {
        let mut out = Outcome::default();
        value::validate(self, object, &self.root, "", &mut out);
        let mut errors = out.errors;
        if let Value::Object(map) = object {
            list_type::validate_object("", &self.root, map, &mut errors);
        }
        errors
    }

    /// Removes what the schema does not know, as the API server prunes a custom resource
    /// before validating it (`structuralpruning.Prune`, the resource root's `apiVersion`,
    /// `kind` and `metadata` kept): unknown fields of objects, and every member of an object
    /// whose schema has no properties (an object sent where a scalar belongs becomes `{}`).
    pub fn prune(&self, object: &mut Value) {
        prune_node(object, Some(&self.root), true);
    }

    /// Rewrites whole floats (`2.0`) where the schema says `integer` as integers, as the API
    /// server stores them (its decoder holds `2.0` as a float64 that passes the integer type
    /// check, and the stored JSON reads `2`).
    pub fn whole_floats_as_integers(&self, object: &mut Value) {
        as_integers(object, &self.root);
    }

    /// kube-openapi's validation alone of `value` against the whole schema (no list types,
    /// no scale), as apiextensions validates a `default` (`ValidateCustomResource` with the
    /// default's own schema): the value's own errors are reported at `<nil>` (the caller's
    /// path), a member's at its name (`a.b`), and messages name the value "" (`" in body
    /// should match ..."`), as the server prints them.
    #[must_use]
    pub fn validate_value(&self, value: &Value) -> Outcome {
        let mut out = Outcome::default();
        value::validate(self, value, &self.root, "", &mut out);
        out
    }

    fn pattern(&self, pattern: &str) -> Option<&regex::Regex> {
        self.patterns.get(pattern)
    }
}

/// Removes from `value` what `node` (a structural schema) does not know, as the API server
/// prunes (`structuralpruning.Prune`, `pkg/apiserver/schema/pruning/algorithm.go`): members
/// neither in `properties` nor kept by `additionalProperties` (a schema or `true`) nor by
/// `x-kubernetes-preserve-unknown-fields` are dropped, an object without a schema is emptied,
/// and an embedded resource (`x-kubernetes-embedded-resource`) keeps its `apiVersion`, `kind`
/// and `metadata` as they are. `crd-valid` uses it on defaults ("must not have unknown
/// fields").
pub fn prune_value(value: &mut Value, node: &Value) {
    prune_node(value, Some(node), embedded(node));
}

fn embedded(node: &Value) -> bool {
    node.get("x-kubernetes-embedded-resource") == Some(&Value::Bool(true))
}

fn prune_node(value: &mut Value, node: Option<&Value>, embedded_resource: bool) {
    let preserve = node.and_then(|n| n.get("x-kubernetes-preserve-unknown-fields"))
        == Some(&Value::Bool(true));
    let meta = |k: &str| embedded_resource && matches!(k, "apiVersion" | "kind" | "metadata");
    match value {
        Value::Object(map) => {
            let properties = node
                .and_then(|n| n.get("properties"))
                .and_then(Value::as_object);
            let additional = node
                .and_then(|n| n.get("additionalProperties"))
                .filter(|a| a.is_object() || **a == Value::Bool(true));
            map.retain(|k, _| {
                preserve
                    || meta(k)
                    || additional.is_some()
                    || properties.is_some_and(|p| p.contains_key(k))
            });
            for (key, member) in map.iter_mut() {
                if meta(key) {
                    continue;
                }
                let sub = properties
                    .and_then(|p| p.get(key))
                    .or(additional.filter(|a| a.is_object()));
                // A member kept by `additionalProperties: true` or by
                // x-kubernetes-preserve-unknown-fields is left as sent.
                if let Some(sub) = sub {
                    prune_node(member, Some(sub), embedded(sub));
                }
            }
        }
        Value::Array(items) => {
            let item_schema = node.and_then(|n| n.get("items"));
            for item in items {
                prune_node(item, item_schema, item_schema.is_some_and(embedded));
            }
        }
        _ => {}
    }
}

/// The object as the API server validates it: a field set to `null` is pruned when its schema
/// does not say `nullable: true` (Kubernetes documentation, "Extend the Kubernetes API with
/// CustomResourceDefinitions", section "Defaulting and Nullable": "null values for fields that
/// either don't specify the nullable flag, or give it a false value, will be pruned before
/// defaulting happens"), and no MachinePool field is nullable. `null` items of lists stay.
#[must_use]
pub fn without_null_fields(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), without_null_fields(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_null_fields).collect()),
        other => other.clone(),
    }
}

fn as_integers(value: &mut Value, node: &Value) {
    match value {
        Value::Number(n) if node.get("type").and_then(Value::as_str) == Some("integer") => {
            if let Some(x) = n
                .as_f64()
                .filter(|x| n.as_i64().is_none() && x.fract() == 0.0 && x.abs() < 9.2e18)
            {
                #[allow(clippy::cast_possible_truncation)]
                let whole = x as i64;
                *value = Value::from(whole);
            }
        }
        Value::Object(map) => {
            let properties = node.get("properties");
            let additional = node.get("additionalProperties");
            for (key, member) in map.iter_mut() {
                if let Some(sub) = properties
                    .and_then(|p| p.get(key))
                    .or(additional.filter(|a| a.is_object()))
                {
                    as_integers(member, sub);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = node.get("items") {
                for item in items {
                    as_integers(item, item_schema);
                }
            }
        }
        _ => {}
    }
}

fn formats_met(value: &Value, node: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(_) => {
            if node.get("type").and_then(Value::as_str) == Some("string")
                && let Some(format) = node.get("format").and_then(Value::as_str)
                && !format.is_empty()
                && format::checker(format).is_none()
                && !out.iter().any(|f| f == format)
            {
                out.push(format.to_owned());
            }
        }
        Value::Object(map) => {
            let properties = node.get("properties");
            let additional = node.get("additionalProperties").filter(|a| a.is_object());
            for (key, member) in map {
                if let Some(sub) = properties.and_then(|p| p.get(key)).or(additional) {
                    formats_met(member, sub, out);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = node.get("items") {
                for item in items {
                    formats_met(item, item_schema, out);
                }
            }
        }
        _ => {}
    }
}

fn scan(
    node: &Value,
    at: &str,
    options: SchemaOptions,
    patterns: &mut HashMap<String, regex::Regex>,
) -> Result<(), SchemaError> {
    let Some(map) = node.as_object() else {
        return Ok(());
    };
    let junctor = |k: &str| matches!(k, "allOf" | "anyOf" | "oneOf" | "not");
    if let Some(keyword) = UNSUPPORTED
        .iter()
        .find(|k| map.contains_key(**k) && !(options.junctors && junctor(k)))
    {
        return Err(SchemaError::Unsupported {
            path: at.to_owned(),
            keyword: (*keyword).to_owned(),
        });
    }
    let format = map
        .get("format")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if map.get("type").and_then(Value::as_str) == Some("string")
        && !format.is_empty()
        && format::checker(format).is_none()
        && !options.unchecked_string_formats
    {
        return Err(SchemaError::StringFormat {
            path: at.to_owned(),
            format: format.to_owned(),
        });
    }
    if let Some(pattern) = map.get("pattern").and_then(Value::as_str) {
        let re = regex::Regex::new(pattern).map_err(|e| SchemaError::Pattern {
            path: at.to_owned(),
            pattern: pattern.to_owned(),
            message: e.to_string(),
        })?;
        patterns.insert(pattern.to_owned(), re);
    }
    for (key, child) in map {
        match key.as_str() {
            "properties" => {
                for (name, sub) in child.as_object().into_iter().flatten() {
                    scan(sub, &format!("{at}/properties/{name}"), options, patterns)?;
                }
            }
            "items" | "additionalProperties" | "not" => {
                scan(child, &format!("{at}/{key}"), options, patterns)?;
            }
            "allOf" | "anyOf" | "oneOf" => {
                for (i, branch) in child.as_array().into_iter().flatten().enumerate() {
                    scan(branch, &format!("{at}/{key}/{i}"), options, patterns)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
