//! The OpenAPI schema of each version, as `validateCustomResourceDefinitionValidation`
//! (`pkg/apis/apiextensions/validation/validation.go` lines 910-1013) validates it:
//!
//! * the root under the status subresource (only some keywords, `type: object`), `nullable`
//!   at the root;
//! * the structural-schema rules of `pkg/apiserver/schema/validation.go`
//!   (`validateStructuralInvariants`, `validateStructuralMetadataInvariants`,
//!   `validateExtensions`, `validateValueValidation`, `validateNestedValueValidation`) and
//!   `complete.go` (`validateStructuralCompleteness`);
//! * then, only when those hold, the defaults (`structuraldefaulting.ValidateDefaults`, see
//!   [`super::defaults`]);
//! * `ValidateCustomResourceDefinitionOpenAPISchema` (lines 1033-1324) and
//!   `specStandardValidatorV3.validate` (lines 1464-1525): unsupported keywords, types,
//!   `uniqueItems`, `additionalProperties` next to `properties`, list and map types,
//!   `validateMapListKeysMapSet` (lines 1375-1420), the CEL rules' static parts.

use serde_json::{Map, Value};

use super::cel::{Context, RuleJudge};
use super::{Layout, Refusals, is_true, versions};

/// `openapiV3Types`.
const TYPES: &[&str] = &["array", "boolean", "integer", "number", "object", "string"];

/// Every keyword of `JSONSchemaProps`, in the order of its Go fields (the status-root check
/// stops at the first offending one), and whether it may stand at the root of a schema under
/// the status subresource (`allowedFieldsAtRootSchema`).
const KEYWORDS: &[(&str, bool)] = &[
    ("id", false),
    ("$schema", false),
    ("$ref", false),
    ("description", true),
    ("type", true),
    ("nullable", false),
    ("format", true),
    ("title", true),
    ("default", false),
    ("maximum", true),
    ("exclusiveMaximum", true),
    ("minimum", true),
    ("exclusiveMinimum", true),
    ("maxLength", true),
    ("minLength", true),
    ("pattern", true),
    ("maxItems", true),
    ("minItems", true),
    ("uniqueItems", true),
    ("multipleOf", true),
    ("enum", false),
    ("maxProperties", false),
    ("minProperties", false),
    ("required", true),
    ("items", true),
    ("allOf", false),
    ("oneOf", false),
    ("anyOf", false),
    ("not", false),
    ("properties", true),
    ("additionalProperties", false),
    ("patternProperties", false),
    ("dependencies", false),
    ("additionalItems", false),
    ("definitions", false),
    ("externalDocs", true),
    ("example", true),
    ("x-kubernetes-preserve-unknown-fields", true),
    ("x-kubernetes-embedded-resource", false),
    ("x-kubernetes-int-or-string", false),
    ("x-kubernetes-list-map-keys", false),
    ("x-kubernetes-list-type", false),
    ("x-kubernetes-map-type", false),
    ("x-kubernetes-validations", true),
];

/// Go's zero value for a decoded keyword (skipped by the status-root check): `false` for the
/// plain booleans, `""` for the strings. Pointers and slices are set as soon as they appear.
fn is_zero(key: &str, v: &Value) -> bool {
    match key {
        "nullable"
        | "uniqueItems"
        | "exclusiveMaximum"
        | "exclusiveMinimum"
        | "x-kubernetes-embedded-resource"
        | "x-kubernetes-int-or-string" => *v == Value::Bool(false),
        "id" | "$schema" | "description" | "type" | "format" | "title" | "pattern" => {
            v.as_str() == Some("")
        }
        _ => v.is_null(),
    }
}

pub(super) fn validate_all(spec: &Value, layout: &Layout, judge: &dyn RuleJudge, r: &mut Refusals) {
    for place in layout.places(spec, "schema") {
        let Some(root) = place.value.get("openAPIV3Schema").filter(|s| !s.is_null()) else {
            continue;
        };
        let status = match place.version {
            Some(i) => status_enabled(&versions(spec)[i]["subresources"]),
            None => versions(spec)
                .iter()
                .any(|v| status_enabled(&v["subresources"])),
        };
        let at = format!("{}.openAPIV3Schema", place.path);
        let cx = Context {
            root,
            root_path: &at,
            judge,
            compile: true,
        };
        validate_root(root, &at, status, &cx, r);
    }
}

