//! Object metadata validated with apimachinery's rules: a custom resource's own `metadata`
//! as the API server checks it, and the template labels and annotations upstream's webhook
//! checks.

use capi_machinepool_api::apimachinery::{
    TOTAL_ANNOTATION_SIZE_LIMIT, dns1123_label_errors, dns1123_subdomain_errors,
    label_value_errors, qualified_name_errors,
};
use capi_machinepool_api::v1beta2::ObjectMeta;
use capi_versions::GroupVersion;
use serde_json::Value;

use crate::{BadValue, FieldError};

/// What the API server checks in a namespaced custom resource's own `metadata` on create
/// (apimachinery `ValidateObjectMetaAccessor` with `NameIsDNSSubdomain`, as the custom
/// resource strategy calls it), paths under `metadata`:
///
/// * `generateName` (with a trailing `-` allowed) and `name` are DNS-1123 subdomains; one of
///   them is required. With only `generateName`, the server appends five random characters
///   and checks the result; here the characters are `bcdfg` (drawn from the same alphabet),
///   so the path and verdict are the server's and the quoted name differs in its tail;
/// * `namespace`, when set, is a DNS-1123 label. When absent, the client (`kubectl`, a
///   controller) fills it in before the request, so its absence is not an error here;
/// * labels and annotations as [`validate_object_meta`];
/// * owner references, after the server drops exact repetitions of an earlier one (same
///   `uid`, same fields; `dedupOwnerReferences`): each has an `apiVersion`
///   (`<group>/<version>` or `<version>`), `kind`, `name` and `uid`, and at most one is the
///   controller;
/// * finalizers are qualified names, and not both `orphan` and `foregroundDeletion`.
///
/// `generation` is not checked (the server sets it to 1 on create) nor `managedFields` (its
/// field manager rewrites them).
/// Fields of the wrong JSON type are the schema's business and are skipped here.
///
/// ```
/// let errs = capi_apiextensions::validate_root_meta(&serde_json::json!({"name": "Workers_1"}));
/// assert_eq!(errs[0].field, "metadata.name");
/// assert!(errs[0].to_string().starts_with(r#"metadata.name: Invalid value: "Workers_1": a lowercase RFC 1123 subdomain"#));
/// ```
#[must_use]
pub fn validate_root_meta(meta: &Value) -> Vec<FieldError> {
    let text = |key: &str| meta.get(key).and_then(Value::as_str).unwrap_or_default();
    let mut errs = Vec::new();
    let generate_name = text("generateName");
    let mut name = text("name").to_owned();
    if !generate_name.is_empty() {
        for msg in dns1123_subdomain_errors(&mask_trailing_dash(generate_name)) {
            errs.push(FieldError::invalid(
                "metadata.generateName",
                generate_name,
                &msg,
            ));
        }
        if name.is_empty() {
            let base: String = generate_name.chars().take(58).collect();
            name = format!("{base}bcdfg");
        }
    }
    if name.is_empty() {
        errs.push(FieldError::required(
            "metadata.name",
            "name or generateName is required",
        ));
    } else {
        for msg in dns1123_subdomain_errors(&name) {
            errs.push(FieldError::invalid("metadata.name", name.as_str(), &msg));
        }
    }
    let namespace = text("namespace");
    if !namespace.is_empty() {
        for msg in dns1123_label_errors(namespace) {
            errs.push(FieldError::invalid("metadata.namespace", namespace, &msg));
        }
    }
    errs.extend(validate_meta_entries(meta));
    errs
}

