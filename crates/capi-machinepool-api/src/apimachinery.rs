//! apimachinery's validation rules for names, labels, annotations and condition reasons, in one
//! place (used by admission, the conditions crate and the contract checks).

const QUALIFIED_NAME_MAX: usize = 63;
const DNS1123_SUBDOMAIN_MAX: usize = 253;
const DNS1035_LABEL_MAX: usize = 63;
const LABEL_VALUE_MAX: usize = 63;
/// Maximum total size of all annotation keys and values.
pub const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;

/// apimachinery's `qualifiedNameFmt`.
const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
/// apimachinery's `qualifiedNameErrMsg`.
const QUALIFIED_NAME_ERR_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
/// The examples `IsQualifiedName` gives.
const QUALIFIED_NAME_EXAMPLES: [&str; 3] = ["MyName", "my.name", "123-abc"];
/// apimachinery's `labelValueFmt`.
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
/// apimachinery's `labelValueErrMsg`.
const LABEL_VALUE_ERR_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
/// apimachinery's `dns1123SubdomainFmt`.
const DNS1123_SUBDOMAIN_FMT: &str =
    r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
/// apimachinery's `dns1123SubdomainErrorMsg`.
const DNS1123_SUBDOMAIN_ERR_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

/// apimachinery's `dns1123LabelFmt`.
const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
/// apimachinery's `dns1123LabelErrMsg`.
const DNS1123_LABEL_ERR_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_LABEL_MAX: usize = 63;

/// apimachinery's `dns1035LabelFmt`.
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
/// apimachinery's `dns1035LabelErrMsg`.
const DNS1035_LABEL_ERR_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

/// apimachinery's `EmptyError`.
const EMPTY_ERROR: &str = "must be non-empty";

/// apimachinery's `MaxLenError`.
fn max_len_error(length: usize) -> String {
    format!("must be no more than {length} characters")
}

/// apimachinery's `RegexError`: the message, the examples (each followed by `, `, joined with
/// ` or `, hence the double spaces the API server prints) and the regex.
fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{msg} (regex used for validation is '{fmt}')");
    }
    let quoted: Vec<String> = examples.iter().map(|e| format!("'{e}', ")).collect();
    format!(
        "{msg} (e.g. {}regex used for validation is '{fmt}')",
        quoted.join(" or ")
    )
}

fn is_alnum(c: char) -> bool {
    c.is_ascii_alphanumeric()
}

/// Matches `QUALIFIED_NAME_FMT` (non-empty).
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

/// Matches `DNS1123_SUBDOMAIN_FMT`: dot-separated labels of lower-case alphanumerics and `-`,
/// each starting and ending with an alphanumeric.
fn is_dns1123_subdomain(value: &str) -> bool {
    let label_ok = |l: &str| {
        let lower_alnum = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
        let (Some(first), Some(last)) = (l.chars().next(), l.chars().last()) else {
            return false;
        };
        lower_alnum(first) && lower_alnum(last) && l.chars().all(|c| lower_alnum(c) || c == '-')
    };
    value.split('.').all(label_ok)
}

/// DNS-1123 subdomain problems of `value` (empty list when valid), worded as apimachinery's
/// `validation.IsDNS1123Subdomain`.
#[must_use]
pub fn dns1123_subdomain_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_SUBDOMAIN_MAX {
        errs.push(max_len_error(DNS1123_SUBDOMAIN_MAX));
    }
    if !is_dns1123_subdomain(value) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_ERR_MSG,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// DNS-1123 label problems of `value` (empty list when valid), worded as apimachinery's
