//! The `crd-valid` rule: what the API server itself refuses in a CRD, checked before any
//! contract rule, so that `check` never passes a CRD that `kubectl apply` would reject.
//!
//! It mirrors the static validation of `apiextensions.k8s.io/v1` CustomResourceDefinitions in
//! `k8s.io/apiextensions-apiserver` v0.37.2 (the API server the e2e tests run):
//!
//! * `pkg/apis/apiextensions/validation/validation.go`:
//!   `validateCustomResourceDefinitionSpec` (lines 355-475: group, scope, version names,
//!   unique names, exactly one storage version, required names) and
//!   `ValidateCustomResourceDefinitionNames` (lines 787-817: DNS-1035 names);
//! * `pkg/apiserver/schema/validation.go`: `validateStructuralInvariants` (lines 105-180:
//!   `type` is required on every property, array item and additionalProperties schema unless
//!   `x-kubernetes-int-or-string` or `x-kubernetes-preserve-unknown-fields` is set; the root
//!   is an object);
//! * decoding: `served` and `storage` are Go `bool`s, so a string such as `"true"` makes the
//!   request fail before validation.
//!
//! Finding paths are the API server's field paths (`spec.versions[1].name`,
//! `spec.versions[0].schema.openAPIV3Schema.properties[spec].type`), so a refusal and its
//! finding can be matched one to one.

use capi_contract::Contract;
use capi_diagnostics::excerpt::excerpt;
use serde_json::Value;

use crate::report::{Report, Subject};
use crate::rules;

/// Checks the CRD `crd` as the API server validates it on create; one `crd-valid` finding for
/// each refusal, or one pass.
pub(crate) fn check_crd_valid(
    report: &mut Report,
    subject: &std::sync::Arc<Subject>,
    contract: Contract,
    crd: &Value,
) {
    let mut errors = Vec::new();
    spec_errors(crd, &mut errors);
    if errors.is_empty() {
        report
            .check(&rules::CRD_VALID, subject, contract, "spec")
            .pass("the API server's CRD validation finds nothing to refuse");
        return;
    }
    for (path, message) in errors {
        report.check(&rules::CRD_VALID, subject, contract, path).fail(
            message,
            "the API server refuses this CRD: fix the field (see `kubectl apply --dry-run=server`)",
        );
    }
}

type Errors = Vec<(String, String)>;

fn push(errors: &mut Errors, path: impl Into<String>, message: impl Into<String>) {
    errors.push((path.into(), message.into()));
}

/// `IsDNS1035Label`: `[a-z]([-a-z0-9]*[a-z0-9])?`, at most 63 characters.
pub(crate) fn is_dns1035_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_lowercase()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b.last().is_some_and(|c| *c != b'-')
}

/// `IsDNS1123Subdomain`: dot-separated `[a-z0-9]([-a-z0-9]*[a-z0-9])?` labels, at most 253
/// characters.
fn is_dns1123_subdomain(s: &str) -> bool {
    s.len() <= 253
        && s.split('.').all(|label| {
            let b = label.as_bytes();
            !b.is_empty()
                && b.iter()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
                && b.first().is_some_and(|c| *c != b'-')
                && b.last().is_some_and(|c| *c != b'-')
        })
}

const DNS1035: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (at most 63 characters)";

fn spec_errors(crd: &Value, errors: &mut Errors) {
    let spec = &crd["spec"];
    // validation.go lines 358-364.
    match spec["group"].as_str() {
        None | Some("") => push(errors, "spec.group", "Required value"),
        Some(g) if !is_dns1123_subdomain(g) => push(
            errors,
            "spec.group",
            format!(
                "Invalid value {:?}: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'",
                excerpt(g)
            ),
        ),
        Some(g) if !g.contains('.') => push(
            errors,
            "spec.group",
            format!(
                "Invalid value {:?}: should be a domain with at least one dot",
                excerpt(g)
            ),
        ),
        Some(_) => {}
    }
    // validation.go line 366 (validateEnumStrings, required).
    match spec["scope"].as_str() {
        Some("Cluster" | "Namespaced") => {}
        other => push(
            errors,
            "spec.scope",
            format!(
                "Unsupported value {:?}: supported values: \"Cluster\", \"Namespaced\"",
                excerpt(other.unwrap_or_default())
            ),
        ),
    }
    versions_errors(spec, errors);
    names_errors(&spec["names"], errors);
}

