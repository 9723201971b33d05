//! Group, scope, names, `metadata.name`, versions: `ValidateCustomResourceDefinition` and
//! `validateCustomResourceDefinitionSpec` (`pkg/apis/apiextensions/validation/validation.go`
//! lines 77-110 and 355-500), `ValidateCustomResourceDefinitionNames` (lines 787-821),
//! `validateDeprecationWarning` (lines 324-353), `ValidateCustomResourceDefinitionStoredVersions`
//! (lines 263-288), `validatePreserveUnknownFields` (lines 1894-1906), and the v1 defaults the
//! server applies first (`pkg/apis/apiextensions/v1/defaults.go`: `singular` and `listKind`
//! from `kind`) and the status it sets on create (`PrepareForCreate`: `storedVersions` holds
//! the first storage version).

use std::collections::BTreeSet;

use capi_machinepool_api::apimachinery;
use serde_json::Value;

use crate::BadValue;

use super::{Layout, Refusal, Refusals, json_kind, versions};

/// What `IsDNS1035Label` finds wrong with `s`, its messages joined as the server joins them
/// (`strings.Join(errs, ",")`); `None` when `s` is a label.
pub(crate) fn dns1035_problem(s: &str) -> Option<String> {
    let errs = apimachinery::dns1035_label_errors(s);
    (!errs.is_empty()).then(|| errs.join(","))
}

/// What `IsDNS1123Subdomain` finds wrong with `s`, joined likewise; `None` when `s` is a
/// subdomain.
pub(crate) fn dns1123_subdomain_problem(s: &str) -> Option<String> {
    let errs = apimachinery::dns1123_subdomain_errors(s);
    (!errs.is_empty()).then(|| errs.join(","))
}

/// Groups whose CRDs need the `api-approved.kubernetes.io` annotation
/// (`apihelpers.IsProtectedCommunityGroup`).
fn is_protected_group(group: &str) -> bool {
    ["k8s.io", "kubernetes.io"]
        .iter()
        .any(|g| group == *g || group.ends_with(&format!(".{g}")))
}

pub(super) fn validate(crd: &Value, layout: &Layout, r: &mut Refusals) {
    let spec = &crd["spec"];
    metadata(crd, r);
    group_and_scope(spec, r);
    // validation.go lines 374-383: every version needs a schema unless one is hoisted.
    let hoisted = layout.schema
        && versions(spec)
            .first()
            .is_some_and(|v| !v["schema"]["openAPIV3Schema"].is_null());
    if !hoisted {
        for (i, v) in versions(spec).iter().enumerate() {
            if v["schema"]["openAPIV3Schema"].is_null() {
                r.required(format!("spec.versions[{i}].schema.openAPIV3Schema"), "");
            }
        }
    }
    let storage = versions_list(spec, r);
    names(spec, r);
    stored_versions(spec, storage, r);
    // validatePreserveUnknownFields.
    if spec["preserveUnknownFields"] == Value::Bool(true) {
        r.invalid(
            "spec.preserveUnknownFields",
            Value::Bool(true),
            "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
        );
    }
}

/// `metadata.name` (`NameIsDNSSubdomain` and `<plural>.<group>`) and the API approval
/// annotation of protected groups.
fn metadata(crd: &Value, r: &mut Refusals) {
    let spec = &crd["spec"];
    let name = crd["metadata"]["name"].as_str().unwrap_or_default();
    if name.is_empty() {
        // ValidateObjectMeta: name or generateName is required.
        r.required("metadata.name", "name or generateName is required");
    } else {
        let mut details: Vec<String> = dns1123_subdomain_problem(name).into_iter().collect();
        let plural = spec["names"]["plural"].as_str().unwrap_or_default();
        let group = spec["group"].as_str().unwrap_or_default();
        if name != format!("{plural}.{group}") {
            details.push("must be spec.names.plural+\".\"+spec.group".to_owned());
        }
        for detail in details {
            r.invalid("metadata.name", name, &detail);
        }
    }
    // The rest of `ValidateObjectMeta`, as for any cluster-scoped object.
    if crd["metadata"]["namespace"]
        .as_str()
        .is_some_and(|ns| !ns.is_empty())
    {
        r.forbidden("metadata.namespace", "not allowed on this type");
    }
    for e in crate::validate_meta_entries(&crd["metadata"]) {
        r.push(e);
    }
    let group = spec["group"].as_str().unwrap_or_default();
    if is_protected_group(group) {
        let key = "api-approved.kubernetes.io";
        let path = format!("metadata.annotations[{key}]");
        match crd["metadata"]["annotations"][key].as_str() {
            None => r.required(
                path,
                format!("protected groups must have approval annotation \"{key}\", see https://github.com/kubernetes/enhancements/pull/1111"),
            ),
            Some(v) if v.starts_with("unapproved") => {}
            Some(v) if url_ok(v) => {}
            Some(v) => r.invalid(
                path,
                v,
                format!("protected groups must have approval annotation \"{key}\" with either a URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111"),
            ),
        }
    }
}

