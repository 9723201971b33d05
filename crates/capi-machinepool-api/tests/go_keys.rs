//! Which keys Go prints, and in which order.
//!
//! Presence: every field of both versions is given its zero value, alone and
//! beside a non-zero sibling (which keeps the enclosing structs printed), and the printed object
//! has the field, and each of its absent siblings, exactly when Go's `encoding/json` would print
//! it. Go's decision is derived here from each field's Go type and `json` tag
//! (`tests/fixtures/go_json_tags`, from upstream's `api/core/{v1beta1,v1beta2}/*_types.go` and,
//! for the root `metadata`, references and conditions, apimachinery's and k8s.io/api's types)
//! by the rules of `encoding/json` `Marshal`:
//!
//! * `omitempty` leaves out `false`, `0`, `""`, a nil pointer and a nil or empty slice or map;
//!   it has no effect on a struct value;
//! * `omitzero` leaves out a zero value (`IsZero`): a struct whose fields are all zero (a
//!   non-nil but empty slice or map, or a non-nil pointer, makes it non-zero);
//! * a field without either is always printed (a nil pointer, slice or map as `null`).
//!
//! Order: every struct is printed with all its fields set, and prints them in Go's declaration
//! order (serde prints Rust's declaration order).
//!
//! Each field's `skip_serializing_if` (or the printers of `wire`: `GoObjectMeta`,
//! `GoObjectReference`, `GoCondition`) is one hand-written rule per field; a field with the
//! wrong one or in the wrong place, or a field the Rust type lacks or adds, fails here.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::collections::BTreeMap;

