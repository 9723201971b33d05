//! Patch targets: which resources a patch applies to.

use std::fmt;

use serde_json::Value;

/// A kustomize patch target (`group`, `version`, `kind`, `name` and `namespace` as anchored
/// regular expressions, `labelSelector` / `annotationSelector` with `key`, `key=value` and
/// `key!=value` terms).
#[derive(Clone, Debug)]
pub struct Target {
    group: Option<regex::Regex>,
    version: Option<regex::Regex>,
    kind: Option<regex::Regex>,
    name: Option<regex::Regex>,
    namespace: Option<regex::Regex>,
    label_selector: Vec<Term>,
    annotation_selector: Vec<Term>,
}

#[derive(Clone, Debug)]
enum Term {
    Exists(String),
    Equals(String, String),
    NotEquals(String, String),
}

/// Why a `target:` mapping cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// `name` or `namespace` is not a valid regular expression.
    #[error("{field}: invalid regular expression: {message}")]
    Regex {
        /// The field.
        field: &'static str,
        /// The regex crate's message.
        message: String,
    },
    /// A set-based selector term (`in`, `notin`, `!key`), which is not emulated.
    #[error("set-based selector {term:?} is not supported")]
    SetBasedSelector {
        /// The term.
        term: String,
    },
    /// A field is not a string.
    #[error("{field}: not a string")]
    NotAString {
        /// The field.
        field: &'static str,
    },
    /// `target` is not a mapping.
    #[error("not a mapping")]
    NotAMapping,
}

fn anchored(pattern: &str, field: &'static str) -> Result<regex::Regex, TargetError> {
    regex::Regex::new(&format!("^(?:{pattern})$")).map_err(|e| TargetError::Regex {
        field,
        message: e.to_string(),
    })
}

fn selector(text: &str) -> Result<Vec<Term>, TargetError> {
    text.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|term| {
            if term.contains(" in ") || term.contains(" notin ") || term.starts_with('!') {
                return Err(TargetError::SetBasedSelector {
                    term: term.to_owned(),
                });
            }
            Ok(if let Some((k, v)) = term.split_once("!=") {
                Term::NotEquals(k.trim().to_owned(), v.trim().to_owned())
            } else if let Some((k, v)) = term.split_once("==").or_else(|| term.split_once('=')) {
                Term::Equals(k.trim().to_owned(), v.trim().to_owned())
            } else {
                Term::Exists(term.to_owned())
            })
        })
        .collect()
}

fn selects(terms: &[Term], map: &Value) -> bool {
    terms.iter().all(|term| match term {
        Term::Exists(k) => map.get(k).is_some(),
        Term::Equals(k, v) => map.get(k).and_then(Value::as_str) == Some(v),
        Term::NotEquals(k, v) => map.get(k).and_then(Value::as_str) != Some(v),
    })
}

impl Target {
    /// Reads a `target:` mapping.
    ///
    /// # Errors
    /// Not a mapping, a field that is not a string, an invalid regular expression or an
    /// unsupported selector.
    pub fn from_value(value: &Value) -> Result<Self, TargetError> {
        if !value.is_object() {
            return Err(TargetError::NotAMapping);
        }
        let text = |field: &'static str| match value.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(TargetError::NotAString { field }),
        };
        let selectors = |field| -> Result<Vec<Term>, TargetError> {
            Ok(text(field)?
                .map(|s| selector(&s))
                .transpose()?
                .unwrap_or_default())
        };
        Ok(Self {
            group: text("group")?.map(|g| anchored(&g, "group")).transpose()?,
            version: text("version")?
                .map(|v| anchored(&v, "version"))
                .transpose()?,
            kind: text("kind")?.map(|k| anchored(&k, "kind")).transpose()?,
            name: text("name")?.map(|n| anchored(&n, "name")).transpose()?,
            namespace: text("namespace")?
                .map(|n| anchored(&n, "namespace"))
                .transpose()?,
            label_selector: selectors("labelSelector")?,
            annotation_selector: selectors("annotationSelector")?,
        })
    }

    /// The target of a strategic merge patch without one: the patch's own group, kind, name
    /// and namespace (the version is not compared, as kustomize does not).
    #[must_use]
    pub fn of(patch: &Value) -> Self {
        let group =
            capi_versions::GroupVersion::split(patch["apiVersion"].as_str().unwrap_or_default())
                .group;
        let literal = |v: &Value| {
            v.as_str()
                .and_then(|s| anchored(&regex::escape(s), "name").ok())
        };
        Self {
            group: anchored(&regex::escape(group), "group").ok(),
            version: None,
            kind: literal(&patch["kind"]),
            name: literal(&patch["metadata"]["name"]),
            namespace: literal(&patch["metadata"]["namespace"]),
            label_selector: Vec::new(),
            annotation_selector: Vec::new(),
        }
    }

    /// True when `resource` is a target.
    #[must_use]
    pub fn matches(&self, resource: &Value) -> bool {
        let capi_versions::GroupVersion { group, version } =
            capi_versions::GroupVersion::split(resource["apiVersion"].as_str().unwrap_or_default());
        let meta = &resource["metadata"];
        self.group.as_ref().is_none_or(|g| g.is_match(group))
            && self.version.as_ref().is_none_or(|v| v.is_match(version))
            && self
                .kind
                .as_ref()
                .is_none_or(|k| k.is_match(resource["kind"].as_str().unwrap_or_default()))
            && self
                .name
                .as_ref()
                .is_none_or(|n| n.is_match(meta["name"].as_str().unwrap_or_default()))
            && self
                .namespace
                .as_ref()
                .is_none_or(|n| n.is_match(meta["namespace"].as_str().unwrap_or_default()))
            && selects(&self.label_selector, &meta["labels"])
            && selects(&self.annotation_selector, &meta["annotations"])
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        for (label, field) in [
            ("group", &self.group),
            ("kind", &self.kind),
            ("name", &self.name),
        ] {
            let Some(n) = field else { continue };
            let pattern = n.as_str();
            let inner = pattern
                .strip_prefix("^(?:")
                .and_then(|p| p.strip_suffix(")$"))
                .unwrap_or(pattern);
            parts.push(format!("{label} {inner:?}"));
        }
        f.write_str(&parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn targets_match_like_kustomize() {
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "foos.example.com", "labels": {"a": "1"}}});
        let t = |v: Value| Target::from_value(&v).unwrap().matches(&crd);
        assert!(t(json!({"kind": "CustomResourceDefinition"})));
        assert!(t(json!({"name": "foo.*"})));
        assert!(!t(json!({"name": "foo"})), "names are anchored");
        assert!(t(json!({"group": "apiextensions.k8s.io", "version": "v1"})));
        assert!(!t(json!({"version": "v1beta1"})));
        // kustomize compiles group, version and kind as anchored regexes too
        // (tests/fixtures/kustomize-trees/regex-{kind,version,group}, kubectl kustomize v5.5.0).
        assert!(t(
            json!({"kind": "CustomResource.*", "version": "v.", "group": "apiextensions\\..*"})
        ));
        assert!(!t(json!({"kind": "Custom"})));
        assert!(t(json!({"labelSelector": "a=1"})));
        assert!(!t(json!({"labelSelector": "a!=1"})));
        assert!(matches!(
            Target::from_value(&json!({"labelSelector": "a in (1)"})),
            Err(TargetError::SetBasedSelector { .. })
        ));
        assert!(matches!(
            Target::from_value(&json!({"name": "("})),
            Err(TargetError::Regex { field: "name", .. })
        ));
        assert!(Target::of(&crd).matches(&crd));
    }
}