fn status_enabled(subresources: &Value) -> bool {
    subresources.get("status").is_some_and(|s| !s.is_null())
}

/// One version's (or the hoisted) schema.
fn validate_root(root: &Value, at: &str, status: bool, cx: &Context<'_>, r: &mut Refusals) {
    let start = r.errors.len();
    if status && let Some(obj) = root.as_object() {
        for (key, allowed_at_root) in KEYWORDS {
            let Some(v) = obj.get(*key).filter(|v| !is_zero(key, v)) else {
                continue;
            };
            if *key == "type" {
                if v.as_str() != Some("object") {
                    r.invalid(
                        format!("{at}.type"),
                        v,
                        "only \"object\" is allowed as the type at the root of the schema if the status subresource is enabled",
                    );
                    break;
                }
                continue;
            }
            if !allowed_at_root {
                r.invalid(
                    at,
                    "<schema>",
                    "only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled",
                );
                break;
            }
        }
    }
    if is_true(root, "nullable") {
        r.forbidden(
            format!("{at}.nullable"),
            "nullable cannot be true at the root",
        );
    }
    // Structural rules first; defaults only when they hold, CEL rules only when both hold
    // (validation.go lines 957-973: `RootCELContext` only for a valid structural schema).
    let structural_start = r.errors.len();
    let unsupported = has_unsupported_keyword(root);
    let mut compile = false;
    if !unsupported {
        structural(root, Level::Root, at, r);
        completeness(root, at, r);
        if r.errors.len() == structural_start {
            super::defaults::validate_tree(root, at, r);
            compile = r.errors.len() == structural_start;
        }
    }
    let cel = Context { compile, ..*cx };
    Openapi {
        allow_defaults: true,
        forbidden_reason: String::new(),
        inside_meta: false,
        cel,
    }
    .walk(root, at, true, r);
    // `NewStructural` refused the schema: shown only when nothing else was (lines 976-980).
    // Every keyword it refuses but `$schema` is also forbidden by the walk above, so this is
    // `$schema`'s message.
    if unsupported && r.errors.len() == start {
        r.invalid(at, "", "OpenAPIV3Schema 'schema' is not supported");
    }
    if compile {
        cel.finish(r);
    }
}

/// Keywords `NewStructural` cannot convert (then the structural rules are not run).
fn has_unsupported_keyword(node: &Value) -> bool {
    let Some(obj) = node.as_object() else {
        return false;
    };
    [
        "id",
        "$schema",
        "$ref",
        "patternProperties",
        "dependencies",
        "additionalItems",
        "definitions",
    ]
    .iter()
    .any(|k| obj.get(*k).is_some_and(|v| !is_zero(k, v)))
        || obj.get("items").is_some_and(Value::is_array)
        || children(obj).any(has_unsupported_keyword)
}

/// Every sub-schema of a node: properties, `items`, `additionalProperties`, `not` and the
/// junctors' members.
fn children(obj: &Map<String, Value>) -> impl Iterator<Item = &Value> {
    let props = obj
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(Map::values);
    let single = ["items", "additionalProperties", "not"]
        .into_iter()
        .filter_map(|k| obj.get(k).filter(|v| v.is_object()));
    let junctors = ["allOf", "anyOf", "oneOf"]
        .into_iter()
        .filter_map(|k| obj.get(k).and_then(Value::as_array))
        .flatten();
    props.chain(single).chain(junctors)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Root,
    Item,
    Field,
}

pub(super) fn ty(node: &Value) -> &str {
    node["type"].as_str().unwrap_or_default()
}