use capi_machinepool_api::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use capi_machinepool_api::schema::structural_schema_for;
use capi_machinepool_api::{v1beta1, v1beta2, wire};
use common::paths::{
    Ordered, Step, display, document, merge, parse, paths_where, printed_at, value_at,
    version_schema,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

mod common;

/// What `encoding/json` needs to know of a field (see the fixture's SOURCE.md).
#[derive(Debug, Deserialize)]
struct GoField {
    go: String,
    kind: Kind,
    omitempty: bool,
    omitzero: bool,
    /// JSON text of the zero value fed to the field.
    zero: String,
    /// JSON text Go prints for that value.
    printed: String,
    /// Place among the fields of its struct: Go prints fields in declaration order.
    order: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Pointer,
    Slice,
    Map,
    Struct,
    Scalar,
}

fn go_fields(version: &str) -> BTreeMap<String, GoField> {
    let text = include_str!("fixtures/go_json_tags/machinepool.json");
    let mut all: BTreeMap<String, BTreeMap<String, GoField>> = serde_json::from_str(text).unwrap();
    all.remove(version).unwrap()
}

/// A field path: the last step is a key, no step is a map value.
fn is_field(path: &[Step]) -> bool {
    matches!(path.last(), Some(Step::Key(_))) && !path.contains(&Step::MapValue)
}

/// The field paths of a version's schema (not TypeMeta), and of the root `metadata`, which
/// the CRD leaves open, from `metav1.ObjectMeta`'s schema.
fn schema_fields(version: &str) -> Vec<Vec<Step>> {
    let mut paths = paths_where(&version_schema(version), Vec::new(), |path, _| {
        is_field(path) && !matches!(path, [Step::Key(k)] if k == "apiVersion" || k == "kind")
    });
    paths.extend(paths_where(
        &structural_schema_for::<ObjectMeta>(),
        vec![Step::Key("metadata".into())],
        |path, _| is_field(path) && path.len() > 1,
    ));
    paths
}

/// Go's decision for one field: `non_zero` tells whether its value is non-zero (`IsZero`),
/// `empty` whether a slice or map has no element.
fn go_prints(field: &GoField, non_zero: bool, empty: bool) -> bool {
    match field.kind {
        // A non-nil pointer: `omitempty` and `omitzero` only leave out nil.
        Kind::Pointer => true,
        Kind::Slice | Kind::Map => !(field.omitempty && empty),
        // `omitempty` has no effect on a struct value.
        Kind::Struct => non_zero || !field.omitzero,
        Kind::Scalar => !(field.omitempty || field.omitzero),
    }
}

/// Whether Go prints the field at `path` when it alone holds its zero value: the field itself
/// and each enclosing field must be printed. Enclosing slices hold the one element leading to
/// the field; a non-nil pointer, slice or map is non-zero even when empty, and makes every
/// enclosing struct non-zero.
fn go_prints_path(path: &[Step], fields: &BTreeMap<String, GoField>) -> bool {
    let leaf = &fields[&display(path)];
    let mut non_zero = matches!(leaf.kind, Kind::Pointer | Kind::Slice | Kind::Map);
    let mut printed = go_prints(leaf, non_zero, true);
    for end in (1..path.len()).rev() {
        if !matches!(path[end - 1], Step::Key(_)) {
            continue;
        }
        let ancestor = &fields[&display(&path[..end])];
        non_zero |= matches!(ancestor.kind, Kind::Pointer | Kind::Slice | Kind::Map);
        printed &= go_prints(ancestor, non_zero, false);
    }
    printed
}

/// A field of the struct enclosing `path` (the same list element for a list item's field),
/// outside `path`'s own subtree, and a value making that struct non-zero: with it, Go prints
/// the field at `path` by the field's own rule alone. `None` when `path` has no such sibling.
fn witness(path: &str, fields: &BTreeMap<String, GoField>) -> Option<(Vec<Step>, Value)> {
    let parent = path.rsplit_once('.').map_or("", |(parent, _)| parent);
    let (name, field) = fields.iter().find(|(name, field)| {
        let inside = parent.is_empty() || name.starts_with(&format!("{parent}."));
        let related = name.as_str() == path
            || name.starts_with(&format!("{path}."))
            || name.starts_with(&format!("{path}[]"))
            || path.starts_with(&format!("{name}."))
            || path.starts_with(&format!("{name}[]"));
        inside && !related && field.kind != Kind::Struct
    })?;
    Some((parse(name), non_zero(field)))
}

/// A value of the field that Go does not take for zero: a non-nil pointer, slice or map (even
/// empty), or a scalar other than its zero value.
fn non_zero(field: &GoField) -> Value {
    match (field.kind, field.zero.as_str()) {
        (Kind::Pointer | Kind::Slice | Kind::Map, zero) => serde_json::from_str(zero).unwrap(),
        (_, "\"\"") => Value::from("x"),
        (_, "0") => Value::from(1),
        (_, "false") => Value::from(true),
        (_, "null") => Value::from("2026-01-01T00:00:00Z"),
        (_, zero) => panic!("{}: no non-zero value for {zero}", field.go),
    }
}

/// Go's decision for a field absent from the input: nil (pointer, slice, map) or zero.
fn go_prints_absent(field: &GoField) -> bool {
    match field.kind {
        Kind::Pointer | Kind::Slice | Kind::Map | Kind::Scalar => {
            !(field.omitempty || field.omitzero)
        }
        Kind::Struct => !field.omitzero,
    }
}

/// What the paths of the fields of the struct at `parent` start with.
fn field_prefix(parent: &str) -> String {
    if parent.is_empty() {
        String::new()
    } else {
        format!("{parent}.")
    }
}

/// The first segment of `name` below `prefix` (`conditions` for `status.conditions[].type`
/// below `status.`), if `name` is below it.
fn branch<'a>(name: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = name.strip_prefix(prefix)?;
    rest.split(['.', '[']).next()
}

/// The problems with the fields of the struct enclosing `path` other than `path` and the
/// branch holding `sibling`: each is absent from the input, and printed as Go prints it.
fn check_absent_siblings(
    printed: &Value,
    path: &str,
    sibling: &str,
    fields: &BTreeMap<String, GoField>,
) -> Vec<String> {
    let parent = path.rsplit_once('.').map_or("", |(parent, _)| parent);
    let prefix = field_prefix(parent);
    let object = if parent.is_empty() {
        Some(printed)
    } else {
        printed_at(printed, &parse(parent))
    };
    let Some(object) = object else {
        return vec![format!("{parent}: not printed: {printed}")];
    };
    let skip = [branch(path, &prefix), branch(sibling, &prefix)];
    fields
        .iter()
        .filter(|(name, _)| {
            let child = branch(name, &prefix);
            child.is_some_and(|c| name.len() == prefix.len() + c.len()) && !skip.contains(&child)
        })
        .filter_map(|(name, field)| {
            let expected = go_prints_absent(field);
            let found = object.get(&name[prefix.len()..]).is_some();
            (found != expected).then(|| {
                format!(
                    "{name} ({}), absent beside {path}: printed {found}, Go prints {expected}: {printed}",
                    field.go
                )
            })
        })
        .collect()
}

