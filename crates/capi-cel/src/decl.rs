//! The declared types of a structural schema as apiserver's `SchemaDeclType` builds them:
//! CEL types, the maximum element counts the cost estimator reads (`maxLength * 4`,
//! `maxItems`, `maxProperties`, or the request-size based estimates) and minimum serialized
//! sizes.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::types::Ty;

/// apiserver's maximum request size (3 MiB), the basis of every unbounded estimate.
pub const MAX_REQUEST_SIZE_BYTES: i64 = 3 * 1024 * 1024;

/// A declared type's shape.
#[derive(Clone, Debug)]
pub enum DeclKind {
    /// A scalar (including int-or-string as `dyn`, formats as timestamp/duration/bytes).
    Scalar(Ty),
    /// A list of the element decl.
    List(usize),
    /// A map from string to the element decl.
    Map(usize),
    /// An object: its fields by escaped name (properties CEL cannot name are left out).
    Object {
        /// Fields.
        fields: BTreeMap<String, usize>,
    },
}

/// One declared type.
#[derive(Clone, Debug)]
pub struct Decl {
    /// Shape.
    pub kind: DeclKind,
    /// `MaxElements`: the size estimate's maximum.
    pub max_elements: i64,
    /// `MinSerializedSize`.
    pub min_size: i64,
}

/// The arena of declared types.
#[derive(Clone, Debug, Default)]
pub struct Decls {
    /// All decls; indices are stable.
    pub all: Vec<Decl>,
}

/// Names a property cannot be declared under as such: the language's literals and `in`,
/// and the words the parser reserves ([`crate::parse::RESERVED`]).
const LITERAL_WORDS: [&str; 4] = ["true", "false", "null", "in"];

/// A CEL reserved word: a field of that name is declared as `__name__`, and the
/// environment (compatibility 1.31 and later) finds it under its plain name too.
#[must_use]
pub fn is_reserved(name: &str) -> bool {
    LITERAL_WORDS.contains(&name) || crate::parse::RESERVED.contains(&name)
}

/// A property name as CEL sees it (apiserver's `Escape`): itself, `__name__` for reserved
/// words, `__` `.` `-` `/` spelled `__underscores__` `__dot__` `__dash__` `__slash__`;
/// `None` (the property is invisible to CEL) when it starts with a digit or holds any other
/// character.
#[must_use]
pub fn escape(name: &str) -> Option<String> {
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if is_reserved(name) {
        return Some(format!("__{name}__"));
    }
    let mut out = String::new();
    let mut rest = name;
    while let Some(c) = rest.chars().next() {
        let (text, len) = match c {
            '_' if rest.starts_with("__") => ("__underscores__", 2),
            '.' => ("__dot__", 1),
            '-' => ("__dash__", 1),
            '/' => ("__slash__", 1),
            c if c.is_ascii_alphanumeric() || c == '_' => {
                out.push(c);
                rest = &rest[1..];
                continue;
            }
            _ => return None,
        };
        out.push_str(text);
        rest = &rest[len..];
    }
    Some(out)
}

impl Decls {
    fn push(&mut self, d: Decl) -> usize {
        self.all.push(d);
        self.all.len() - 1
    }

    /// The decl of `s` (`root` adds `apiVersion`, `kind`, `metadata.name/generateName` as
    /// the server does for resource roots and embedded resources); `None` where the server
    /// has none (no type, an array without items).
    pub fn build(&mut self, s: &Value, root: bool) -> Option<usize> {
        if s.get("x-kubernetes-int-or-string").and_then(Value::as_bool) == Some(true) {
            let max = max_len(s).map_or(MAX_REQUEST_SIZE_BYTES - 2, |m| m * 4);
            return Some(self.push(Decl {
                kind: DeclKind::Scalar(Ty::Dyn),
                max_elements: max,
                min_size: 1,
            }));
        }
        let with_meta;
        let s = if root {
            with_meta = with_type_and_object_meta(s);
            &with_meta
        } else {
            s
        };
        match s.get("type").and_then(Value::as_str).unwrap_or("") {
            "array" => {
                let items = s.get("items")?;
                let elem = self.build(items, embedded(items))?;
                let max = int(s, "maxItems").map_or_else(
                    || (MAX_REQUEST_SIZE_BYTES - 2) / (self.all[elem].min_size + 1),
                    |m| m.max(0),
                );
                Some(self.push(Decl {
                    kind: DeclKind::List(elem),
                    max_elements: max,
                    min_size: 2,
                }))
            }
            "object" => self.object(s),
            "string" => Some(self.string(s)),
            "boolean" => Some(self.scalar(Ty::Bool, 4)),
            "number" => Some(self.scalar(Ty::Double, 1)),
            "integer" => Some(self.scalar(Ty::Int, 1)),
            _ => None,
        }
    }