/// `validateStructuralInvariants`.
fn structural(node: &Value, level: Level, at: &str, r: &mut Refusals) {
    let Some(obj) = node.as_object() else {
        return;
    };
    let t = ty(node);
    if t == "array" && !obj.contains_key("items") {
        r.required(format!("{at}.items"), "must be specified");
    }
    if let Some(items) = obj.get("items") {
        structural(items, Level::Item, &format!("{at}.items"), r);
    }
    for (k, child) in obj
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        structural(child, Level::Field, &format!("{at}.properties[{k}]"), r);
    }
    if let Some(additional) = obj.get("additionalProperties") {
        if level == Level::Root {
            r.forbidden(
                format!("{at}.additionalProperties"),
                "must not be used at the root",
            );
        }
        if additional.is_object() {
            structural(
                additional,
                Level::Field,
                &format!("{at}.additionalProperties"),
                r,
            );
        }
    }
    // validateExtensions.
    let int_or_string = is_true(node, "x-kubernetes-int-or-string");
    let embedded = is_true(node, "x-kubernetes-embedded-resource");
    let preserve = is_true(node, "x-kubernetes-preserve-unknown-fields");
    if int_or_string && preserve {
        r.invalid(
            format!("{at}.x-kubernetes-preserve-unknown-fields"),
            Value::Bool(true),
            "must be false if x-kubernetes-int-or-string is true",
        );
    }
    if int_or_string && embedded {
        r.invalid(
            format!("{at}.x-kubernetes-embedded-resource"),
            Value::Bool(true),
            "must be false if x-kubernetes-int-or-string is true",
        );
    }
    let skip_any_of = is_int_or_string_any_of(obj.get("anyOf"));
    let skip_first_all_of_any_of = obj
        .get("allOf")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .is_some_and(|first| is_int_or_string_any_of(first.get("anyOf")));
    value_validation(obj, skip_any_of, skip_first_all_of_any_of, level, at, r);
    if embedded && t != "object" {
        if t.is_empty() {
            r.required(
                format!("{at}.type"),
                "must be object if x-kubernetes-embedded-resource is true",
            );
        } else {
            r.invalid(
                format!("{at}.type"),
                t,
                "must be object if x-kubernetes-embedded-resource is true",
            );
        }
    } else if t.is_empty() && !int_or_string && !preserve {
        let detail = match level {
            Level::Root => "must not be empty at the root",
            Level::Item => "must not be empty for specified array items",
            Level::Field => "must not be empty for specified object fields",
        };
        r.required(format!("{at}.type"), detail);
    }
    if embedded && obj.contains_key("additionalProperties") {
        r.forbidden(
            format!("{at}.additionalProperties"),
            "must not be used if x-kubernetes-embedded-resource is set",
        );
    }
    if level == Level::Root && !t.is_empty() && t != "object" {
        r.invalid(format!("{at}.type"), t, "must be object at the root");
    }
    embedded_and_meta(obj, level, embedded, preserve, at, r);
}

/// The root's and an embedded resource's `kind`, `apiVersion` and `metadata`, and the
/// properties an embedded resource needs (the end of `validateStructuralInvariants`).
fn embedded_and_meta(
    obj: &Map<String, Value>,
    level: Level,
    embedded: bool,
    preserve: bool,
    at: &str,
    r: &mut Refusals,
) {
    let check_meta = level == Level::Root || embedded;
    let props = obj.get("properties").and_then(Value::as_object);
    if check_meta {
        for key in ["kind", "apiVersion"] {
            if let Some(p) = props.and_then(|p| p.get(key))
                && ty(p) != "string"
            {
                r.invalid(
                    format!("{at}.properties[{key}].type"),
                    ty(p),
                    "must be string",
                );
            }
        }
    }
    if let Some(meta) = props.and_then(|p| p.get("metadata")) {
        let path = format!("{at}.properties[metadata]");
        if check_meta && ty(meta) != "object" {
            r.invalid(format!("{path}.type"), ty(meta), "must be object");
        }
        if level == Level::Root && !root_metadata_is_implicit(meta) {
            r.forbidden(
                path,
                "must not specify anything other than name and generateName, but metadata is implicitly specified",
            );
        }
    }
    if embedded && !preserve && props.is_none_or(Map::is_empty) {
        r.required(
            format!("{at}.properties"),
            "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
        );
    }
}

