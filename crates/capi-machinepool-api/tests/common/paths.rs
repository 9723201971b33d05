//! Field paths of a generated schema, and documents holding one value at one path: what the
//! schema-driven wire tests (`go_integers`, `go_keys`) feed the types.

use capi_machinepool_api::machine_pool_crd_value;
use serde_json::{Value, json};

/// One step from a schema to a sub-schema.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// A property of an object.
    Key(String),
    /// An element of an array.
    Item,
    /// A value of a map (`additionalProperties`).
    MapValue,
}

/// A field path as written in messages and fixtures:
/// `spec.template.spec.deletion.nodeDrainTimeoutSeconds`, `status.conditions[].type`.
pub fn display(path: &[Step]) -> String {
    let mut text = String::new();
    for step in path {
        match step {
            Step::Key(key) if text.is_empty() => text.push_str(key),
            Step::Key(key) => {
                text.push('.');
                text.push_str(key);
            }
            Step::Item => text.push_str("[]"),
            Step::MapValue => text.push_str("[*]"),
        }
    }
    text
}

/// Calls `visit` with every sub-schema of `schema` (itself included) and its path.
pub fn walk(schema: &Value, path: &mut Vec<Step>, visit: &mut dyn FnMut(&[Step], &Value)) {
    visit(path, schema);
    if let Some(properties) = schema["properties"].as_object() {
        for (key, sub) in properties {
            path.push(Step::Key(key.clone()));
            walk(sub, path, visit);
            path.pop();
        }
    }
    for (key, step) in [
        ("items", Step::Item),
        ("additionalProperties", Step::MapValue),
    ] {
        if let Some(sub) = schema.get(key).filter(|s| s.is_object()) {
            path.push(step);
            walk(sub, path, visit);
            path.pop();
        }
    }
}

/// The paths below `prefix` of the sub-schemas of `schema` that `keep` accepts.
pub fn paths_where(
    schema: &Value,
    prefix: Vec<Step>,
    keep: impl Fn(&[Step], &Value) -> bool,
) -> Vec<Vec<Step>> {
    let mut out = Vec::new();
    walk(schema, &mut prefix.clone(), &mut |path, sub| {
        if keep(path, sub) {
            out.push(path.to_vec());
        }
    });
    out
}

/// The `openAPIV3Schema` of a version of the generated CRD.
pub fn version_schema(version: &str) -> Value {
    let crd = machine_pool_crd_value();
    crd["spec"]["versions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == version)
        .map(|v| v["schema"]["openAPIV3Schema"].clone())
        .unwrap()
}

/// A JSON value holding `leaf` at `path` and nothing else (arrays get one element, maps one
/// key `k`).
pub fn value_at(path: &[Step], leaf: Value) -> Value {
    match path.split_first() {
        None => leaf,
        Some((Step::Key(key), rest)) => json!({ key.as_str(): value_at(rest, leaf) }),
        Some((Step::Item, rest)) => json!([value_at(rest, leaf)]),
        Some((Step::MapValue, rest)) => json!({ "k": value_at(rest, leaf) }),
    }
}

/// Stands for the value under test while the document is built: `serde_json::Value` cannot
/// hold every JSON text (`-0`).
const MARK: &str = "VALUE-UNDER-TEST";

/// The document of `api_version` and `kind` with the JSON text `value` at `path`.
pub fn document(api_version: &str, kind: &str, path: &[Step], value: &str) -> String {
    let mut object = value_at(path, json!(MARK));
    object["apiVersion"] = json!(api_version);
    object["kind"] = json!(kind);
    let text = object.to_string();
    let quoted = format!("\"{MARK}\"");
    assert_eq!(text.matches(&quoted).count(), 1, "{text}");
    text.replace(&quoted, value)
}

/// The value at `path` of a printed document (the first element of each array), if printed.
pub fn printed_at<'a>(printed: &'a Value, path: &[Step]) -> Option<&'a Value> {
    path.iter().try_fold(printed, |value, step| match step {
        Step::Key(key) => value.get(key),
        Step::Item => value.get(0),
        Step::MapValue => value.get("k"),
    })
}

/// The steps of a path written as [`display`] writes it (without map values).
pub fn parse(text: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    for part in text.split('.') {
        let key = part.trim_end_matches("[]");
        steps.push(Step::Key(key.to_owned()));
        for _ in 0..(part.len() - key.len()) / 2 {
            steps.push(Step::Item);
        }
    }
    steps
}

/// `patch` merged into `target`: objects key by key, arrays element by element.
pub fn merge(target: &mut Value, patch: Value) {
    match (target, patch) {
        (Value::Object(target), Value::Object(patch)) => {
            for (key, value) in patch {
                match target.get_mut(&key) {
                    Some(existing) => merge(existing, value),
                    None => {
                        target.insert(key, value);
                    }
                }
            }
        }
        (Value::Array(target), Value::Array(patch)) => {
            for (i, value) in patch.into_iter().enumerate() {
                match target.get_mut(i) {
                    Some(existing) => merge(existing, value),
                    None => target.push(value),
                }
            }
        }
        (target, patch) => *target = patch,
    }
}

/// A printed JSON document with its object keys in printed order (`serde_json::Value` sorts
/// them).
#[derive(Debug)]
pub enum Ordered {
    /// An object: keys and values in printed order.
    Object(Vec<(String, Ordered)>),
    /// An array.
    Array(Vec<Ordered>),
    /// Any other value.
    Other,
}

/// Visitor methods reading a scalar as [`Ordered::Other`].
macro_rules! scalars_are_other {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(
            fn $method<E>(self, _: $ty) -> Result<Ordered, E> {
                Ok(Ordered::Other)
            }
        )*
    };
}

impl<'de> serde::Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OrderedVisitor;
        impl<'de> serde::de::Visitor<'de> for OrderedVisitor {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Ordered, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(Ordered::Object(entries))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Ordered, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Ordered::Array(items))
            }
            scalars_are_other!(
                visit_bool: bool,
                visit_i64: i64,
                visit_u64: u64,
                visit_f64: f64,
                visit_str: &str,
            );
            fn visit_unit<E>(self) -> Result<Ordered, E> {
                Ok(Ordered::Other)
            }
        }
        deserializer.deserialize_any(OrderedVisitor)
    }
}

impl Ordered {
    /// The value at `path` (the first element of each array), if printed.
    pub fn at(&self, path: &[Step]) -> Option<&Ordered> {
        path.iter()
            .try_fold(self, |value, step| match (value, step) {
                (Ordered::Object(entries), Step::Key(key)) => {
                    entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
                }
                (Ordered::Array(items), Step::Item) => items.first(),
                _ => None,
            })
    }

    /// The keys of an object, in printed order.
    pub fn keys(&self) -> Vec<&str> {
        match self {
            Ordered::Object(entries) => entries.iter().map(|(k, _)| k.as_str()).collect(),
            _ => Vec::new(),
        }
    }
}
