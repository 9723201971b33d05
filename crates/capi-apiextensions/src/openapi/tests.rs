//! Expected texts derived from the Go sources (kube-openapi `pkg/validation/errors/schema.go`
//! message formats, `validate/*.go` validator order; apiextensions
//! `kubeOpenAPIResultToFieldErrors`; apimachinery `field.Error.ErrorBody`;
//! `schema/listtype/validation.go`), not from this module. tests/e2e/tests/validate_differential.rs
//! holds them against the real API server.

use serde_json::{Value, json};

use super::Schema;

fn errors(schema: Value, object: Value) -> Vec<String> {
    Schema::new(schema)
        .map(|s| {
            s.validate(&object)
                .iter()
                .map(ToString::to_string)
                .collect()
        })
        .unwrap_or_else(|e| vec![format!("schema refused: {e}")])
}

fn spec(properties: Value) -> Value {
    json!({"type": "object", "properties": {"spec": {"type": "object", "properties": properties}}})
}

#[test]
fn type_errors_quote_the_actual_type() {
    // typeFailWithData "%s in %s must be of type %s: %q", reported as field.TypeInvalid with
    // the type name as its value.
    assert_eq!(
        errors(
            spec(json!({"n": {"type": "string"}})),
            json!({"spec": {"n": 5}})
        ),
        [r#"spec.n: Invalid value: "integer": spec.n in body must be of type string: "integer""#]
    );
    // A format on an integer: a non-number fails the format check first (its format is "").
    assert_eq!(
        errors(
            spec(json!({"r": {"type": "integer", "format": "int32"}})),
            json!({"spec": {"r": "three"}})
        ),
        [r#"spec.r: Invalid value: "string": spec.r in body must be of type integer: "string""#]
    );
    assert_eq!(
        errors(
            spec(json!({"r": {"type": "integer", "format": "int32"}})),
            json!({"spec": {"r": true}})
        ),
        [r#"spec.r: Invalid value: "": spec.r in body must be of type int32: """#]
    );
}

#[test]
fn whole_floats_are_integers_and_int32_is_a_range() {
    let schema = spec(json!({"r": {"type": "integer", "format": "int32", "minimum": 0}}));
    assert!(errors(schema.clone(), json!({"spec": {"r": 3.0}})).is_empty());
    // The range check is a plain error: the root path, an empty value.
    assert_eq!(
        errors(schema.clone(), json!({"spec": {"r": 3_000_000_000_i64}})),
        [
            r#"<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.r"#
        ]
    );
    assert_eq!(
        errors(schema, json!({"spec": {"r": 1.5}})),
        [
            r#"spec.r: Invalid value: "float64": spec.r in body must be of type int32: "float64""#,
            r#"<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.r"#,
        ]
    );
}

/// Issue 65: a number beyond int64 (Go decodes it as a float64) is no integer to kube-openapi
/// (`swag.IsFloat64AJSONInteger` stops at 2^53 - 1): a type error beside the range error, as
/// the real API server answers for a CRD default of 9223372036854775808 (run against
/// apiextensions-apiserver v0.37.2 by the e2e tier).
#[test]
fn numbers_beyond_int64_are_not_integers() {
    let plain = spec(json!({"r": {"type": "integer"}}));
    assert_eq!(
        errors(plain, json!({"spec": {"r": 9_223_372_036_854_775_808_u64}})),
        [
            r#"spec.r: Invalid value: "number": spec.r in body must be of type integer: "number""#,
            r#"<nil>: Invalid value: "": Checked value must be of type integer (default format) in spec.r"#,
        ]
    );
    let int64 = spec(json!({"r": {"type": "integer", "format": "int64"}}));
    assert_eq!(
        errors(int64.clone(), json!({"spec": {"r": -1e19}})),
        [
            r#"spec.r: Invalid value: "float64": spec.r in body must be of type int64: "float64""#,
            r#"<nil>: Invalid value: "": Checked value must be of type integer with format int64 in spec.r"#,
        ]
    );
    assert!(errors(int64, json!({"spec": {"r": i64::MAX}})).is_empty());
}

#[test]
fn bounds_enums_and_required() {
    let schema = spec(json!({
        "s": {"type": "string", "minLength": 1, "maxLength": 3, "pattern": "^[a-z]+$"},
        "e": {"type": "string", "enum": ["Positive", "Negative"]},
        "l": {"type": "array", "maxItems": 1, "minItems": 1, "items": {"type": "string"}},
        "m": {"type": "object", "minProperties": 1, "additionalProperties": {"type": "string"}},
    }));
    // The server walks properties in Go map order (it varies): compared as sets.
    let mut got = errors(
        schema.clone(),
        json!({"spec": {"s": "", "e": "Sideways", "l": ["a", "b"], "m": {}}}),
    );
    got.sort();
    assert_eq!(
        got,
        [
            r#"spec.e: Unsupported value: "Sideways": supported values: "Positive", "Negative""#,
            "spec.l: Too many: 2: must have at most 1 item",
            "spec.m: Invalid value: 0: spec.m in body should have at least 1 properties",
            r#"spec.s: Invalid value: "": spec.s in body should be at least 1 chars long"#,
        ]
    );
    let mut got = errors(
        schema.clone(),
        json!({"spec": {"s": "abcd", "l": [], "m": {"k": 1}}}),
    );
    got.sort();
    assert_eq!(
        got,
        [
            "spec.l: Invalid value: 0: spec.l in body should have at least 1 items",
            r#"spec.m.k: Invalid value: "integer": spec.m.k in body must be of type string: "integer""#,
            "spec.s: Too long: may not be more than 3 bytes",
        ]
    );
    assert_eq!(
        errors(schema, json!({"spec": {"s": "A"}})),
        [r#"spec.s: Invalid value: "A": spec.s in body should match '^[a-z]+$'"#]
    );
    let required = json!({"type": "object", "required": ["spec"], "properties": {
        "spec": {"type": "object", "required": ["ref"], "properties": {
            "ref": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}}}}});
    assert_eq!(
        errors(required.clone(), json!({"spec": {"ref": {}}})),
        ["spec.ref.name: Required value"]
    );
    assert_eq!(errors(required, json!({})), ["spec: Required value"]);
}

#[test]
fn null_list_items_are_type_errors() {
    assert_eq!(
        errors(
            spec(json!({"l": {"type": "array", "items": {"type": "string"}}})),
            json!({"spec": {"l": ["a", null]}})
        ),
        [r#"spec.l[1]: Invalid value: "null": spec.l[1] in body must be of type string: "null""#]
    );
}

#[test]
fn keyed_lists_report_the_second_occurrence() {
    let schema = spec(json!({
        "gates": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["conditionType"],
            "items": {"type": "object", "properties": {"conditionType": {"type": "string"}}}},
        "taints": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["key", "effect"],
            "items": {"type": "object", "properties": {"key": {"type": "string"}, "effect": {"type": "string"}}}},
        "ids": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
    }));
    let got = errors(
        schema,
        json!({"spec": {
            "gates": [{"conditionType": "A"}, {"conditionType": "A"}, {"conditionType": "A"}, {}, {}],
            "taints": [{"key": "k", "effect": "NoSchedule"}, {"effect": "NoSchedule", "key": "k"}, {"key": "k", "effect": "NoExecute"}],
            "ids": ["a", "b", "a"],
        }}),
    );
    let mut got = got;
    got.sort();
    assert_eq!(
        got,
        [
            r#"spec.gates[1]: Duplicate value: {"conditionType":"A"}"#,
            "spec.gates[4]: Duplicate value: {}",
            r#"spec.ids[2]: Duplicate value: "a""#,
            r#"spec.taints[1]: Duplicate value: {"effect":"NoSchedule","key":"k"}"#,
        ]
    );
}

#[test]
fn schemas_using_unchecked_keywords_are_refused() {
    for (schema, what) in [
        (
            spec(json!({"x": {"type": "string", "format": "email"}})),
            "format",
        ),
        (
            spec(json!({"x": {"x-kubernetes-validations": [{"rule": "true"}]}})),
            "x-kubernetes-validations",
        ),
        (spec(json!({"x": {"anyOf": [{"type": "string"}]}})), "anyOf"),
    ] {
        let e = Schema::new(schema).map(|_| ()).unwrap_err();
        assert!(e.to_string().contains(what), "{e}");
    }
    // The formats and `multipleOf` kube-openapi checks as reproduced here are accepted.
    let schema = Schema::new(spec(json!({
        "when": {"type": "string", "format": "date-time"},
        "step": {"type": "integer", "multipleOf": 5}})))
    .unwrap_or_else(|e| panic!("{e}"));
    let errors: Vec<String> = schema
        .validate(&json!({"spec": {"when": "yesterday", "step": 7}}))
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        errors,
        [
            r#"spec.step: Invalid value: 7: spec.step in body should be a multiple of 5"#,
            r#"spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday""#,
        ]
    );
}

/// `structuralpruning.prune` (apiextensions v0.37.2 `pkg/apiserver/schema/pruning/algorithm.go`):
/// unknown members are deleted, an object under a schema without properties is emptied, the
/// resource root keeps `apiVersion`, `kind` and `metadata`.
#[test]
fn pruning_as_the_api_server_prunes() {
    let schema = Schema::new(spec(json!({
        "replicas": {"type": "integer"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "list": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}},
    })))
    .unwrap();
    let mut object = json!({
        "apiVersion": "v", "kind": "K", "metadata": {"name": "n", "x": 1}, "status": {"a": 1},
        "spec": {"replicas": {"a": 1}, "labels": {"k": "v"}, "list": [{"a": "x", "b": 1}], "extra": true},
    });
    schema.prune(&mut object);
    assert_eq!(
        object,
        json!({
            "apiVersion": "v", "kind": "K", "metadata": {"name": "n", "x": 1},
            "spec": {"replicas": {}, "labels": {"k": "v"}, "list": [{"a": "x"}]},
        })
    );
}
