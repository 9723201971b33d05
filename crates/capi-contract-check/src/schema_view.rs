//! Navigation in an `openAPIV3Schema` by field path.

use serde_json::Value;

/// The schema of the field at `path` (e.g. `["status", "initialization", "provisioned"]`),
/// following `properties`.
#[must_use]
pub fn field<'a>(schema: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter()
        .try_fold(schema, |s, name| s.get("properties")?.get(*name))
}

/// YAML path of a field inside a CRD version's schema, for findings.
#[must_use]
pub fn yaml_path(version: &str, path: &[&str]) -> String {
    let mut out = format!("spec.versions[{version}].schema.openAPIV3Schema");
    for p in path {
        out.push_str(".properties.");
        out.push_str(p);
    }
    out
}

/// The `type` of a schema node, if any.
#[must_use]
pub fn type_of(schema: &Value) -> Option<&str> {
    schema.get("type").and_then(Value::as_str)
}

/// A numeric keyword (`maxItems`, `minLength`, ...).
#[must_use]
pub fn number(schema: &Value, key: &str) -> Option<f64> {
    schema.get(key).and_then(Value::as_f64)
}

/// A string keyword (`format`, `x-kubernetes-list-type`, ...).
#[must_use]
pub fn string<'a>(schema: &'a Value, key: &str) -> Option<&'a str> {
    schema.get(key).and_then(Value::as_str)
}