/// `url.Parse(v)` with a scheme and a host: what `GetAPIApprovalState` takes as approved.
fn url_ok(v: &str) -> bool {
    v.split_once("://")
        .is_some_and(|(scheme, rest)| !scheme.is_empty() && !rest.is_empty())
}

fn group_and_scope(spec: &Value, r: &mut Refusals) {
    let group = spec["group"].as_str().unwrap_or_default();
    match (group, dns1123_subdomain_problem(group)) {
        ("", _) => r.required("spec.group", ""),
        (g, Some(problem)) => r.invalid("spec.group", g, &problem),
        (g, None) if !g.contains('.') => {
            r.invalid("spec.group", g, "should be a domain with at least one dot")
        }
        _ => {}
    }
    match spec["scope"].as_str().unwrap_or_default() {
        "" => r.required("spec.scope", ""),
        "Cluster" | "Namespaced" => {}
        other => r.not_supported("spec.scope", other, &["Cluster", "Namespaced"]),
    }
}

/// The list of versions: decoding of the flags, names, uniqueness, one storage version,
/// deprecation warnings. Returns the name of the first storage version, and how many there are.
fn versions_list<'a>(spec: &'a Value, r: &mut Refusals) -> (Option<&'a str>, usize) {
    let list = versions(spec);
    if !spec["versions"].is_array() && !spec["versions"].is_null() {
        r.push(Refusal::Undecodable {
            path: "spec.versions".to_owned(),
            problem: format!(
                "cannot unmarshal {} into a list of versions",
                json_kind(&spec["versions"])
            ),
        });
    }
    let mut storage = (None, 0);
    let mut seen = BTreeSet::new();
    let mut unique = true;
    for (i, v) in list.iter().enumerate() {
        let at = format!("spec.versions[{i}]");
        // `served` and `storage` must be set (wrong JSON types are refused by `decoding`).
        for flag in ["served", "storage"] {
            if v[flag].is_null() {
                r.required(
                    format!("{at}.{flag}"),
                    "a boolean (the API server's decoder needs `true` or `false`)",
                );
            }
        }
        let name = v["name"].as_str().unwrap_or_default();
        if v["storage"] == Value::Bool(true) {
            if storage.0.is_none() {
                storage.0 = Some(name);
            }
            storage.1 += 1;
        }
        if !seen.insert(name) {
            unique = false;
        }
        if let Some(problem) = dns1035_problem(name) {
            r.invalid(format!("{at}.name"), name, &problem);
            // The v1 conversion copies the first version's name to the internal
            // `spec.version`, which is validated again (validation.go lines 485-492).
            if i == 0 {
                r.invalid("spec.version", name, &problem);
            }
        }
        deprecation_warning(v, &at, r);
    }
    let all = &spec["versions"];
    if !unique {
        r.invalid("spec.versions", all, "must contain unique version names");
    }
    if storage.1 != 1 {
        r.invalid(
            "spec.versions",
            all,
            "must have exactly one version marked as storage version",
        );
    }
    storage
}