/// `validateStructuralMetadataInvariants` at the root: nothing but `type`, a `default`, and
/// `properties` holding only `name` and/or `generateName`.
fn root_metadata_is_implicit(meta: &Value) -> bool {
    let Some(obj) = meta.as_object() else {
        return true;
    };
    obj.iter().all(|(k, v)| match k.as_str() {
        "type" | "default" => true,
        "properties" => v
            .as_object()
            .is_none_or(|p| p.is_empty() || p.keys().all(|k| k == "name" || k == "generateName")),
        "required" | "enum" | "allOf" | "anyOf" | "oneOf" => {
            v.as_array().is_some_and(Vec::is_empty)
        }
        key => is_zero(key, v),
    })
}

/// The int-or-string pattern `anyOf: [{type: integer}, {type: string}]` the structural rules
/// let through.
fn is_int_or_string_any_of(any_of: Option<&Value>) -> bool {
    any_of.and_then(Value::as_array).is_some_and(|a| {
        a.len() == 2
            && a[0] == serde_json::json!({"type": "integer"})
            && a[1] == serde_json::json!({"type": "string"})
    })
}

/// `validateValueValidation`: the junctors and the pattern. `skip_any_of` and
/// `skip_first_all_of_any_of` let the int-or-string patterns through (set on a structural
/// node that holds them; a nested value validation passes its own `skip_any_of` down).
fn value_validation(
    obj: &Map<String, Value>,
    skip_any_of: bool,
    skip_first_all_of_any_of: bool,
    level: Level,
    at: &str,
    r: &mut Refusals,
) {
    for junctor in ["anyOf", "allOf", "oneOf"] {
        if junctor == "anyOf" && skip_any_of {
            continue;
        }
        for (i, nested) in obj
            .get(junctor)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let skip = junctor == "allOf" && i == 0 && skip_first_all_of_any_of;
            nested_value_validation(nested, skip, level, &format!("{at}.{junctor}[{i}]"), r);
        }
    }
    if let Some(not) = obj.get("not").filter(|v| v.is_object()) {
        nested_value_validation(not, false, level, &format!("{at}.not"), r);
    }
    if let Some(pattern) = obj
        .get("pattern")
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
    {
        super::pattern::check(pattern, &format!("{at}.pattern"), r);
    }
}

/// `validateNestedValueValidation`: what a junctor may not hold.
fn nested_value_validation(
    node: &Value,
    skip_any_of: bool,
    level: Level,
    at: &str,
    r: &mut Refusals,
) {
    let Some(obj) = node.as_object() else {
        return;
    };
    value_validation(obj, skip_any_of, false, level, at, r);
    if let Some(items) = obj.get("items").filter(|v| v.is_object()) {
        nested_value_validation(items, false, level, &format!("{at}.items"), r);
    }
    for (k, child) in obj
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        nested_value_validation(
            child,
            false,
            Level::Field,
            &format!("{at}.properties[{k}]"),
            r,
        );
    }
    let set = |k: &str| obj.get(k).is_some_and(|v| !is_zero(k, v));
    if set("type") {
        r.forbidden(format!("{at}.type"), "must be empty to be structural");
    }
    if obj
        .get("additionalProperties")
        .is_some_and(|v| *v != Value::Bool(false))
    {
        r.forbidden(
            format!("{at}.additionalProperties"),
            "must be undefined to be structural",
        );
    }
    for (key, detail) in [
        ("default", "must be undefined to be structural"),
        ("title", "must be empty to be structural"),
        ("description", "must be empty to be structural"),
    ] {
        if set(key) {
            r.forbidden(format!("{at}.{key}"), detail);
        }
    }
    for key in [
        "nullable",
        "x-kubernetes-preserve-unknown-fields",
        "x-kubernetes-embedded-resource",
        "x-kubernetes-int-or-string",
    ] {
        if is_true(node, key) {
            r.forbidden(format!("{at}.{key}"), "must be false to be structural");
        }
    }
    let non_empty_list = |key: &str| {
        obj.get(key)
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
    };
    if non_empty_list("x-kubernetes-list-map-keys") {
        r.forbidden(
            format!("{at}.x-kubernetes-list-map-keys"),
            "must be empty to be structural",
        );
    }
    for key in ["x-kubernetes-list-type", "x-kubernetes-map-type"] {
        if obj.get(key).is_some_and(|v| !v.is_null()) {
            r.forbidden(format!("{at}.{key}"), "must be undefined to be structural");
        }
    }
    if non_empty_list("x-kubernetes-validations") {
        r.forbidden(
            format!("{at}.x-kubernetes-validations"),
            "must be empty to be structural",
        );
    }
    if obj
        .get("properties")
        .and_then(|p| p.get("metadata"))
        .is_some()
    {
        r.forbidden(
            format!("{at}.properties[metadata]"),
            "must not be specified in a nested context",
        );
    }
}

