//! Turning schemars output into a Kubernetes structural schema (`openAPIV3Schema`).
//!
//! schemars describes `Option<T>` as "T or null" and adds titles, defaults and meta-schema
//! keys; a CRD schema has none of these (absent means unset, `nullable` is not used by Cluster
//! API). [`structural_schema_for`] generates a fully inlined schema and removes them.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// Regex of a Kubernetes qualified name with optional DNS prefix, as used for condition types.
pub(crate) const QUALIFIED_NAME_PATTERN: &str = r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$";

/// The schema controller-gen emits for a `[]metav1.Condition` list (`maxItems: 32`, a map
/// list keyed by `type`, every field's validation; k8s-openapi's own `Condition` schema has
/// none), for a provider's `conditions` field:
///
/// ```
/// use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
/// #[derive(schemars::JsonSchema)]
/// struct Status {
///     #[schemars(schema_with = "capi_machinepool_api::schema::metav1_conditions_schema")]
///     conditions: Vec<Condition>,
/// }
/// let schema = capi_machinepool_api::schema::structural_schema_for::<Status>();
/// assert_eq!(schema["properties"]["conditions"]["x-kubernetes-list-map-keys"], serde_json::json!(["type"]));
/// assert_eq!(schema["properties"]["conditions"]["maxItems"], 32);
/// ```
pub fn metav1_conditions_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "array",
        "maxItems": 32,
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["type"],
        "items": {
            "type": "object",
            "required": ["lastTransitionTime", "message", "reason", "status", "type"],
            "properties": {
                "lastTransitionTime": { "type": "string", "format": "date-time",
                    "description": "Last time the condition transitioned from one status to another." },
                "message": { "type": "string", "maxLength": 32768,
                    "description": "Human readable message indicating details about the transition." },
                "observedGeneration": { "type": "integer", "format": "int64", "minimum": 0,
                    "description": "The metadata.generation the condition was set based upon." },
                "reason": { "type": "string", "minLength": 1, "maxLength": 1024,
                    "pattern": "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$",
                    "description": "Programmatic identifier of the reason for the last transition." },
                "status": { "type": "string", "enum": ["True", "False", "Unknown"],
                    "description": "Status of the condition." },
                "type": { "type": "string", "maxLength": 316, "pattern": QUALIFIED_NAME_PATTERN,
                    "description": "Type of condition in CamelCase or in foo.example.com/CamelCase." }
            }
        }
    })
}

/// Generates the structural schema of `T`, as JSON.
///
/// ```
/// use capi_machinepool_api::{schema::structural_schema_for, v1beta2};
/// let schema = structural_schema_for::<v1beta2::MachinePool>();
/// let replicas = &schema["properties"]["spec"]["properties"]["replicas"];
/// assert_eq!(replicas["type"], "integer");
/// assert_eq!(replicas["format"], "int32");
/// ```
#[must_use]
pub fn structural_schema_for<T: JsonSchema>() -> Value {
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    settings.meta_schema = None;
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut value = schema.to_value();
    make_structural(&mut value);
    value
}

/// Rewrites a schemars schema in place into structural form (see the module docs).
pub fn make_structural(value: &mut Value) {
    let Value::Object(map) = value else { return };
    for key in ["$schema", "$defs", "title", "default", "examples"] {
        map.remove(key);
    }
    collapse_nullable_any_of(map);
    if let Some(Value::Array(types)) = map.get("type") {
        let non_null: Vec<Value> = types
            .iter()
            .filter(|t| t.as_str() != Some("null"))
            .cloned()
            .collect();
        if non_null.len() == 1 {
            map.insert("type".into(), non_null[0].clone());
        } else {
            map.insert("type".into(), Value::Array(non_null));
        }
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        for prop in props.values_mut() {
            make_structural(prop);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(sub) = map.get_mut(key) {
            make_structural(sub);
        }
    }
    for key in ["anyOf", "allOf", "oneOf"] {
        if let Some(Value::Array(subs)) = map.get_mut(key) {
            subs.iter_mut().for_each(make_structural);
        }
    }
}

/// `{"anyOf": [X, {"type": "null"}], ...siblings}` becomes `X` merged with the siblings.
fn collapse_nullable_any_of(map: &mut Map<String, Value>) {
    let Some(Value::Array(any_of)) = map.get("anyOf") else {
        return;
    };
    let is_null = |v: &Value| v.get("type").and_then(Value::as_str) == Some("null");
    let non_null: Vec<&Value> = any_of.iter().filter(|v| !is_null(v)).collect();
    if non_null.len() != 1 || non_null.len() == any_of.len() {
        return;
    }
    let Value::Object(inner) = non_null[0].clone() else {
        return;
    };
    map.remove("anyOf");
    for (key, value) in inner {
        map.entry(key).or_insert(value);
    }
}

/// Sets the `required` list of an object schema: schemars leaves out fields that have a serde
/// default, but controller-gen lists every `+required` field.
pub(crate) fn require(schema: &mut schemars::Schema, fields: &[&str]) {
    let mut fields: Vec<&str> = fields.to_vec();
    fields.sort_unstable();
    schema.insert("required".into(), serde_json::json!(fields));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn collapses_option_of_object() {
        let mut v = json!({
            "anyOf": [{"type": "object", "properties": {"a": {"type": ["string", "null"]}}}, {"type": "null"}],
            "description": "d",
            "default": null
        });
        make_structural(&mut v);
        assert_eq!(
            v,
            json!({"type": "object", "description": "d", "properties": {"a": {"type": "string"}}})
        );
    }

    #[test]
    fn property_named_like_a_keyword_is_kept() {
        let mut v = json!({"type": "object", "properties": {"default": {"type": "string"}, "title": {"type": "string"}}});
        make_structural(&mut v);
        assert_eq!(v["properties"].as_object().map(|m| m.len()), Some(2));
    }
}
