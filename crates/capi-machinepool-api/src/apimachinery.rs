//! apimachinery's validation rules for names, labels, annotations and condition reasons, in one
//! place (used by admission, the conditions crate and the contract checks).

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
}
