//! kube-openapi's validation of one value against one schema node, as apiextensions runs it
//! on a custom resource (`k8s.io/kube-openapi/pkg/validation/validate`, `SchemaValidator`),
//! with the errors turned into field errors as
//! `apiextensions-apiserver/pkg/apiserver/validation.kubeOpenAPIResultToFieldErrors` does.
//!
//! Validators run in kube-openapi's order (type, string, number, items, enum, object) and
//! each adds its errors; the names in messages are kube-openapi's (`spec.replicas`,
//! `spec.taints[0].key`), prefixed "in body".

use serde_json::{Map, Value};

use super::{Outcome, Schema};
use crate::go_text::{go_float, go_json};
use crate::{BadValue, FieldError, FieldErrorType};

/// A JSON value as the API server's decoder holds it: integers that fit an int64 are int64,
/// every other number a float64.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Int(i64),
    Float(f64),
    String,
    Bool,
    Slice,
    Map,
}

fn kind(v: &Value) -> Option<Kind> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(_) => Kind::Bool,
        Value::String(_) => Kind::String,
        Value::Array(_) => Kind::Slice,
        Value::Object(_) => Kind::Map,
        Value::Number(n) => match n.as_i64() {
            Some(i) => Kind::Int(i),
            None => Kind::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
    })
}

/// The field a kube-openapi name stands for: its leading `.` dropped; the root is a nil
/// `field.Path`, which prints as `<nil>`.
fn field(name: &str) -> &str {
    match name.strip_prefix('.').unwrap_or(name) {
        "" => "<nil>",
        other => other,
    }
}

fn str_of<'a>(schema: &'a Map<String, Value>, key: &str) -> &'a str {
    schema.get(key).and_then(Value::as_str).unwrap_or_default()
}

pub(super) fn invalid(out: &mut Outcome, name: &str, value: BadValue, message: String) {
    out.errors.push(FieldError::new(
        FieldErrorType::Invalid,
        field(name),
        Some(value),
        &message,
    ));
}

/// `typeFailWithData`: the message of a type error (the value is a type name).
fn type_error(out: &mut Outcome, name: &str, expected: &str, actual: &str) {
    out.errors.push(FieldError::new(
        FieldErrorType::TypeInvalid,
        field(name),
        Some(BadValue::from(actual)),
        format!("{name} in body must be of type {expected}: {actual:?}"),
    ));
}

/// Validates `value` (named `name`) against `node`, appending the API server's errors.
pub(super) fn validate(
    schemas: &Schema,
    value: &Value,
    node: &Value,
    name: &str,
    out: &mut Outcome,
) {
    let Some(node) = node.as_object() else {
        return;
    };
    let ty = str_of(node, "type");
    let Some(kind) = kind(value) else {
        let nullable = node.get("nullable") == Some(&Value::Bool(true));
        if !ty.is_empty() && !nullable {
            type_error(out, name, ty, "null");
        }
        enum_check(value, node, name, out);
        return;
    };
    type_check(kind, node, name, out);
    junctors(schemas, value, node, name, out);
    if let Value::String(text) = value {
        string_check(schemas, text, node, name, out);
        format_check(text, node, name, out);
    }
    if matches!(kind, Kind::Int(_) | Kind::Float(_)) {
        number_check(kind, value, node, name, out);
    }
    if let Value::Array(items) = value {
        if let Some(item_schema) = node.get("items") {
            for (i, item) in items.iter().enumerate() {
                validate(schemas, item, item_schema, &format!("{name}[{i}]"), out);
            }
        }
        count_bounds(
            node,
            ["minItems", "maxItems"],
            "items",
            items.len(),
            name,
            out,
        );
    }
    enum_check(value, node, name, out);
    if let Value::Object(members) = value {
        object_check(schemas, members, node, name, out);
    }
}

