//! Reading the few fields the rollout verdicts need from an untyped manifest document.

use serde_json::Value;

/// The API group of an `apiVersion` (`""` for the core group, `v1`, and for an `apiVersion`
/// apimachinery refuses, which names no group a verdict looks for).
pub(crate) fn group_of(api_version: &str) -> &str {
    capi_versions::GroupVersion::group_of(api_version).unwrap_or_default()
}

/// The string at a JSON pointer, when there is one.
pub(crate) fn str_at<'a>(doc: &'a Value, pointer: &str) -> Option<&'a str> {
    doc.pointer(pointer).and_then(Value::as_str)
}

/// The string at a JSON pointer, owned; empty when absent.
pub(crate) fn string_at(doc: &Value, pointer: &str) -> String {
    str_at(doc, pointer).unwrap_or_default().to_owned()
}

/// `Kind ns/name`, or `Kind name` without a namespace: how findings name an object.
pub(crate) fn object_label(kind: &str, namespace: &str, name: &str) -> String {
    if namespace.is_empty() {
        format!("{kind} {name}")
    } else {
        format!("{kind} {namespace}/{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_and_strings() {
        assert_eq!(
            group_of("controlplane.cluster.x-k8s.io/v1beta2"),
            "controlplane.cluster.x-k8s.io"
        );
        assert_eq!(group_of("v1"), "");
        let doc = serde_json::json!({"metadata": {"name": "n", "generation": 1}});
        assert_eq!(str_at(&doc, "/metadata/name"), Some("n"));
        assert_eq!(str_at(&doc, "/metadata/generation"), None);
        assert_eq!(string_at(&doc, "/metadata/namespace"), "");
        assert_eq!(object_label("Cluster", "ns", "c"), "Cluster ns/c");
        assert_eq!(object_label("Cluster", "", "c"), "Cluster c");
    }
}
