//! Decoding: before any validation, the API server decodes the CRD into the Go types of
//! `apiextensions.k8s.io/v1` with `encoding/json`; a value of the wrong JSON type is a 400
//! ("... cannot be handled as a CustomResourceDefinition: json: cannot unmarshal ...") with
//! no field causes, and nothing else is judged.
//!
//! The Go types' shapes are written out below (field names as their `json` tags, kinds as Go
//! decodes them): a string, bool, int64, int32, float64, `[]byte` (base64 text), a list, a
//! map, a struct, `JSON` (anything), and the three `JSONSchemaPropsOr*` unions with their
//! own `UnmarshalJSON`. As in Go: a missing or `null` member is left at its zero value, an
//! unknown member is ignored, an integer does not take a fraction or exponent, a float takes
//! any number. Member names match exactly (the server's `sigs.k8s.io/json` decoder is case
//! sensitive), except below a `JSONSchemaPropsOr*` union, whose `UnmarshalJSON` decodes its
//! schema with `encoding/json`, which matches names case-insensitively. The unions ignore a
//! value that is neither of their two forms, except `JSONSchemaPropsOrBool`, which refuses it
//! (`marshal.go` in `apis/apiextensions/v1`).

use serde_json::Value;

use super::{Refusal, Refusals};

/// The kind of a Go field, as `encoding/json` decodes into it.
#[derive(Clone, Copy)]
enum Shape {
    Str,
    Bool,
    Int64,
    Int32,
    Float,
    Bytes,
    Any,
    StrList,
    StrMap,
    List(&'static [(&'static str, Shape)]),
    Struct(&'static [(&'static str, Shape)]),
    /// `JSONSchemaProps`.
    Props,
    PropsList,
    PropsMap,
    /// `JSONSchemaPropsOrBool`: a bool or a schema.
    PropsOrBool,
    /// `JSONSchemaPropsOrArray`: a schema or a list of schemas.
    PropsOrArray,
    /// `JSONSchemaPropsOrStringArray` in a map: a schema or a list of strings.
    PropsOrStringArrayMap,
}

use Shape::{
    Any, Bool, Bytes, Float, Int32, Int64, Props, PropsList, PropsMap, PropsOrArray, PropsOrBool,
    PropsOrStringArrayMap, Str, StrList, StrMap, Struct,
};

const OBJECT_META: &[(&str, Shape)] = &[
    ("name", Str),
    ("generateName", Str),
    ("namespace", Str),
    ("uid", Str),
    ("resourceVersion", Str),
    ("generation", Int64),
    ("labels", StrMap),
    ("annotations", StrMap),
    ("finalizers", StrList),
];

const NAMES: &[(&str, Shape)] = &[
    ("plural", Str),
    ("singular", Str),
    ("shortNames", StrList),
    ("kind", Str),
    ("listKind", Str),
    ("categories", StrList),
];

const SCALE: &[(&str, Shape)] = &[
    ("specReplicasPath", Str),
    ("statusReplicasPath", Str),
    ("labelSelectorPath", Str),
];

const SUBRESOURCES: &[(&str, Shape)] = &[("status", Struct(&[])), ("scale", Struct(SCALE))];

const COLUMN: &[(&str, Shape)] = &[
    ("name", Str),
    ("type", Str),
    ("format", Str),
    ("description", Str),
    ("priority", Int32),
    ("jsonPath", Str),
];

const VERSION: &[(&str, Shape)] = &[
    ("name", Str),
    ("served", Bool),
    ("storage", Bool),
    ("deprecated", Bool),
    ("deprecationWarning", Str),
    ("schema", Struct(&[("openAPIV3Schema", Props)])),
    ("subresources", Struct(SUBRESOURCES)),
    ("additionalPrinterColumns", Shape::List(COLUMN)),
    ("selectableFields", Shape::List(&[("jsonPath", Str)])),
];

const SERVICE: &[(&str, Shape)] = &[
    ("namespace", Str),
    ("name", Str),
    ("path", Str),
    ("port", Int32),
];

const CLIENT_CONFIG: &[(&str, Shape)] = &[
    ("url", Str),
    ("service", Struct(SERVICE)),
    ("caBundle", Bytes),
];

const CONVERSION: &[(&str, Shape)] = &[
    ("strategy", Str),
    (
        "webhook",
        Struct(&[
            ("clientConfig", Struct(CLIENT_CONFIG)),
            ("conversionReviewVersions", StrList),
        ]),
    ),
];

const SPEC: &[(&str, Shape)] = &[
    ("group", Str),
    ("names", Struct(NAMES)),
    ("scope", Str),
    ("versions", Shape::List(VERSION)),
    ("conversion", Struct(CONVERSION)),
    ("preserveUnknownFields", Bool),
];

const CRD: &[(&str, Shape)] = &[
    ("apiVersion", Str),
    ("kind", Str),
    ("metadata", Struct(OBJECT_META)),
    ("spec", Struct(SPEC)),
    ("status", Any),
];