    fn scalar(&mut self, t: Ty, min: i64) -> usize {
        self.push(Decl {
            kind: DeclKind::Scalar(t),
            max_elements: 0,
            min_size: min,
        })
    }

    fn object(&mut self, s: &Value) -> Option<usize> {
        if let Some(ap) = s.get("additionalProperties").filter(|v| v.is_object()) {
            let elem = self.build(ap, embedded(ap))?;
            let max = int(s, "maxProperties").map_or_else(
                || (MAX_REQUEST_SIZE_BYTES - 2) / (self.all[elem].min_size + 6),
                |m| m.max(0),
            );
            return Some(self.push(Decl {
                kind: DeclKind::Map(elem),
                max_elements: max,
                min_size: 2,
            }));
        }
        let required: Vec<&str> = s
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let (mut fields, mut min) = (BTreeMap::new(), 2i64);
        if let Some(props) = s.get("properties").and_then(Value::as_object) {
            for (name, prop) in props {
                let Some(d) = self.build(prop, embedded(prop)) else {
                    continue;
                };
                if let Some(e) = escape(name) {
                    fields.insert(e, d);
                }
                if required.contains(&name.as_str()) && prop.get("default").is_none() {
                    min += name.len() as i64 + self.all[d].min_size + 4;
                }
            }
        }
        let kind = DeclKind::Object { fields };
        Some(self.push(Decl {
            kind,
            max_elements: 0,
            min_size: min,
        }))
    }

    fn string(&mut self, s: &Value) -> usize {
        let unbounded = MAX_REQUEST_SIZE_BYTES - 2;
        let (t, min, max) = match s.get("format").and_then(Value::as_str).unwrap_or("") {
            "byte" => (Ty::Bytes, 2, max_len(s).map_or(unbounded, |m| m)),
            "duration" => (Ty::Named("google.protobuf.Duration".into()), 3, 32),
            "date" => (Ty::Named("google.protobuf.Timestamp".into()), 12, 12),
            "date-time" => (Ty::Named("google.protobuf.Timestamp".into()), 21, 32),
            _ => {
                let enum_max = s
                    .get("enum")
                    .and_then(Value::as_array)
                    .filter(|e| !e.is_empty())
                    .map(|e| {
                        e.iter()
                            .filter_map(Value::as_str)
                            .map(|v| v.len() as i64)
                            .max()
                            .unwrap_or(0)
                    });
                (
                    Ty::String,
                    2,
                    max_len(s).map(|m| m * 4).or(enum_max).unwrap_or(unbounded),
                )
            }
        };
        self.push(Decl {
            kind: DeclKind::Scalar(t),
            max_elements: max,
            min_size: min,
        })
    }
}

fn int(s: &Value, key: &str) -> Option<i64> {
    s.get(key).and_then(Value::as_i64)
}

fn max_len(s: &Value) -> Option<i64> {
    int(s, "maxLength").map(|m| m.max(0))
}

fn embedded(s: &Value) -> bool {
    s.get("x-kubernetes-embedded-resource")
        .and_then(Value::as_bool)
        == Some(true)
}

/// The schema with `kind`, `apiVersion` and `metadata{name, generateName}` as the server
/// substitutes them unless all are declared as it expects.
fn with_type_and_object_meta(s: &Value) -> Value {
    let props = s.get("properties").and_then(Value::as_object);
    let ty = |v: Option<&Value>, t: &str| {
        v.and_then(|v| v.get("type")).and_then(Value::as_str) == Some(t)
    };
    let meta = props.and_then(|p| p.get("metadata"));
    let meta_props = meta.and_then(|m| m.get("properties"));
    let complete = props.is_some()
        && ty(props.and_then(|p| p.get("kind")), "string")
        && ty(props.and_then(|p| p.get("apiVersion")), "string")
        && ty(meta, "object")
        && meta_props.is_some()
        && ty(meta_props.and_then(|p| p.get("name")), "string")
        && ty(meta_props.and_then(|p| p.get("generateName")), "string");
    if complete {
        return s.clone();
    }
    let mut out = s.clone();
    let string = serde_json::json!({"type": "string"});
    let mut new_props = props.cloned().unwrap_or_default();
    new_props.insert("kind".into(), string.clone());
    new_props.insert("apiVersion".into(), string.clone());
    new_props.insert(
        "metadata".into(),
        serde_json::json!({"type": "object", "properties": {"name": string, "generateName": string}}),
    );
    if let Some(o) = out.as_object_mut() {
        o.insert("properties".into(), Value::Object(new_props));
    }
    out
}
