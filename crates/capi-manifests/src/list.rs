//! `List` and `<Kind>List` documents (`kubectl get ... -o yaml`) read as kubectl reads them:
//! one object per item.
//!
//! kubectl decodes a document that has an `items` field as a list (apimachinery,
//! `unstructuredJSONScheme.decode`, which looks for `items` before anything else) and then
//! works on each item. Items of a typed list (`MachinePoolList` from the API server) carry no
//! `apiVersion` and `kind`; apimachinery's `decodeToList` gives such an item the list's
//! `apiVersion` and the list's kind without its `List` suffix, and only when both are missing.
//!
//! ```
//! use capi_manifests::{Document, Source, list::expand};
//! let list = serde_json::json!({
//!     "apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePoolList",
//!     "items": [{"metadata": {"name": "a"}}, {"kind": "Secret", "apiVersion": "v1"}]
//! });
//! let items = expand(Document::new(Source::new("l.yaml", 0, 1), list)).unwrap();
//! assert_eq!(items[0].value["kind"], "MachinePool");
//! assert_eq!(items[1].source.to_string(), "l.yaml#0.items[1]");
//! ```

use serde_json::Value;

use crate::{Document, ManifestError, Source};

/// Whether kubectl reads `value` as a list: a mapping with an `items` field that is not `null`.
#[must_use]
pub fn is_list(value: &Value) -> bool {
    value.get("items").is_some_and(|items| !items.is_null())
}

/// Gives an item of a typed list the type of the list (see the module docs).
fn typed(item: &mut Value, list_api_version: &Value, list_kind: &str) {
    let Some(object) = item.as_object_mut() else {
        return;
    };
    let missing = |v: Option<&Value>| v.and_then(Value::as_str).is_none_or(str::is_empty);
    if missing(object.get("kind")) && missing(object.get("apiVersion")) {
        let kind = list_kind.strip_suffix("List").unwrap_or(list_kind);
        object.insert("kind".to_owned(), Value::String(kind.to_owned()));
        object.insert("apiVersion".to_owned(), list_api_version.clone());
    }
}

/// The items of a list document, each with its source (`file#document.items[i]`); any other
/// document as it is.
///
/// # Errors
/// `items` is not a sequence, or an item is not a mapping (kubectl fails on both).
pub fn expand(doc: Document) -> Result<Vec<Document>, ManifestError> {
    let Document {
        source,
        mut value,
        caveats,
    } = doc;
    if !is_list(&value) {
        return Ok(vec![Document {
            source,
            value,
            caveats,
        }]);
    }
    let list_kind = value["kind"].as_str().unwrap_or_default().to_owned();
    let list_api_version = value["apiVersion"].clone();
    let Some(Value::Array(items)) = value.get_mut("items").map(Value::take) else {
        return Err(ManifestError::BadList {
            document: source,
            message: "items is not a sequence (kubectl reads a document with items as a List)"
                .to_owned(),
        });
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, mut item) in items.into_iter().enumerate() {
        let item_source = source.with_item(i);
        if !item.is_object() {
            return Err(ManifestError::BadList {
                document: item_source,
                message: "an item that is not a mapping (kubectl cannot decode it)".to_owned(),
            });
        }
        typed(&mut item, &list_api_version, &list_kind);
        out.push(Document {
            source: item_source,
            value: item,
            caveats: caveats.clone(),
        });
    }
    Ok(out)
}

/// Like [`expand`] for a value and its source (standard input and other streams).
///
/// # Errors
/// See [`expand`].
pub fn items(source: &Source, value: Value) -> Result<Vec<(Source, Value)>, ManifestError> {
    Ok(expand(Document::new(source.clone(), value))?
        .into_iter()
        .map(|d| (d.source, d.value))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn src() -> Source {
        Source::new("f.yaml", 2, 7)
    }

    #[test]
    fn an_item_with_one_of_kind_and_api_version_keeps_what_it_has() {
        // decodeToList sets both only `if len(GetKind()) == 0 && len(GetAPIVersion()) == 0`.
        let list = json!({"apiVersion": "v1", "kind": "NodeList", "items": [{"kind": "Node"}]});
        let out = items(&src(), list).unwrap();
        assert_eq!(out[0].1, json!({"kind": "Node"}));
    }

    #[test]
    fn a_plain_list_gives_items_no_type() {
        let list = json!({"apiVersion": "v1", "kind": "List", "items": [{"metadata": {}}]});
        let out = items(&src(), list).unwrap();
        assert_eq!(out[0].1["kind"], "");
        assert_eq!(out[0].0.to_string(), "f.yaml#2.items[0]");
        assert_eq!(out[0].0.line, 7);
    }

    #[test]
    fn an_empty_list_has_no_items_and_a_null_items_is_no_list() {
        assert!(
            items(&src(), json!({"kind": "List", "items": []}))
                .unwrap()
                .is_empty()
        );
        let not = json!({"kind": "ConfigMap", "items": null});
        assert_eq!(items(&src(), not.clone()).unwrap(), vec![(src(), not)]);
    }

    #[test]
    fn items_that_are_not_a_sequence_of_mappings_are_errors() {
        assert!(items(&src(), json!({"kind": "List", "items": {"a": 1}})).is_err());
        let err = items(&src(), json!({"kind": "List", "items": [{}, 3]})).unwrap_err();
        assert!(err.to_string().starts_with("f.yaml#2.items[1]"), "{err}");
    }
}