/// `validation.IsDNS1123Label` (namespace names): a valid subdomain that is not a label can
/// only have dots, and is told so.
#[must_use]
pub fn dns1123_label_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_LABEL_MAX {
        errs.push(max_len_error(DNS1123_LABEL_MAX));
    }
    if value.contains('.') || !is_dns1123_subdomain(value) {
        if is_dns1123_subdomain(value) {
            errs.push("must not contain dots".to_owned());
        } else {
            errs.push(regex_error(
                DNS1123_LABEL_ERR_MSG,
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

/// Matches `DNS1035_LABEL_FMT`: a lower-case letter, then lower-case alphanumerics and `-`,
/// ending with an alphanumeric.
fn is_dns1035_shape(value: &str) -> bool {
    let b = value.as_bytes();
    b.first().is_some_and(u8::is_ascii_lowercase)
        && b.last().is_some_and(|c| *c != b'-')
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
}

/// DNS-1035 label problems of `value` (empty list when valid), worded as apimachinery's
/// `validation.IsDNS1035Label` (CRD version and resource names).
#[must_use]
pub fn dns1035_label_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1035_LABEL_MAX {
        errs.push(max_len_error(DNS1035_LABEL_MAX));
    }
    if !is_dns1035_shape(value) {
        errs.push(regex_error(
            DNS1035_LABEL_ERR_MSG,
            DNS1035_LABEL_FMT,
            &["my-name", "abc-123"],
        ));
    }
    errs
}

/// Qualified-name problems of `value` (`[prefix/]name`), empty when valid, worded as
/// apimachinery's `validation.IsQualifiedName`: prefix problems and name problems are both
/// reported, and an empty name is both empty and not matching the regex.
#[must_use]
pub fn qualified_name_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push(format!("prefix part {EMPTY_ERROR}"));
            } else {
                errs.extend(
                    dns1123_subdomain_errors(prefix)
                        .into_iter()
                        .map(|e| format!("prefix part {e}")),
                );
            }
            *name
        }
        _ => {
            return vec![format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(
                    QUALIFIED_NAME_ERR_MSG,
                    QUALIFIED_NAME_FMT,
                    &QUALIFIED_NAME_EXAMPLES
                )
            )];
        }
    };
    if name.is_empty() {
        errs.push(format!("name part {EMPTY_ERROR}"));
    } else if name.len() > QUALIFIED_NAME_MAX {
        errs.push(format!("name part {}", max_len_error(QUALIFIED_NAME_MAX)));
    }
    if !is_name_part(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                QUALIFIED_NAME_ERR_MSG,
                QUALIFIED_NAME_FMT,
                &QUALIFIED_NAME_EXAMPLES
            )
        ));
    }
    errs
}