/// `validateDeprecationWarning` (validation.go lines 324-353).
fn deprecation_warning(v: &Value, at: &str, r: &mut Refusals) {
    let Some(warning) = v.get("deprecationWarning").and_then(Value::as_str) else {
        return;
    };
    let path = format!("{at}.deprecationWarning");
    // The server passes the `*string` itself, which apimachinery prints with `json.Marshal`
    // (a no-break space stays as it is, where `%q` would escape it).
    let warning_value = || BadValue::Marshaled(crate::go_json(&Value::from(warning)));
    if v["deprecated"] != Value::Bool(true) {
        r.invalid(
            &path,
            warning_value(),
            "can only be set for deprecated versions",
        );
        return;
    }
    if warning.len() > 256 {
        r.invalid(&path, warning_value(), "must be <= 256 characters long");
    }
    if warning.is_empty() {
        r.invalid(&path, warning_value(), "must not be an empty string");
    }
    // `unicode.IsPrint`, rune by rune, at the rune's byte index (a control character is never
    // printable, so Go's second check never speaks first).
    if let Some((i, _)) = warning
        .char_indices()
        .find(|(_, c)| !crate::go_text::is_print(*c))
    {
        r.invalid(
            &path,
            warning_value(),
            format!(
                "must only contain printable UTF-8 characters; non-printable character found at index {i}"
            ),
        );
    }
}

/// Names after the v1 defaults (`singular` = lower-case `kind`, `listKind` = `kind` + "List").
fn names(spec: &Value, r: &mut Refusals) {
    let n = &spec["names"];
    let text = |k: &str| n[k].as_str().unwrap_or_default().to_owned();
    let kind = text("kind");
    let plural = text("plural");
    let mut singular = text("singular");
    if singular.is_empty() {
        singular = kind.to_lowercase();
    }
    let mut list_kind = text("listKind");
    if list_kind.is_empty() && !kind.is_empty() {
        list_kind = format!("{kind}List");
    }
    for (field, value) in [
        ("plural", &plural),
        ("singular", &singular),
        ("kind", &kind),
        ("listKind", &list_kind),
    ] {
        if value.is_empty() {
            r.required(format!("spec.names.{field}"), "");
        }
    }
    for (field, value, lower) in [
        ("plural", &plural, false),
        ("singular", &singular, false),
        ("kind", &kind, true),
        ("listKind", &list_kind, true),
    ] {
        if value.is_empty() {
            continue;
        }
        let problem = if lower {
            dns1035_problem(&value.to_lowercase())
                .map(|p| format!("may have mixed case, but should otherwise match: {p}"))
        } else {
            dns1035_problem(value)
        };
        if let Some(problem) = problem {
            r.invalid(format!("spec.names.{field}"), value, &problem);
        }
    }
    labels(&n["shortNames"], "spec.names.shortNames", r);
    if !kind.is_empty() && kind == list_kind {
        r.invalid(
            "spec.names.listKind",
            &list_kind,
            "kind and listKind may not be the same",
        );
    }
    labels(&n["categories"], "spec.names.categories", r);
}

/// Each entry of a list of DNS-1035 labels (`shortNames`, `categories`), at `path[i]`.
fn labels(list: &Value, path: &str, r: &mut Refusals) {
    for (i, item) in list.as_array().into_iter().flatten().enumerate() {
        let item = item.as_str().unwrap_or_default();
        if let Some(problem) = dns1035_problem(item) {
            r.invalid(format!("{path}[{i}]"), item, &problem);
        }
    }
}

/// `status.storedVersions` as `PrepareForCreate` sets it (the first storage version), checked
/// by `ValidateCustomResourceDefinitionStoredVersions`.
fn stored_versions(spec: &Value, (first, count): (Option<&str>, usize), r: &mut Refusals) {
    let Some(first) = first else {
        r.invalid(
            "status.storedVersions",
            // A nil slice in Go: printed as `null`.
            &Value::Null,
            "must have at least one stored version",
        );
        return;
    };
    if count > 1 {
        let stored = Value::Array(vec![Value::String(first.to_owned())]);
        for v in versions(spec) {
            let name = v["name"].as_str().unwrap_or_default();
            if v["storage"] == Value::Bool(true) && name != first {
                r.invalid(
                    "status.storedVersions",
                    &stored,
                    format!("must have the storage version {name}"),
                );
            }
        }
    }
}