/// The minimum and maximum count of a list's items or an object's properties: too few is
/// `TooFewItems`/`TooFewProperties` (an `Invalid` carrying the count), too many is `TooMany`.
fn count_bounds(
    node: &Map<String, Value>,
    [min_key, max_key]: [&str; 2],
    unit: &str,
    count: usize,
    name: &str,
    out: &mut Outcome,
) {
    let count = count as u64;
    if let Some(min) = node.get(min_key).and_then(Value::as_u64)
        && count < min
    {
        invalid(
            out,
            name,
            BadValue::Json(count.into()),
            format!("{name} in body should have at least {min} {unit}"),
        );
    }
    if let Some(max) = node.get(max_key).and_then(Value::as_u64)
        && count > max
    {
        too_many(out, name, count, max);
    }
}

fn too_many(out: &mut Outcome, name: &str, size: u64, max: u64) {
    let unit = if max == 1 { "item" } else { "items" };
    out.errors.push(FieldError::new(
        FieldErrorType::TooMany,
        field(name),
        Some(BadValue::Json(size.into())),
        format!("must have at most {max} {unit}"),
    ));
}

/// `anyOf: [{type: integer}, {type: string}]`, as controller-gen writes an int-or-string.
fn is_int_or_string(any: &[Value]) -> bool {
    let only_type = |branch: &Value, ty: &str| {
        branch
            .as_object()
            .is_some_and(|b| b.len() == 1 && b.get("type").and_then(Value::as_str) == Some(ty))
    };
    matches!(any, [a, b] if only_type(a, "integer") && only_type(b, "string"))
}

/// kube-openapi's `schemaPropsValidator` (`allOf`, `anyOf`, `oneOf`, `not`), where it adds
/// nothing: an `anyOf` one branch of which holds, an `allOf` all of which hold, a `oneOf`
/// exactly one of which holds, a `not` that fails; and an int-or-string `anyOf` that refuses
/// a value of another type. Any other outcome is refused by the server
/// with messages chosen by a best-match count this module does not reproduce: it is recorded
/// as not judged.
fn junctors(
    schemas: &Schema,
    value: &Value,
    node: &Map<String, Value>,
    name: &str,
    out: &mut Outcome,
) {
    let holds = |branch: &Value| {
        let mut trial = Outcome::default();
        validate(schemas, value, branch, "", &mut trial);
        trial.errors.is_empty() && trial.not_judged.is_empty()
    };
    let branches = |key: &str| node.get(key).and_then(Value::as_array);
    let mut fails = Vec::new();
    if let Some(any) = branches("anyOf")
        && !any.iter().any(holds)
    {
        if is_int_or_string(any) {
            // Both branches fail on the value's type alone, with the same match count: Go keeps
            // the first (`integer`) as the best failure, after "must validate at least one
            // schema".
            invalid(
                out,
                name,
                BadValue::from(""),
                format!(
                    "{} must validate at least one schema (anyOf)",
                    crate::go_quote(name)
                ),
            );
            validate(schemas, value, &any[0], name, out);
        } else {
            fails.push("anyOf");
        }
    }
    if let Some(all) = branches("allOf")
        && !all.iter().all(holds)
    {
        fails.push("allOf");
    }
    if let Some(one) = branches("oneOf")
        && one.iter().filter(|b| holds(b)).count() != 1
    {
        fails.push("oneOf");
    }
    if let Some(not) = node.get("not")
        && holds(not)
    {
        fails.push("not");
    }
    for junctor in fails {
        out.not_judged.push(format!("a value {junctor} refuses"));
    }
}

/// kube-openapi's `typeValidator` for a non-null value.
/// The largest float kube-openapi counts as a JSON integer (`maxJSONFloat`, 2^53 - 1).
const MAX_JSON_INTEGER: f64 = 9_007_199_254_740_991.0;