/// The junctor schemas of a node, in upstream's order (`allOf`, `anyOf`, `oneOf` entries, then
/// `not`), each with its field path under `at`.
fn junctors<'v>(
    obj: &'v Map<String, Value>,
    at: &str,
) -> impl Iterator<Item = (&'v Value, String)> {
    let lists = ["allOf", "anyOf", "oneOf"]
        .into_iter()
        .flat_map(move |junctor| {
            obj.get(junctor)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
                .map(move |(i, nested)| (nested, format!("{at}.{junctor}[{i}]")))
        });
    lists.chain(obj.get("not").map(|not| (not, format!("{at}.not"))))
}

/// `validateStructuralCompleteness`: what a junctor of the **root** names must be in the
/// structural schema (upstream checks the root's junctors only, not those of nested nodes).
fn completeness(node: &Value, at: &str, r: &mut Refusals) {
    let Some(obj) = node.as_object() else {
        return;
    };
    for (nested, path) in junctors(obj, at) {
        nested_completeness(nested, Some(node), at, &path, r);
    }
}

fn nested_completeness(v: &Value, s: Option<&Value>, s_path: &str, v_path: &str, r: &mut Refusals) {
    let Some(vobj) = v.as_object() else {
        return;
    };
    let Some(s) = s else {
        r.required(s_path, format!("because it is defined in {v_path}"));
        return;
    };
    for (nested, path) in junctors(vobj, v_path) {
        nested_completeness(nested, Some(s), s_path, &path, r);
    }
    if let Some(items) = vobj.get("items").filter(|i| i.is_object()) {
        nested_completeness(
            items,
            s.get("items").filter(|i| i.is_object()),
            &format!("{s_path}.items"),
            &format!("{v_path}.items"),
            r,
        );
    }
    for (k, child) in vobj
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        match s.get("properties").and_then(|p| p.get(k)) {
            Some(sf) => nested_completeness(
                child,
                Some(sf),
                &format!("{s_path}.properties[{k}]"),
                &format!("{v_path}.properties[{k}]"),
                r,
            ),
            None => r.required(
                format!("{s_path}.properties[{k}]"),
                format!("because it is defined in {v_path}.properties[{k}]"),
            ),
        }
    }
}

/// `ValidateCustomResourceDefinitionOpenAPISchema` with `specStandardValidatorV3`.
#[derive(Clone)]
struct Openapi<'a> {
    allow_defaults: bool,
    forbidden_reason: String,
    inside_meta: bool,
    cel: Context<'a>,
}

