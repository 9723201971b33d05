//! The scale subresource (`ValidateCustomResourceDefinitionSubresources`), printer columns
//! (`ValidateCustomResourceColumnDefinition`) and selectable fields
//! (`ValidateCustomResourceSelectableFields`): `pkg/apis/apiextensions/validation/validation.go`
//! lines 823-908 and 1527-1585.

use serde_json::Value;

use super::{Layout, Refusals, versions};

/// `MaxSelectableFields`.
const MAX_SELECTABLE_FIELDS: usize = 8;

pub(super) fn validate_all(spec: &Value, layout: &Layout, r: &mut Refusals) {
    for place in layout.places(spec, "subresources") {
        scale(&place.value["scale"], &format!("{}.scale", place.path), r);
    }
    for place in layout.places(spec, "additionalPrinterColumns") {
        for (i, column) in place.value.as_array().into_iter().flatten().enumerate() {
            printer_column(column, &format!("{}[{i}]", place.path), r);
        }
    }
    for place in layout.places(spec, "selectableFields") {
        // Where the schema was hoisted and the selectable fields were not (or the reverse),
        // the server finds no schema next to them (validation.go lines 310-321 and 483-495).
        let schema = match place.version {
            Some(i) if !layout.schema => Some(&versions(spec)[i]["schema"]["openAPIV3Schema"]),
            None if layout.schema => versions(spec)
                .first()
                .map(|v| &v["schema"]["openAPIV3Schema"]),
            _ => None,
        };
        let Some(schema) = schema.filter(|s| !s.is_null()) else {
            let detail = if place.version.is_some() {
                "may only be set when `version.schema.openAPIV3Schema` is not included"
            } else {
                "may only be set when validations.schema is included"
            };
            r.invalid(&place.path, "", detail);
            continue;
        };
        selectable_fields(place.value, schema, &place.path, r);
    }
}

/// `validateSimpleJSONPath`: `Some(detail)` when `s` is not a simple JSON path.
fn simple_json_path_error(s: &str) -> Option<&'static str> {
    if s.is_empty() {
        Some("must not be empty")
    } else if !s.starts_with('.') {
        Some("must be a simple json path starting with .")
    } else {
        None
    }
}

fn scale(scale: &Value, at: &str, r: &mut Refusals) {
    if scale.is_null() {
        return;
    }
    for (field, under, detail) in [
        (
            "specReplicasPath",
            ".spec.",
            "should be a json path under .spec",
        ),
        (
            "statusReplicasPath",
            ".status.",
            "should be a json path under .status",
        ),
    ] {
        let path = format!("{at}.{field}");
        match scale[field].as_str().unwrap_or_default() {
            "" => r.required(path, ""),
            s => {
                if let Some(e) = simple_json_path_error(s) {
                    r.invalid(path, s, e);
                } else if !s.starts_with(under) {
                    r.invalid(path, s, detail);
                }
            }
        }
    }
    if let Some(s) = scale["labelSelectorPath"]
        .as_str()
        .filter(|s| !s.is_empty())
    {
        let path = format!("{at}.labelSelectorPath");
        if let Some(e) = simple_json_path_error(s) {
            r.invalid(path, s, e);
        } else if !s.starts_with(".spec.") && !s.starts_with(".status.") {
            r.invalid(
                path,
                s,
                "should be a json path under either .spec or .status",
            );
        }
    }
}

const COLUMN_TYPES: &str = "boolean,date,integer,number,string";
const COLUMN_FORMATS: &str = "byte,date,date-time,double,float,int32,int64,password";

fn printer_column(column: &Value, at: &str, r: &mut Refusals) {
    let text = |k: &str| column[k].as_str().unwrap_or_default();
    if text("name").is_empty() {
        r.required(format!("{at}.name"), "");
    }
    match text("type") {
        "" => r.required(
            format!("{at}.type"),
            format!("must be one of {COLUMN_TYPES}"),
        ),
        t if !COLUMN_TYPES.split(',').any(|c| c == t) => r.invalid(
            format!("{at}.type"),
            t,
            format!("must be one of {COLUMN_TYPES}"),
        ),
        _ => {}
    }
    let format = text("format");
    if !format.is_empty() && !COLUMN_FORMATS.split(',').any(|c| c == format) {
        r.invalid(
            format!("{at}.format"),
            format,
            format!("must be one of {COLUMN_FORMATS}"),
        );
    }
    // The internal field is `JSONPath`, and so is the path the server reports.
    match text("jsonPath") {
        "" => r.required(format!("{at}.JSONPath"), ""),
        s => {
            if let Some(e) = simple_json_path_error(s) {
                r.invalid(format!("{at}.JSONPath"), s, e);
            }
        }
    }
}

/// The schema a selectable field's `jsonPath` points at (`cel.ValidFieldPath` without array
/// notation): `.a.b` through `properties`, then through `additionalProperties` as map keys.
fn field_schema<'a>(schema: &'a Value, json_path: &str) -> Result<(String, &'a Value), String> {
    let Some(rest) = json_path.strip_prefix('.') else {
        return Err("expected [ or . but got: ".to_owned() + json_path);
    };
    let mut node = schema;
    let mut root = String::new();
    for (i, step) in rest.split('.').enumerate() {
        if step.is_empty() || step.contains('[') {
            return Err(format!("does not refer to a valid field: {json_path}"));
        }
        if i == 0 {
            root = step.to_owned();
        }
        if let Some(next) = node["properties"].get(step) {
            node = next;
        } else if node["additionalProperties"].is_object() {
            node = &node["additionalProperties"];
        } else {
            return Err("does not refer to a valid field".to_owned());
        }
    }
    Ok((root, node))
}

fn selectable_fields(fields: &Value, schema: &Value, at: &str, r: &mut Refusals) {
    let mut unique = std::collections::BTreeSet::new();
    for (i, field) in fields.as_array().into_iter().flatten().enumerate() {
        let path = format!("{at}[{i}].jsonPath");
        let json_path = field["jsonPath"].as_str().unwrap_or_default();
        if json_path.is_empty() {
            r.required(path, "");
            continue;
        }
        let (root, found) = match field_schema(schema, json_path) {
            Ok(found) => found,
            Err(e) => {
                r.invalid(path, json_path, format!("is an invalid path: {e}"));
                continue;
            }
        };
        if root == "metadata" {
            r.invalid(&path, json_path, "must not point to fields in metadata");
        }
        if !matches!(
            found["type"].as_str(),
            Some("string" | "boolean" | "integer")
        ) {
            r.invalid(
                &path,
                json_path,
                "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.",
            );
        }
        if !unique.insert(json_path.to_owned()) {
            r.duplicate(&path, json_path);
        }
    }
    if unique.len() > MAX_SELECTABLE_FIELDS {
        r.too_many(at, unique.len(), MAX_SELECTABLE_FIELDS);
    }
}