/// Label-value problems of `value`, empty when valid (the empty value is valid), worded as
/// apimachinery's `validation.IsValidLabelValue`.
#[must_use]
pub fn label_value_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > LABEL_VALUE_MAX {
        errs.push(max_len_error(LABEL_VALUE_MAX));
    }
    if !value.is_empty() && !is_name_part(value) {
        errs.push(regex_error(
            LABEL_VALUE_ERR_MSG,
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
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

    // The expected texts below are written out in full, as the API server prints them, from
    // k8s.io/apimachinery/pkg/util/validation/validation.go and (v0.36 and later, where
    // `IsQualifiedName` is `content.IsLabelKey`) pkg/api/validate/content/kube.go:
    //
    //   const qualifiedNameFmt string = "(" + qnameCharFmt + qnameExtCharFmt + "*)?" + qnameCharFmt
    //   const qualifiedNameErrMsg string = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
    //   errs = append(errs, "name part "+RegexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc"))
    //   return append(errs, "a valid label key "+RegexError(...)+" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
    //   const labelValueErrMsg string = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
    //   errs = append(errs, RegexError(labelValueErrMsg, labelValueFmt, "MyValue", "my_value", "12345"))
    //   const dns1123SubdomainErrorMsg string = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
    //   errs = append(errs, RegexError(dns1123SubdomainErrorMsg, dns1123SubdomainFmt, "example.com"))
    //   func RegexError(msg string, fmt string, examples ...string) string {
    //       msg += " (e.g. "; for i := range examples { if i > 0 { msg += " or " }; msg += "'" + examples[i] + "', " }
    //       msg += "regex used for validation is '" + fmt + "')"
    //   func MaxLenError(length int) string { return fmt.Sprintf("must be no more than %d characters", length) }
    //   func EmptyError() string { return "must be non-empty" }
    const NAME_REGEX: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    const SUBDOMAIN_REGEX: &str = r"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    const LABEL_REGEX: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

    /// `IsDNS1123Label` (validation.go): `MaxLenError(63)`, then "must not contain dots" for a
    /// valid subdomain, else `RegexError(dns1123LabelErrMsg, dns1123LabelFmt, "my-name",
    /// "123-abc")`.
    #[test]
    fn dns1123_label_messages() {
        let regex = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
        assert!(dns1123_label_errors("kube-system").is_empty());
        assert_eq!(dns1123_label_errors("a.b"), ["must not contain dots"]);
        assert_eq!(dns1123_label_errors("Team_1"), [regex]);
        assert_eq!(dns1123_label_errors(""), [regex]);
        assert_eq!(
            dns1123_label_errors(&"a".repeat(64)),
            ["must be no more than 63 characters"]
        );
    }

    #[test]
    fn qualified_name_messages() {
        let long = "x".repeat(64);
        let bad_prefix = format!("{}/a", "x".repeat(254));
        let cases: Vec<(&str, Vec<String>)> = vec![
            ("app.kubernetes.io/name", vec![]),
            // name part EmptyError, and the empty name fails the regex too.
            (
                "",
                vec![
                    "name part must be non-empty".into(),
                    format!("name part {NAME_REGEX}"),
                ],
            ),
            ("-a", vec![format!("name part {NAME_REGEX}")]),
            (
                &long,
                vec!["name part must be no more than 63 characters".into()],
            ),
            // prefix part EmptyError; the name is still checked.
            ("/a", vec!["prefix part must be non-empty".into()]),
            (
                "Example.com/-a",
                vec![
                    format!("prefix part {SUBDOMAIN_REGEX}"),
                    format!("name part {NAME_REGEX}"),
                ],
            ),
            (
                &bad_prefix,
                vec!["prefix part must be no more than 253 characters".into()],
            ),
            (
                "a/",
                vec![
                    "name part must be non-empty".into(),
                    format!("name part {NAME_REGEX}"),
                ],
            ),
            (
                "a/b/c",
                vec![format!(
                    "a valid label key {NAME_REGEX} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
                )],
            ),
        ];
        for (value, want) in cases {
            assert_eq!(qualified_name_errors(value), want, "{value:?}");
        }
    }

    #[test]
    fn label_value_messages() {
        let long = "x".repeat(64);
        let long_bad = format!("{}-", "x".repeat(63));
        let cases: Vec<(&str, Vec<String>)> = vec![
            ("", vec![]),
            ("a.b-c_d", vec![]),
            ("a b", vec![LABEL_REGEX.into()]),
            (&long, vec!["must be no more than 63 characters".into()]),
            (
                &long_bad,
                vec![
                    "must be no more than 63 characters".into(),
                    LABEL_REGEX.into(),
                ],
            ),
        ];
        for (value, want) in cases {
            assert_eq!(label_value_errors(value), want, "{value:?}");
        }
    }

    #[test]
    fn dns1123_subdomain_messages() {
        let long = "a".repeat(254);
        let cases: Vec<(&str, Vec<String>)> = vec![
            ("example.com", vec![]),
            ("Example.com", vec![SUBDOMAIN_REGEX.into()]),
            ("a..b", vec![SUBDOMAIN_REGEX.into()]),
            ("", vec![SUBDOMAIN_REGEX.into()]),
            (&long, vec!["must be no more than 253 characters".into()]),
        ];
        for (value, want) in cases {
            assert_eq!(dns1123_subdomain_errors(value), want, "{value:?}");
        }
    }

    //   const dns1035LabelErrMsg string = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character"
    //   errs = append(errs, RegexError(dns1035LabelErrMsg, dns1035LabelFmt, "my-name", "abc-123"))
    const DNS1035_REGEX: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

    #[test]
    fn dns1035_label_messages() {
        let long = "a".repeat(64);
        let cases: Vec<(&str, Vec<String>)> = vec![
            ("v1beta2", vec![]),
            ("a-1", vec![]),
            (&long[..63], vec![]),
            ("V1", vec![DNS1035_REGEX.into()]),
            ("1v", vec![DNS1035_REGEX.into()]),
            ("a-", vec![DNS1035_REGEX.into()]),
            ("a.b", vec![DNS1035_REGEX.into()]),
            ("", vec![DNS1035_REGEX.into()]),
            (&long, vec!["must be no more than 63 characters".into()]),
        ];
        for (value, want) in cases {
            assert_eq!(dns1035_label_errors(value), want, "{value:?}");
        }
    }

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