fn versions_errors(spec: &Value, errors: &mut Errors) {
    let versions = match &spec["versions"] {
        Value::Array(v) => v.as_slice(),
        Value::Null => &[],
        _ => {
            push(errors, "spec.versions", "must be a list of versions");
            return;
        }
    };
    let mut storage = 0;
    let mut seen = std::collections::BTreeSet::new();
    let mut unique = true;
    for (i, v) in versions.iter().enumerate() {
        let at = format!("spec.versions[{i}]");
        // Decoding: `served` and `storage` are Go bools.
        for flag in ["served", "storage"] {
            match &v[flag] {
                Value::Bool(_) => {}
                Value::Null => push(
                    errors,
                    format!("{at}.{flag}"),
                    "Required value: a boolean (the API server's decoder needs `true` or `false`)",
                ),
                other => push(
                    errors,
                    format!("{at}.{flag}"),
                    format!(
                        "cannot unmarshal {} into a boolean: write `{flag}: true` or `{flag}: false`, not a string",
                        json_kind(other)
                    ),
                ),
            }
        }
        if v["storage"] == Value::Bool(true) {
            storage += 1;
        }
        let name = v["name"].as_str().unwrap_or_default();
        if !seen.insert(name) {
            unique = false;
        }
        // validation.go line 415.
        if !is_dns1035_label(name) {
            push(
                errors,
                format!("{at}.name"),
                format!("Invalid value {:?}: {DNS1035}", excerpt(name)),
            );
        }
        // validation.go lines 383-391: a served version needs a schema (pruning is always on
        // for apiextensions.k8s.io/v1).
        let schema = &v["schema"]["openAPIV3Schema"];
        if schema.is_null() {
            push(
                errors,
                format!("{at}.schema.openAPIV3Schema"),
                "Required value: because otherwise all fields are pruned",
            );
        } else {
            structural_errors(
                schema,
                Level::Root,
                &format!("{at}.schema.openAPIV3Schema"),
                errors,
            );
        }
    }
    // validation.go lines 444-449.
    if !unique {
        push(errors, "spec.versions", "must contain unique version names");
    }
    if storage != 1 {
        push(
            errors,
            "spec.versions",
            format!("must have exactly one version marked as storage version (found {storage})"),
        );
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn names_errors(names: &Value, errors: &mut Errors) {
    // validation.go lines 459-470: plural and kind are required (singular and listKind are
    // defaulted from kind by the API server before validation).
    for field in ["plural", "kind"] {
        if names[field].as_str().is_none_or(str::is_empty) {
            push(errors, format!("spec.names.{field}"), "Required value");
        }
    }
    // validation.go lines 789-817.
    for (field, lower) in [
        ("plural", false),
        ("singular", false),
        ("kind", true),
        ("listKind", true),
    ] {
        let Some(value) = names[field].as_str().filter(|s| !s.is_empty()) else {
            continue;
        };
        let checked = if lower {
            value.to_lowercase()
        } else {
            value.to_owned()
        };
        if !is_dns1035_label(&checked) {
            let mixed = if lower {
                "may have mixed case, but should otherwise match: "
            } else {
                ""
            };
            push(
                errors,
                format!("spec.names.{field}"),
                format!("Invalid value {:?}: {mixed}{DNS1035}", excerpt(value)),
            );
        }
    }
    for list in ["shortNames", "categories"] {
        for (i, item) in names[list]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let s = item.as_str().unwrap_or_default();
            if !is_dns1035_label(s) {
                push(
                    errors,
                    format!("spec.names.{list}[{i}]"),
                    format!("Invalid value {:?}: {DNS1035}", excerpt(s)),
                );
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Root,
    Item,
    Field,
}

fn is_true(node: &Value, key: &str) -> bool {
    node[key] == Value::Bool(true)
}

/// `validateStructuralInvariants` (schema/validation.go lines 105-180), the `type` part.
fn structural_errors(node: &Value, level: Level, path: &str, errors: &mut Errors) {
    let Some(obj) = node.as_object() else {
        return;
    };
    let ty = obj.get("type").and_then(Value::as_str).unwrap_or_default();
    if is_true(node, "x-kubernetes-embedded-resource") && ty != "object" {
        push(
            errors,
            format!("{path}.type"),
            "must be object if x-kubernetes-embedded-resource is true",
        );
    } else if ty.is_empty()
        && !is_true(node, "x-kubernetes-int-or-string")
        && !is_true(node, "x-kubernetes-preserve-unknown-fields")
    {
        let message = match level {
            Level::Root => "Required value: must not be empty at the root",
            Level::Item => "Required value: must not be empty for specified array items",
            Level::Field => "Required value: must not be empty for specified object fields",
        };
        push(errors, format!("{path}.type"), message);
    }
    if level == Level::Root && !ty.is_empty() && ty != "object" {
        push(
            errors,
            format!("{path}.type"),
            format!(
                "Invalid value {:?}: must be object at the root",
                excerpt(ty)
            ),
        );
    }
    if let Some(default) = obj.get("default") {
        default_errors(default, node, &format!("{path}.default"), errors);
    }
    if ty == "array" && !obj.contains_key("items") {
        push(
            errors,
            format!("{path}.items"),
            "Required value: must be specified",
        );
    }
    if let Some(items) = obj.get("items") {
        structural_errors(items, Level::Item, &format!("{path}.items"), errors);
    }
    if let Some(Value::Object(props)) = obj.get("properties") {
        for (key, child) in props {
            structural_errors(
                child,
                Level::Field,
                &format!("{path}.properties[{key}]"),
                errors,
            );
        }
    }
    if let Some(additional) = obj.get("additionalProperties") {
        if level == Level::Root {
            push(
                errors,
                format!("{path}.additionalProperties"),
                "Forbidden: must not be used at the root",
            );
        }
        if additional.is_object() {
            structural_errors(
                additional,
                Level::Field,
                &format!("{path}.additionalProperties"),
                errors,
            );
        }
    }
}

/// A `default` the schema it sits in refuses: the API server validates every default against
/// its own schema (`pkg/apiserver/schema/defaulting/validation.go`, `ValidateDefaults`, run
/// from `validation.go` on every served version's schema) and refuses the CRD ("Invalid value:
/// \"\": ... should be at least 1 chars long"). Checked here: `type`, `enum`, string lengths
/// (in characters, as kube-openapi counts them), numeric bounds, item counts, and object
/// defaults member by member (`required` included). `pattern` and `format` are left to the
/// server (their regular-expression and format dialects are Go's).
fn default_errors(value: &Value, schema: &Value, path: &str, errors: &mut Errors) {
    let Some(schema) = schema.as_object() else {
        return;
    };
    if value.is_null() && schema.get("nullable") == Some(&Value::Bool(true)) {
        return;
    }
    let ty = schema
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let type_ok = match ty {
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        _ => true,
    };
    if !type_ok {
        push(
            errors,
            path,
            format!("Invalid value: {}: must be of type {ty}", json_kind(value)),
        );
        return;
    }
    if let Some(Value::Array(allowed)) = schema.get("enum")
        && !allowed.contains(value)
    {
        push(
            errors,
            path,
            "Unsupported value: not one of the enum values",
        );
    }
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    if let Some(text) = value.as_str() {
        let chars = text.chars().count() as f64;
        if bound("minLength").is_some_and(|min| chars < min) {
            push(
                errors,
                path,
                "Invalid value: should be at least minLength chars long",
            );
        }
        if bound("maxLength").is_some_and(|max| chars > max) {
            push(errors, path, "Too long: may not be longer than maxLength");
        }
    }
    if let Some(number) = value.as_f64() {
        if bound("minimum").is_some_and(|min| number < min) {
            push(
                errors,
                path,
                "Invalid value: should be greater than or equal to minimum",
            );
        }
        if bound("maximum").is_some_and(|max| number > max) {
            push(
                errors,
                path,
                "Invalid value: should be less than or equal to maximum",
            );
        }
    }
    if let Some(items) = value.as_array() {
        let count = items.len() as f64;
        if bound("minItems").is_some_and(|min| count < min) {
            push(
                errors,
                path,
                "Invalid value: should have at least minItems items",
            );
        }
        if bound("maxItems").is_some_and(|max| count > max) {
            push(errors, path, "Too many: must have at most maxItems items");
        }
        if let Some(item_schema) = schema.get("items") {
            for (i, item) in items.iter().enumerate() {
                default_errors(item, item_schema, &format!("{path}[{i}]"), errors);
            }
        }
    }
    if let Some(members) = value.as_object() {
        let properties = schema.get("properties").and_then(Value::as_object);
        for (key, member) in members {
            if let Some(member_schema) = properties.and_then(|p| p.get(key)) {
                default_errors(member, member_schema, &format!("{path}.{key}"), errors);
            }
        }
        for required in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !members.contains_key(required) {
                push(errors, format!("{path}.{required}"), "Required value");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dns1035_labels_as_upstream_defines_them() {
        // k8s.io/apimachinery/pkg/util/validation/validation.go: dns1035LabelFmt
        // "[a-z]([-a-z0-9]*[a-z0-9])?", DNS1035LabelMaxLength = 63.
        for ok in ["v1", "v1beta2", "foomachinepools", "a", "a-1"] {
            assert!(is_dns1035_label(ok), "{ok}");
        }
        for bad in [
            "V1",
            "v1Beta1",
            "FooMachinePools",
            "1v",
            "-a",
            "a-",
            "",
            "a.b",
        ] {
            assert!(!is_dns1035_label(bad), "{bad}");
        }
        assert!(is_dns1035_label(&"a".repeat(63)));
        assert!(!is_dns1035_label(&"a".repeat(64)));
    }

    /// The API server refused foo-provider's FooMachinePool CRD while a legacy condition
    /// field carried `default: ""` next to `minLength: 1` ("should be at least 1 chars long",
    /// tests/e2e/tests/foo_provider.rs against apiextensions-apiserver v0.37.2).
    #[test]
    fn a_default_its_own_schema_refuses_is_an_error() {
        let mut errors = Errors::new();
        let node = serde_json::json!({"type": "string", "minLength": 1, "default": ""});
        structural_errors(&node, Level::Field, "p", &mut errors);
        assert_eq!(errors.len(), 1, "{errors:?}");
        let mut errors = Errors::new();
        let node = serde_json::json!({"type": "object", "default": {"n": "x"},
            "properties": {"n": {"type": "integer"}, "m": {"type": "string"}}, "required": ["m"]});
        structural_errors(&node, Level::Field, "p", &mut errors);
        assert_eq!(errors.len(), 2, "{errors:?}");
        let mut errors = Errors::new();
        let node = serde_json::json!({"type": "string", "enum": ["a", "b"], "default": "a",
            "maxLength": 3});
        structural_errors(&node, Level::Field, "p", &mut errors);
        assert!(errors.is_empty(), "{errors:?}");
    }

    #[test]
    fn dns1123_subdomains() {
        assert!(is_dns1123_subdomain("infrastructure.cluster.x-k8s.io"));
        assert!(!is_dns1123_subdomain("Infrastructure.cluster.x-k8s.io"));
        assert!(!is_dns1123_subdomain("a..b"));
    }
}