const VALIDATION_RULE: &[(&str, Shape)] = &[
    ("rule", Str),
    ("message", Str),
    ("messageExpression", Str),
    ("reason", Str),
    ("fieldPath", Str),
    ("optionalOldSelf", Bool),
];

const PROPS: &[(&str, Shape)] = &[
    ("id", Str),
    ("$schema", Str),
    ("$ref", Str),
    ("description", Str),
    ("type", Str),
    ("format", Str),
    ("title", Str),
    ("default", Any),
    ("maximum", Float),
    ("exclusiveMaximum", Bool),
    ("minimum", Float),
    ("exclusiveMinimum", Bool),
    ("maxLength", Int64),
    ("minLength", Int64),
    ("pattern", Str),
    ("maxItems", Int64),
    ("minItems", Int64),
    ("uniqueItems", Bool),
    ("multipleOf", Float),
    ("enum", Shape::List(&[])),
    ("maxProperties", Int64),
    ("minProperties", Int64),
    ("required", StrList),
    ("items", PropsOrArray),
    ("allOf", PropsList),
    ("oneOf", PropsList),
    ("anyOf", PropsList),
    ("not", Props),
    ("properties", PropsMap),
    ("additionalProperties", PropsOrBool),
    ("patternProperties", PropsMap),
    ("dependencies", PropsOrStringArrayMap),
    ("additionalItems", PropsOrBool),
    ("definitions", PropsMap),
    (
        "externalDocs",
        Struct(&[("description", Str), ("url", Str)]),
    ),
    ("example", Any),
    ("nullable", Bool),
    ("x-kubernetes-preserve-unknown-fields", Bool),
    ("x-kubernetes-embedded-resource", Bool),
    ("x-kubernetes-int-or-string", Bool),
    ("x-kubernetes-list-map-keys", StrList),
    ("x-kubernetes-list-type", Str),
    ("x-kubernetes-map-type", Str),
    ("x-kubernetes-validations", Shape::List(VALIDATION_RULE)),
];

/// The first value the API server's decoder refuses, as one refusal (then nothing else is
/// judged, as on the server). Returns true when the CRD decodes.
pub(super) fn decodes(crd: &Value, r: &mut Refusals) -> bool {
    match check(crd, Struct(CRD), "", false) {
        Ok(()) => true,
        Err((path, problem)) => {
            r.push(Refusal::Undecodable {
                path: if path.is_empty() {
                    "<root>".to_owned()
                } else {
                    path
                },
                problem,
            });
            false
        }
    }
}

type Problem = (String, String);