/// The printed object of `T` read from `text`, or why it could not be read.
fn print_as_go<T: DeserializeOwned + Serialize>(text: &str) -> Result<Value, String> {
    let object = serde_json::from_str::<T>(text).map_err(|e| format!("{text}: {e}"))?;
    Ok(serde_json::from_str(&wire::to_string(&object).unwrap()).unwrap())
}

/// The problem with `printed` at `path`, when Go would print `expected` (and the zero value).
fn check_printed(
    printed: &Value,
    path: &[Step],
    field: &GoField,
    expected: bool,
) -> Option<String> {
    match printed_at(printed, path) {
        Some(_) if !expected => Some(format!("printed, Go leaves it out: {printed}")),
        None if expected => Some(format!("left out, Go prints it: {printed}")),
        Some(value) if field.kind != Kind::Struct && field.printed != "{}" => {
            let go: Value = serde_json::from_str(&field.printed).unwrap();
            (*value != go).then(|| format!("printed {value}, Go prints {go}"))
        }
        _ => None,
    }
}

/// Feeds each field its zero value and compares the printed keys with Go's.
fn keys_printed_as_go_prints<T: DeserializeOwned + Serialize>(version: &str) {
    let fields = go_fields(version);
    let paths = schema_fields(version);
    let in_schema: Vec<String> = paths.iter().map(|p| display(p)).collect();
    let mut failures: Vec<String> = fields
        .keys()
        .filter(|k| !in_schema.contains(k))
        .map(|k| format!("{k}: a Go field the Rust type lacks"))
        .collect();
    failures.extend(
        in_schema
            .iter()
            .filter(|k| !fields.contains_key(*k))
            .map(|k| format!("{k}: not a Go field (record its tag in the fixture)")),
    );
    let api_version = format!("cluster.x-k8s.io/{version}");
    for path in paths.iter().filter(|p| fields.contains_key(&display(p))) {
        let name = display(path);
        let field = &fields[&name];
        let label = format!("{name} ({} {:?})", field.go, field.kind);
        // Alone: the field's rule and those of every enclosing field.
        let alone = document(&api_version, "MachinePool", path, &field.zero);
        match print_as_go::<T>(&alone) {
            Ok(printed) => failures.extend(
                check_printed(&printed, path, field, go_prints_path(path, &fields))
                    .map(|problem| format!("{label}, alone: {problem}")),
            ),
            Err(e) => failures.push(format!("{label}: {e}")),
        }
        // Beside a non-zero sibling: the field's own rule, whatever its parents' rules.
        if let Some((sibling, value)) = witness(&name, &fields) {
            let mut object: Value = serde_json::from_str(&alone).unwrap();
            merge(&mut object, value_at(&sibling, value));
            let non_zero = matches!(field.kind, Kind::Pointer | Kind::Slice | Kind::Map);
            match print_as_go::<T>(&object.to_string()) {
                Ok(printed) => {
                    let beside = display(&sibling);
                    failures.extend(
                        check_printed(&printed, path, field, go_prints(field, non_zero, true))
                            .map(|problem| format!("{label}, beside {beside}: {problem}")),
                    );
                    failures.extend(check_absent_siblings(&printed, &name, &beside, &fields));
                }
                Err(e) => failures.push(format!("{label}: {e}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{version}, {} fields:\n{}",
        paths.len(),
        failures.join("\n")
    );
}

#[test]
fn v1beta1_prints_the_keys_go_prints() {
    keys_printed_as_go_prints::<v1beta1::MachinePool>("v1beta1");
}

#[test]
fn v1beta2_prints_the_keys_go_prints() {
    keys_printed_as_go_prints::<v1beta2::MachinePool>("v1beta2");
}

/// The direct fields of the struct at `parent` (`""` for the root, `status.conditions[]`
/// for a list item), in Go's declaration order.
fn children<'a>(
    parent: &str,
    fields: &'a BTreeMap<String, GoField>,
) -> Vec<(&'a str, &'a GoField)> {
    let prefix = field_prefix(parent);
    let mut children: Vec<(&str, &GoField)> = fields
        .iter()
        .filter_map(|(name, field)| {
            let key = name.strip_prefix(&prefix)?;
            (!key.contains(['.', '['])).then_some((key, field))
        })
        .collect();
    children.sort_by_key(|(_, field)| field.order);
    children
}

/// A value Go prints for the field at `path`, with every field below it set too.
fn full_value(path: &str, fields: &BTreeMap<String, GoField>) -> Value {
    let field = &fields[path];
    let object = |parent: &str| -> Value {
        let members = children(parent, fields);
        Value::Object(
            members
                .into_iter()
                .map(|(key, _)| {
                    (
                        key.to_owned(),
                        full_value(&format!("{parent}.{key}"), fields),
                    )
                })
                .collect(),
        )
    };
    let item = format!("{path}[]");
    match field.kind {
        Kind::Slice if children(&item, fields).is_empty() => Value::from(vec!["x"]),
        Kind::Slice => Value::Array(vec![object(&item)]),
        Kind::Map => serde_json::json!({"k": "v"}),
        Kind::Struct | Kind::Pointer if !children(path, fields).is_empty() => object(path),
        _ => non_zero(field),
    }
}

/// Every struct of a version printed with all its fields set: each prints every field, in
/// Go's declaration order.
fn fields_printed_in_go_order<T: DeserializeOwned + Serialize>(version: &str) {
    let fields = go_fields(version);
    let mut object = serde_json::json!({
        "apiVersion": format!("cluster.x-k8s.io/{version}"),
        "kind": "MachinePool",
    });
    for (key, _) in children("", &fields) {
        object[key] = full_value(key, &fields);
    }
    let text = object.to_string();
    let read: T = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let printed: Ordered = serde_json::from_str(&wire::to_string(&read).unwrap()).unwrap();
    let mut parents: Vec<&str> = fields
        .keys()
        .map(|name| name.rsplit_once('.').map_or("", |(parent, _)| parent))
        .collect();
    parents.sort_unstable();
    parents.dedup();
    let mut failures = Vec::new();
    for parent in parents {
        let go: Vec<&str> = children(parent, &fields)
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        let Some(value) = printed.at(&parse_or_root(parent)) else {
            failures.push(format!("{parent}: not printed"));
            continue;
        };
        let ours: Vec<&str> = value
            .keys()
            .into_iter()
            .filter(|k| go.contains(k))
            .collect();
        if ours != go {
            failures.push(format!("{parent}: printed {ours:?}, Go prints {go:?}"));
        }
    }
    assert!(failures.is_empty(), "{version}:\n{}", failures.join("\n"));
}

/// [`parse`], the empty path for the root.
fn parse_or_root(path: &str) -> Vec<Step> {
    if path.is_empty() {
        Vec::new()
    } else {
        parse(path)
    }
}

#[test]
fn v1beta1_prints_fields_in_go_order() {
    fields_printed_in_go_order::<v1beta1::MachinePool>("v1beta1");
}

#[test]
fn v1beta2_prints_fields_in_go_order() {
    fields_printed_in_go_order::<v1beta2::MachinePool>("v1beta2");
}

/// The model against cases whose Go output is known independently of it (the field table of
/// `docs/serialization.md`, and the v1beta1 module docs' list of always-printed fields): a
/// pointer to zero is printed, a zero `omitempty` value or an empty `omitempty` list is left
/// out, a value without `omitempty` is printed, a zero `omitzero` struct is left out.
#[test]
fn the_model_agrees_with_known_go_outputs() {
    for (version, field, printed) in [
        ("v1beta2", "spec.replicas", true),
        ("v1beta2", "spec.clusterName", false),
        ("v1beta2", "spec.template.metadata", false),
        ("v1beta2", "spec.template.metadata.labels", false),
        ("v1beta2", "status.conditions", false),
        ("v1beta2", "status.conditions[].message", true),
        ("v1beta2", "status.conditions[].observedGeneration", false),
        ("v1beta2", "status.deprecated", true),
        ("v1beta1", "status.replicas", true),
        ("v1beta1", "status.readyReplicas", false),
        ("v1beta1", "spec.template.spec.clusterName", true),
        ("v1beta1", "spec.template.spec.infrastructureRef", true),
        ("v1beta1", "status.v1beta2.conditions[].reason", true),
        ("v1beta1", "status.conditions[].reason", false),
    ] {
        let fields = go_fields(version);
        assert_eq!(
            go_prints_path(&parse(field), &fields),
            printed,
            "{version} {field}"
        );
    }
}