fn type_check(kind: Kind, node: &Map<String, Value>, name: &str, out: &mut Outcome) {
    let ty = str_of(node, "type");
    let format = str_of(node, "format");
    if ty.is_empty() && format.is_empty() {
        return;
    }
    let (actual, actual_format) = match kind {
        Kind::Int(_) => ("integer", "int64"),
        Kind::Float(_) => ("number", "float64"),
        Kind::String => ("string", ""),
        Kind::Bool => ("boolean", ""),
        Kind::Slice => ("array", ""),
        Kind::Map => ("object", ""),
    };
    // `swag.IsFloat64AJSONInteger`: a whole float within ±(2^53 - 1) is an integer; a number
    // beyond int64 (decoded by Go as a float64) is not, whatever its fraction.
    let float_int = matches!(kind, Kind::Float(x) if x.fract() == 0.0 && x.abs() <= MAX_JSON_INTEGER)
        && ty == "integer";
    let int_float = actual == "integer" && ty == "number";
    let string_or_slice = matches!(kind, Kind::String | Kind::Slice);
    // A format constrains a non-string, non-list value to its type (or the format's).
    let format_fits = string_or_slice
        || format.is_empty()
        || ty == actual
        || format == actual_format
        || float_int
        || int_float;
    if !format_fits {
        type_error(out, name, format, actual_format);
        return;
    }
    // A format on a non-numeric type accepts any string or list.
    if string_or_slice && !format.is_empty() && ty != "number" && ty != "integer" {
        return;
    }
    if !(ty == actual || float_int || int_float) {
        type_error(out, name, ty, actual);
    }
}

/// kube-openapi's `stringValidator`: the first of maxLength, minLength, pattern that fails.
fn string_check(
    schemas: &Schema,
    text: &str,
    node: &Map<String, Value>,
    name: &str,
    out: &mut Outcome,
) {
    let chars = text.chars().count() as u64;
    if let Some(max) = node.get("maxLength").and_then(Value::as_u64)
        && chars > max
    {
        let unit = if max == 1 { "byte" } else { "bytes" };
        out.errors.push(FieldError::too_long(
            field(name),
            format!("may not be more than {max} {unit}"),
        ));
        return;
    }
    if let Some(min) = node.get("minLength").and_then(Value::as_u64)
        && chars < min
    {
        invalid(
            out,
            name,
            text.into(),
            format!("{name} in body should be at least {min} chars long"),
        );
        return;
    }
    let pattern = str_of(node, "pattern");
    if !pattern.is_empty() {
        // Every pattern compiled when the schema was built (`Schema::new`).
        if schemas
            .pattern(pattern)
            .is_some_and(|re| !re.is_match(text))
        {
            invalid(
                out,
                name,
                text.into(),
                format!("{name} in body should match '{pattern}'"),
            );
        }
    }
}

/// kube-openapi's `formatValidator` on a string of a `type: string` schema: `must be of type
/// <format>` (the formats reproduced: [`super::format`]).
fn format_check(text: &str, node: &Map<String, Value>, name: &str, out: &mut Outcome) {
    let format = str_of(node, "format");
    if str_of(node, "type") != "string" {
        return;
    }
    if let Some(valid) = super::format::checker(format)
        && !valid(text)
    {
        out.errors.push(FieldError::new(
            FieldErrorType::TypeInvalid,
            field(name),
            Some(BadValue::from(text)),
            format!(
                "{name} in body must be of type {format}: {}",
                crate::go_quote(text)
            ),
        ));
    }
}