/// What apimachinery checks in any object's `metadata` besides its name and namespace
/// (`validateObjectMetaAccessorWithOptsCommon`), paths under `metadata`: labels and
/// annotations as [`validate_object_meta`], owner references, finalizers. The API server runs
/// it on a custom resource ([`validate_root_meta`]) and on a CRD itself alike.
///
/// ```
/// let errs = capi_apiextensions::validate_meta_entries(&serde_json::json!({
///     "labels": {"a/b/c": "x"}, "finalizers": ["bad finalizer"]}));
/// assert_eq!(errs[0].field, "metadata.labels");
/// assert_eq!(errs[1].field, "metadata.finalizers");
/// ```
#[must_use]
pub fn validate_meta_entries(meta: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let part =
        serde_json::json!({"labels": meta.get("labels"), "annotations": meta.get("annotations")});
    let part = crate::openapi::without_null_fields(&part);
    if let Ok(typed) = serde_json::from_value::<ObjectMeta>(part) {
        errs.extend(validate_object_meta(&typed, "metadata"));
    }
    errs.extend(owner_reference_errors(meta.get("ownerReferences")));
    errs.extend(finalizer_errors(meta.get("finalizers")));
    errs.into_iter().map(in_bytes).collect()
}

/// apimachinery v0.37.2 checks label keys and values, annotation keys and finalizers with
/// `content.IsLabelKey` and `content.IsLabelValue`, whose length limits read "must be no more
/// than 63 bytes" (Cluster API's webhook, on an older apimachinery, says "characters").
fn in_bytes(mut e: FieldError) -> FieldError {
    if let Some(head) = e.detail.strip_suffix(" characters")
        && let Some((prefix, count)) = head.rsplit_once("must be no more than ")
        && count.bytes().all(|b| b.is_ascii_digit())
    {
        e.detail = format!("{prefix}must be no more than {count} bytes");
    }
    e
}

/// An owner reference as apimachinery prints a list of them (`json.Marshal` of the typed
/// `OwnerReference`: fields in declaration order, `controller` and `blockOwnerDeletion`
/// only when set).
fn marshaled_owner_references(refs: &[Value]) -> BadValue {
    let items: Vec<String> = refs
        .iter()
        .map(|r| {
            let mut fields: Vec<String> = ["apiVersion", "kind", "name", "uid"]
                .iter()
                .map(|k| {
                    let v = r.get(*k).and_then(Value::as_str).unwrap_or_default();
                    format!("\"{k}\":{}", crate::go_json(&Value::from(v)))
                })
                .collect();
            for k in ["controller", "blockOwnerDeletion"] {
                if let Some(b) = r.get(k).and_then(Value::as_bool) {
                    fields.push(format!("\"{k}\":{b}"));
                }
            }
            format!("{{{}}}", fields.join(","))
        })
        .collect();
    BadValue::Marshaled(format!("[{}]", items.join(",")))
}

/// apimachinery's `maskTrailingDash`: a generated-name prefix may end with `-`.
fn mask_trailing_dash(name: &str) -> String {
    match name.strip_suffix('-') {
        Some(head) if name.len() > 1 => format!("{head}a"),
        _ => name.to_owned(),
    }
}

fn owner_reference_errors(refs: Option<&Value>) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(Value::Array(sent)) = refs else {
        return errs;
    };
    let mut refs: Vec<Value> = Vec::new();
    for r in sent {
        if !refs.contains(r) {
            refs.push(r.clone());
        }
    }
    let mut controller: Option<String> = None;
    for (i, r) in refs.iter().enumerate() {
        let at = format!("metadata.ownerReferences[{i}]");
        let text = |key: &str| r.get(key).and_then(Value::as_str).unwrap_or_default();
        let api_version = text("apiVersion");
        // apimachinery's `schema.ParseGroupVersion` (the zero GroupVersion when it fails).
        let gv = GroupVersion::parse(api_version).unwrap_or(GroupVersion {
            group: "",
            version: "",
        });
        if api_version.is_empty() {
            errs.push(FieldError::required(
                format!("{at}.apiVersion"),
                "must not be empty",
            ));
        } else if gv.version.is_empty() {
            errs.push(FieldError::invalid(
                format!("{at}.apiVersion"),
                api_version,
                "must be <group>/<version> or <version>",
            ));
        }
        for key in ["kind", "name", "uid"] {
            if text(key).is_empty() {
                errs.push(FieldError::required(
                    format!("{at}.{key}"),
                    "must not be empty",
                ));
            }
        }
        if gv.group.is_empty() && gv.version == "v1" && text("kind") == "Event" {
            errs.push(FieldError::invalid(
                &at,
                BadValue::Json(r.clone()),
                "/v1, Kind=Event is disallowed from being an owner",
            ));
        }
        if r.get("controller") == Some(&Value::Bool(true)) {
            let current = format!("{}/{}", text("kind"), text("name"));
            match &controller {
                Some(first) => errs.push(FieldError::invalid(
                    "metadata.ownerReferences",
                    marshaled_owner_references(&refs),
                    format!("Only one reference can have Controller set to true. Found \"true\" in references for {first} and {current}"),
                )),
                None => controller = Some(current),
            }
        }
    }
    errs
}

