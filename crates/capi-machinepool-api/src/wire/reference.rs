//! `corev1.ObjectReference` in Go's field order, empty strings left out (every field is
//! `omitempty`).

use k8s_openapi::api::core::v1::ObjectReference;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use super::meta::{Each, non_empty_str};

/// Serializes a k8s-openapi [`ObjectReference`] as Go's `corev1.ObjectReference` marshals:
/// `kind, namespace, name, uid, apiVersion, resourceVersion, fieldPath`, empty ones omitted.
///
/// ```
/// use capi_machinepool_api::k8s_openapi::api::core::v1::ObjectReference;
/// use capi_machinepool_api::wire::GoObjectReference;
/// let r = ObjectReference { api_version: Some("v1".into()), kind: Some("Node".into()),
///     name: Some("n1".into()), namespace: Some("".into()), ..Default::default() };
/// assert_eq!(serde_json::to_string(&GoObjectReference(&r)).unwrap(),
///            r#"{"kind":"Node","name":"n1","apiVersion":"v1"}"#);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct GoObjectReference<'a>(pub &'a ObjectReference);

impl Serialize for GoObjectReference<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in [
            ("kind", &r.kind),
            ("namespace", &r.namespace),
            ("name", &r.name),
            ("uid", &r.uid),
            ("apiVersion", &r.api_version),
            ("resourceVersion", &r.resource_version),
            ("fieldPath", &r.field_path),
        ] {
            if let Some(v) = non_empty_str(value.as_ref()) {
                map.serialize_entry(key, v)?;
            }
        }
        map.end()
    }
}

/// `serialize_with` for a value `ObjectReference` field.
pub(crate) fn serialize<S: Serializer>(
    r: &ObjectReference,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    GoObjectReference(r).serialize(serializer)
}

/// `serialize_with` for a pointer `ObjectReference` field (`skip_serializing_if` handles `None`).
pub(crate) fn serialize_option<S: Serializer>(
    r: &Option<ObjectReference>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match r {
        Some(r) => GoObjectReference(r).serialize(serializer),
        None => serializer.serialize_none(),
    }
}

/// `serialize_with` for a list of references (`skip_serializing_if` handles empty lists).
pub(crate) fn serialize_list<S: Serializer>(
    list: &Option<Vec<ObjectReference>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    Each(list.as_deref().unwrap_or_default(), GoObjectReference).serialize(serializer)
}
