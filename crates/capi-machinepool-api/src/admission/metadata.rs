//! Label and annotation validation with apimachinery's rules (qualified names, label values,
//! total annotation size).

use super::FieldError;
use crate::common::ObjectMeta;

const QUALIFIED_NAME_MAX: usize = 63;
const DNS1123_SUBDOMAIN_MAX: usize = 253;
const LABEL_VALUE_MAX: usize = 63;
/// Maximum total size of all annotation keys and values.
pub const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;

fn is_alnum(c: char) -> bool {
    c.is_ascii_alphanumeric()
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`, non-empty.
fn is_name_part(value: &str) -> bool {
    let (Some(first), Some(last)) = (value.chars().next(), value.chars().last()) else {
        return false;
    };
    is_alnum(first)
        && is_alnum(last)
        && value
            .chars()
            .all(|c| is_alnum(c) || matches!(c, '-' | '_' | '.'))
}

/// DNS-1123 subdomain problems of `value` (empty list when valid).
#[must_use]
pub fn dns1123_subdomain_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_SUBDOMAIN_MAX {
        errs.push(format!(
            "must be no more than {DNS1123_SUBDOMAIN_MAX} characters"
        ));
    }
    let label_ok = |l: &str| {
        let (Some(first), Some(last)) = (l.chars().next(), l.chars().last()) else {
            return false;
        };
        let lower_alnum = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
        lower_alnum(first) && lower_alnum(last) && l.chars().all(|c| lower_alnum(c) || c == '-')
    };
    if !value.split('.').all(label_ok) {
        errs.push(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', \
             and must start and end with an alphanumeric character"
                .into(),
        );
    }
    errs
}

/// Qualified-name problems of `value` (`[prefix/]name`), empty when valid.
#[must_use]
pub fn qualified_name_errors(value: &str) -> Vec<String> {
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                return vec!["prefix part must be non-empty".into()];
            }
            let prefix_errs = dns1123_subdomain_errors(prefix);
            if !prefix_errs.is_empty() {
                return prefix_errs
                    .into_iter()
                    .map(|e| format!("prefix part {e}"))
                    .collect();
            }
            *name
        }
        _ => {
            return vec![
                "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start \
                 and end with an alphanumeric character, with an optional DNS subdomain prefix and '/'"
                    .into(),
            ];
        }
    };
    let mut errs = Vec::new();
    if name.is_empty() {
        errs.push("name part must be non-empty".into());
    } else if name.len() > QUALIFIED_NAME_MAX {
        errs.push(format!(
            "name part must be no more than {QUALIFIED_NAME_MAX} characters"
        ));
    }
    if !name.is_empty() && !is_name_part(name) {
        errs.push(
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end \
             with an alphanumeric character"
                .into(),
        );
    }
    errs
}

/// Label-value problems of `value`, empty when valid (the empty value is valid).
#[must_use]
pub fn label_value_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > LABEL_VALUE_MAX {
        errs.push(format!("must be no more than {LABEL_VALUE_MAX} characters"));
    }
    if !value.is_empty() && !is_name_part(value) {
        errs.push(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', \
             and must start and end with an alphanumeric character"
                .into(),
        );
    }
    errs
}

/// True when `reason` matches the `metav1.Condition` reason pattern
/// `^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$` (non-empty, CamelCase-like).
#[must_use]
pub fn is_condition_reason(reason: &str) -> bool {
    let Some(first) = reason.chars().next() else {
        return false;
    };
    let last = reason.chars().last().unwrap_or(first);
    first.is_ascii_alphabetic()
        && (last.is_ascii_alphanumeric() || last == '_')
        && reason
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ',' | ':'))
}

/// Validates template labels and annotations; `path` is e.g. `spec.template.metadata`.
#[must_use]
pub fn validate_object_meta(meta: &ObjectMeta, path: &str) -> Vec<FieldError> {
    let labels_path = format!("{path}.labels");
    let annotations_path = format!("{path}.annotations");
    let mut errs = Vec::new();
    for (key, value) in &meta.labels {
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
    for (key, value) in &meta.annotations {
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
            &format!("may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT} bytes"),
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qualified_names() {
        for ok in [
            "a",
            "app.kubernetes.io/name",
            "example.com/My_Name-1",
            "x/y",
        ] {
            assert!(qualified_name_errors(ok).is_empty(), "{ok}");
        }
        for bad in [
            "",
            "/a",
            "a/",
            "-a",
            "a-",
            "Example.com/a",
            "a/b/c",
            &"x".repeat(64),
        ] {
            assert!(!qualified_name_errors(bad).is_empty(), "{bad}");
        }
    }

    #[test]
    fn label_values() {
        for ok in ["", "a", "a.b-c_d", &"x".repeat(63)] {
            assert!(label_value_errors(ok).is_empty(), "{ok}");
        }
        for bad in ["-a", "a b", "a/b", &"x".repeat(64)] {
            assert!(!label_value_errors(bad).is_empty(), "{bad}");
        }
    }

    #[test]
    fn annotation_size_limit() {
        let mut meta = ObjectMeta::default();
        meta.annotations
            .insert("big".into(), "x".repeat(TOTAL_ANNOTATION_SIZE_LIMIT));
        let errs = validate_object_meta(&meta, "spec.template.metadata");
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].field, "spec.template.metadata.annotations");
    }
}