fn refuse(path: &str, value: &Value, into: &str) -> Result<(), Problem> {
    let what = match value {
        Value::Number(n) => format!("number {n}"),
        Value::String(_) => "string".into(),
        Value::Bool(_) => "bool".into(),
        Value::Array(_) => "array".into(),
        Value::Object(_) => "object".into(),
        Value::Null => "null".into(),
    };
    Err((
        path.to_owned(),
        format!("cannot unmarshal {what} into {into}"),
    ))
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// The member of `fields` a JSON key decodes into: its exact name, else (with `fold`, Go's
/// `encoding/json`) a case-insensitive match.
fn field_for(fields: &[(&'static str, Shape)], key: &str, fold: bool) -> Option<Shape> {
    fields
        .iter()
        .find(|(name, _)| *name == key)
        .or_else(|| {
            fields
                .iter()
                .find(|(name, _)| fold && name.eq_ignore_ascii_case(key))
        })
        .map(|(_, shape)| *shape)
}

fn check(value: &Value, shape: Shape, path: &str, fold: bool) -> Result<(), Problem> {
    if value.is_null() {
        return Ok(());
    }
    match shape {
        Any => Ok(()),
        Str if value.is_string() => Ok(()),
        Str => refuse(path, value, "a string"),
        Bool if value.is_boolean() => Ok(()),
        Bool => refuse(path, value, "a bool"),
        Float if value.is_number() => Ok(()),
        Float => refuse(path, value, "a float64"),
        Int64 | Int32 => {
            let Some(n) = value.as_number() else {
                return refuse(path, value, "an integer");
            };
            // Go parses the literal: no fraction, no exponent, within the type's range.
            let text = n.to_string();
            let whole = !text.contains(['.', 'e', 'E']);
            let fits = match shape {
                Int32 => n.as_i64().is_some_and(|i| i32::try_from(i).is_ok()),
                _ => n.as_i64().is_some(),
            };
            if whole && fits {
                Ok(())
            } else {
                refuse(
                    path,
                    value,
                    if matches!(shape, Int32) {
                        "an int32"
                    } else {
                        "an int64"
                    },
                )
            }
        }
        Bytes => match value.as_str() {
            Some(text) if is_base64(text) => Ok(()),
            Some(_) => Err((
                path.to_owned(),
                "illegal base64 data (a []byte field takes standard base64 text)".to_owned(),
            )),
            None => refuse(path, value, "a []byte (base64 text)"),
        },
        StrList => list(value, path, |item, at| check(item, Str, at, fold)),
        StrMap => map(value, path, |item, at| check(item, Str, at, fold)),
        Shape::List(fields) => list(value, path, |item, at| {
            if fields.is_empty() {
                Ok(())
            } else {
                check(item, Struct(fields), at, fold)
            }
        }),
        Struct(fields) => {
            let Value::Object(members) = value else {
                return refuse(path, value, "an object");
            };
            for (key, member) in members {
                if let Some(shape) = field_for(fields, key, fold) {
                    check(member, shape, &child(path, key), fold)?;
                }
            }
            Ok(())
        }
        Props => check(value, Struct(PROPS), path, fold),
        PropsList => list(value, path, |item, at| check(item, Props, at, fold)),
        PropsMap => map(value, path, |item, at| check(item, Props, at, fold)),
        // The unions decode their schema with `encoding/json` (case-insensitive names).
        PropsOrBool => match value {
            Value::Bool(_) => Ok(()),
            Value::Object(_) => check(value, Props, path, true),
            _ => Err((
                path.to_owned(),
                "boolean or JSON schema expected".to_owned(),
            )),
        },
        PropsOrArray => match value {
            Value::Array(_) => check(value, PropsList, path, true),
            Value::Object(_) => check(value, Props, path, true),
            _ => Ok(()),
        },
        PropsOrStringArrayMap => map(value, path, |item, at| match item {
            Value::Array(_) => check(item, StrList, at, true),
            Value::Object(_) => check(item, Props, at, true),
            _ => Ok(()),
        }),
    }
}

fn list(
    value: &Value,
    path: &str,
    each: impl Fn(&Value, &str) -> Result<(), Problem>,
) -> Result<(), Problem> {
    let Value::Array(items) = value else {
        return refuse(path, value, "a list");
    };
    for (i, item) in items.iter().enumerate() {
        each(item, &format!("{path}[{i}]"))?;
    }
    Ok(())
}

fn map(
    value: &Value,
    path: &str,
    each: impl Fn(&Value, &str) -> Result<(), Problem>,
) -> Result<(), Problem> {
    let Value::Object(members) = value else {
        return refuse(path, value, "a map");
    };
    for (key, member) in members {
        each(member, &format!("{path}[{key}]"))?;
    }
    Ok(())
}

/// Go's `base64.StdEncoding` (padding required; `encoding/json` also drops `\r` and `\n`).
fn is_base64(text: &str) -> bool {
    let bytes: Vec<u8> = text
        .bytes()
        .filter(|b| !matches!(b, b'\r' | b'\n'))
        .collect();
    if !bytes.len().is_multiple_of(4) {
        return false;
    }
    let padding = bytes.iter().rev().take_while(|b| **b == b'=').count();
    padding <= 2
        && bytes[..bytes.len() - padding]
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn refused(crd: Value) -> Option<String> {
        let mut r = Refusals::default();
        (!decodes(&crd, &mut r)).then(|| r.errors[0].field().to_owned())
    }

    /// Go `encoding/json` into the apiextensions v1 types (types.go field tags): wrong JSON
    /// types are refused, missing and null members are zero values, names match without case.
    #[test]
    fn wrong_types_are_refused_where_go_refuses_them() {
        let schema = |props: Value| json!({"spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema": {"type": "object", "properties": {"x": props}}}}]}});
        let at = "spec.versions[0].schema.openAPIV3Schema.properties[x]";
        assert_eq!(
            refused(schema(json!({"minLength": "3"}))),
            Some(format!("{at}.minLength"))
        );
        assert_eq!(
            refused(schema(json!({"minLength": 3.0}))),
            Some(format!("{at}.minLength"))
        );
        // Case-sensitive at the top (sigs.k8s.io/json), case-insensitive below a union.
        assert_eq!(refused(schema(json!({"MinLength": "3"}))), None);
        assert_eq!(
            refused(schema(json!({"items": {"MinLength": "3"}}))),
            Some(format!("{at}.items.MinLength"))
        );
        assert_eq!(refused(schema(json!({"items": "x"}))), None);
        assert_eq!(refused(schema(json!({"maximum": 3}))), None);
        assert_eq!(
            refused(schema(json!({"additionalProperties": "x"}))),
            Some(format!("{at}.additionalProperties"))
        );
        assert_eq!(
            refused(schema(
                json!({"items": [{"type": "string"}], "default": "anything"})
            )),
            None
        );
        assert_eq!(
            refused(schema(json!({"enum": "a"}))),
            Some(format!("{at}.enum"))
        );
        assert_eq!(
            refused(schema(json!({"minLength": null, "unknown": 1}))),
            None
        );
        assert_eq!(
            refused(
                json!({"spec": {"conversion": {"webhook": {"clientConfig": {"caBundle": "not base64!"}}}}})
            ),
            Some("spec.conversion.webhook.clientConfig.caBundle".into())
        );
        assert_eq!(
            refused(json!({"spec": {"versions": [{"served": "yes"}]}})),
            Some("spec.versions[0].served".into())
        );
        assert_eq!(
            refused(
                json!({"spec": {"versions": [{"additionalPrinterColumns": [{"priority": 3_000_000_000_i64}]}]}})
            ),
            Some("spec.versions[0].additionalPrinterColumns[0].priority".into())
        );
    }
}