impl Openapi<'_> {
    fn forbid_defaults(&self, reason: &str) -> Self {
        Self {
            allow_defaults: false,
            forbidden_reason: reason.to_owned(),
            ..self.clone()
        }
    }

    /// `specStandardValidatorV3.validate`.
    fn standard(&self, obj: &Map<String, Value>, at: &str, r: &mut Refusals) {
        let t = obj.get("type").and_then(Value::as_str).unwrap_or_default();
        if !t.is_empty() && !TYPES.contains(&t) {
            r.not_supported(format!("{at}.type"), t, TYPES);
        }
        if obj.contains_key("default") && !obj["default"].is_null() && !self.allow_defaults {
            let mut detail = "must not be set".to_owned();
            if !self.forbidden_reason.is_empty() {
                detail = format!("{detail} {}", self.forbidden_reason);
            }
            r.forbidden(format!("{at}.default"), &detail);
        }
        let set = |k: &str| obj.get(k).is_some_and(|v| !is_zero(k, v));
        for (key, detail) in [
            ("id", "id is not supported"),
            ("additionalItems", "additionalItems is not supported"),
            ("patternProperties", "patternProperties is not supported"),
            ("definitions", "definitions is not supported"),
            ("dependencies", "dependencies is not supported"),
            ("$ref", "$ref is not supported"),
        ] {
            let present = match key {
                "patternProperties" | "definitions" => obj
                    .get(key)
                    .and_then(Value::as_object)
                    .is_some_and(|m| !m.is_empty()),
                _ => set(key),
            };
            if present {
                r.forbidden(format!("{at}.{key}"), detail);
            }
        }
        if t == "null" {
            r.forbidden(
                format!("{at}.type"),
                "type cannot be set to null, use nullable as an alternative",
            );
        }
        if obj
            .get("items")
            .is_some_and(|i| i.as_array().is_some_and(|a| !a.is_empty()))
        {
            r.forbidden(
                format!("{at}.items"),
                "items must be a schema object and not an array",
            );
        }
        if self.inside_meta && obj.get("x-kubernetes-embedded-resource") == Some(&Value::Bool(true))
        {
            r.forbidden(
                format!("{at}.x-kubernetes-embedded-resource"),
                "must not be used inside of resource meta",
            );
        }
    }

    fn walk(&self, node: &Value, at: &str, is_root: bool, r: &mut Refusals) {
        let Some(obj) = node.as_object() else {
            return;
        };
        let errors_before = r.errors.len();
        self.standard(obj, at, r);
        if is_true(node, "uniqueItems") {
            r.forbidden(
                format!("{at}.uniqueItems"),
                "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
            );
        }
        let props = obj.get("properties").and_then(Value::as_object);
        if let Some(additional) = obj.get("additionalProperties") {
            if props.is_some_and(|p| !p.is_empty())
                && (*additional == Value::Bool(false) || additional.is_object())
            {
                r.forbidden(
                    format!("{at}.additionalProperties"),
                    "additionalProperties and properties are mutual exclusive",
                );
            }
            let sub = if self.inside_meta {
                self.forbid_defaults("inside additionalProperties applying to object metadata")
            } else {
                self.clone()
            };
            if additional.is_object() {
                sub.walk(additional, &format!("{at}.additionalProperties"), false, r);
            }
        }
        let embedded = is_true(node, "x-kubernetes-embedded-resource");
        for (k, child) in props.into_iter().flatten() {
            let mut sub = self.clone();
            if (is_root || embedded) && matches!(k.as_str(), "metadata" | "kind" | "apiVersion") {
                sub.inside_meta = true;
                if is_root {
                    sub = sub.forbid_defaults(&format!("in top-level {k}"));
                }
            }
            sub.walk(child, &format!("{at}.properties[{k}]"), false, r);
        }
        if let Some(not) = obj.get("not") {
            self.walk(not, &format!("{at}.not"), false, r);
        }
        for junctor in ["allOf", "oneOf", "anyOf"] {
            for (i, nested) in obj
                .get(junctor)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                self.walk(nested, &format!("{at}.{junctor}[{i}]"), false, r);
            }
        }
        if let Some(items) = obj.get("items") {
            match items {
                Value::Array(list) => {
                    for (i, item) in list.iter().enumerate() {
                        self.walk(item, &format!("{at}.items[{i}]"), false, r);
                    }
                }
                _ => self.walk(items, &format!("{at}.items"), false, r),
            }
        }
        if obj.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(false)) {
            r.invalid(
                format!("{at}.x-kubernetes-preserve-unknown-fields"),
                Value::Bool(false),
                "must be true or undefined",
            );
        }
        super::list_types::validate(obj, at, r);
        super::cel::validate(node, at, r.errors.len() == errors_before, &self.cel, r);
    }
}