/// kube-openapi's `numberValidator`: the format's range (a plain error, reported at the
/// root), then `multipleOf`, minimum and maximum.
fn number_check(
    kind: Kind,
    value: &Value,
    node: &Map<String, Value>,
    name: &str,
    out: &mut Outcome,
) {
    let ty = str_of(node, "type");
    let format = match (ty, str_of(node, "format")) {
        ("integer", f @ ("int32" | "int64")) | ("number", f @ ("float" | "double")) => f,
        _ => "",
    };
    if ty == "integer" {
        let whole = match kind {
            Kind::Int(i) => Some(i),
            // swag.FormatFloat64 then strconv.ParseInt: only whole floats in range parse.
            Kind::Float(x) if x.fract() == 0.0 && x.abs() < 9.2e18 => Some(x as i64),
            _ => None,
        };
        let fits = whole.is_some_and(|i| format != "int32" || i32::try_from(i).is_ok());
        if !fits {
            let detail = if format.is_empty() {
                format!("Checked value must be of type integer (default format) in {name}")
            } else {
                format!("Checked value must be of type integer with format {format} in {name}")
            };
            invalid(out, "", BadValue::from(""), detail);
        }
    }
    let bound = |key: &str| node.get(key).and_then(Value::as_f64);
    let exclusive = |key: &str| node.get(key) == Some(&Value::Bool(true));
    let shown = |limit: f64| match kind {
        Kind::Int(_) => format!("{}", limit as i64),
        _ => go_float(limit),
    };
    let number = match kind {
        Kind::Int(i) => i as f64,
        Kind::Float(x) => x,
        _ => return,
    };
    if let Some(factor) = bound("multipleOf") {
        let int = match kind {
            Kind::Int(i) => Some(i),
            _ => None,
        };
        let verdict = super::multiple_of::check(int, number, ty, str_of(node, "format"), factor);
        super::multiple_of::record(verdict, value, name, out);
    }
    if let Some(min) = bound("minimum") {
        let excl = exclusive("exclusiveMinimum");
        let fails = match kind {
            Kind::Int(i) => (!excl && i < min as i64) || (excl && i <= min as i64),
            _ => (!excl && number < min) || (excl && number <= min),
        };
        if fails {
            let relation = if excl {
                "greater than"
            } else {
                "greater than or equal to"
            };
            invalid(
                out,
                name,
                BadValue::Json(value.clone()),
                format!("{name} in body should be {relation} {}", shown(min)),
            );
        }
    }
    if let Some(max) = bound("maximum") {
        let excl = exclusive("exclusiveMaximum");
        let fails = match kind {
            Kind::Int(i) => (!excl && i > max as i64) || (excl && i >= max as i64),
            _ => (!excl && number > max) || (excl && number >= max),
        };
        if fails {
            let relation = if excl {
                "less than"
            } else {
                "less than or equal to"
            };
            invalid(
                out,
                name,
                BadValue::Json(value.clone()),
                format!("{name} in body should be {relation} {}", shown(max)),
            );
        }
    }
}

/// kube-openapi's `basicCommonValidator`: a value outside `enum` (compared as Go compares
/// after converting to the enum value's type: strings, booleans, numbers by value).
fn enum_check(value: &Value, node: &Map<String, Value>, name: &str, out: &mut Outcome) {
    let Some(Value::Array(allowed)) = node.get("enum") else {
        return;
    };
    if allowed.is_empty() {
        return;
    }
    let same = |a: &Value| match (a, value) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (a, b) => a == b,
    };
    if allowed.iter().any(same) {
        return;
    }
    let supported: Vec<String> = allowed
        .iter()
        .map(|v| match v {
            Value::String(s) => crate::go_text::go_quote(s),
            other => crate::go_text::go_quote(&go_json(other)),
        })
        .collect();
    out.errors.push(FieldError::new(
        FieldErrorType::NotSupported,
        field(name),
        Some(BadValue::Json(value.clone())),
        format!("supported values: {}", supported.join(", ")),
    ));
}

/// kube-openapi's `objectValidator`: property counts, the members (known properties and
/// `additionalProperties`), then `required`.
fn object_check(
    schemas: &Schema,
    members: &Map<String, Value>,
    node: &Map<String, Value>,
    name: &str,
    out: &mut Outcome,
) {
    count_bounds(
        node,
        ["minProperties", "maxProperties"],
        "properties",
        members.len(),
        name,
        out,
    );
    let properties = node.get("properties").and_then(Value::as_object);
    if let Some(additional) = node.get("additionalProperties").filter(|a| a.is_object()) {
        for (key, member) in members {
            if properties.is_none_or(|p| !p.contains_key(key)) {
                validate(schemas, member, additional, &format!("{name}.{key}"), out);
            }
        }
    }
    for (key, property) in properties.into_iter().flatten() {
        if let Some(member) = members.get(key) {
            let child = if name.is_empty() {
                key.clone()
            } else {
                format!("{name}.{key}")
            };
            validate(schemas, member, property, &child, out);
        }
    }
    for required in node
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !members.contains_key(required) {
            out.errors.push(FieldError::required(
                field(&format!("{name}.{required}")),
                "",
            ));
        }
    }
}