fn finalizer_errors(finalizers: Option<&Value>) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(Value::Array(list)) = finalizers else {
        return errs;
    };
    let names: Vec<&str> = list.iter().filter_map(Value::as_str).collect();
    for name in &names {
        for msg in qualified_name_errors(name) {
            errs.push(FieldError::invalid("metadata.finalizers", *name, &msg));
        }
    }
    if names.contains(&"orphan") && names.contains(&"foregroundDeletion") {
        errs.push(FieldError::invalid(
            "metadata.finalizers",
            BadValue::Json(Value::Array(list.clone())),
            "finalizer orphan and foregroundDeletion cannot be both set",
        ));
    }
    errs
}

/// Validates template labels and annotations; `path` is e.g. `spec.template.metadata`.
#[must_use]
pub fn validate_object_meta(meta: &ObjectMeta, path: &str) -> Vec<FieldError> {
    let labels_path = format!("{path}.labels");
    let annotations_path = format!("{path}.annotations");
    let mut errs = Vec::new();
    for (key, value) in meta.labels() {
        errs.extend(
            qualified_name_errors(key)
                .iter()
                .map(|d| FieldError::invalid(&labels_path, key, d)),
        );
        errs.extend(
            label_value_errors(value)
                .iter()
                .map(|d| FieldError::invalid(&labels_path, value, d)),
        );
    }
    let mut total = 0usize;
    for (key, value) in meta.annotations() {
        let lower = key.to_lowercase();
        errs.extend(
            qualified_name_errors(&lower)
                .iter()
                .map(|d| FieldError::invalid(&annotations_path, key, d)),
        );
        total = total.saturating_add(key.len()).saturating_add(value.len());
    }
    if total > TOTAL_ANNOTATION_SIZE_LIMIT {
        errs.push(FieldError::too_long(
            &annotations_path,
            format!("may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT} bytes"),
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotation_size_limit() {
        let meta = ObjectMeta {
            annotations: Some([("big".into(), "x".repeat(TOTAL_ANNOTATION_SIZE_LIMIT))].into()),
            ..ObjectMeta::default()
        };
        let errs = validate_object_meta(&meta, "spec.template.metadata");
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].field, "spec.template.metadata.annotations");
    }

    /// The full texts the API server returns for a MachinePool with a bad template label
    /// (Cluster API's `ObjectMeta.Validate` calls apimachinery's `metav1validation.ValidateLabels`
    /// and `apivalidation.ValidateAnnotations`, which report `field.Invalid(path, key or value,
    /// msg)` for each message of `IsQualifiedName` / `IsValidLabelValue`).
    #[test]
    fn label_errors_as_the_api_server_prints_them() {
        let meta = ObjectMeta {
            labels: Some([("-team".into(), "a b".into())].into()),
            annotations: Some([("example.com/".into(), String::new())].into()),
        };
        let got: Vec<String> = validate_object_meta(&meta, "spec.template.metadata")
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            got,
            [
                r#"spec.template.metadata.labels: Invalid value: "-team": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"#,
                r#"spec.template.metadata.labels: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"#,
                r#"spec.template.metadata.annotations: Invalid value: "example.com/": name part must be non-empty"#,
                r#"spec.template.metadata.annotations: Invalid value: "example.com/": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"#,
            ]
        );
    }
}
