//! `metav1.ObjectMeta` (with its owner references and managed fields) in Go's field order and
//! with Go's `omitempty` / `omitzero` decisions.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{
    ManagedFieldsEntry, ObjectMeta, OwnerReference,
};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use super::time::{GoTime, is_zero};

/// A `Some` value that is not empty (Go's `omitempty` for strings, maps and slices).
pub(crate) fn non_empty_str(value: Option<&String>) -> Option<&String> {
    value.filter(|s| !s.is_empty())
}

/// Serializes a k8s-openapi [`ObjectMeta`] exactly as Go's `metav1.ObjectMeta` marshals:
/// Go's field order, empty strings, maps and lists and a zero `generation` left out,
/// `creationTimestamp` left out when unset (`omitzero`).
///
/// ```
/// use capi_machinepool_api::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
/// use capi_machinepool_api::wire::GoObjectMeta;
/// let meta = ObjectMeta { name: Some("a".into()), namespace: Some("".into()), generation: Some(0),
///     labels: Some(Default::default()), uid: Some("u".into()), ..Default::default() };
/// assert_eq!(serde_json::to_string(&GoObjectMeta(&meta)).unwrap(), r#"{"name":"a","uid":"u"}"#);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct GoObjectMeta<'a>(pub &'a ObjectMeta);

impl Serialize for GoObjectMeta<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let m = self.0;
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in [
            ("name", &m.name),
            ("generateName", &m.generate_name),
            ("namespace", &m.namespace),
            ("selfLink", &m.self_link),
            ("uid", &m.uid),
            ("resourceVersion", &m.resource_version),
        ] {
            if let Some(v) = non_empty_str(value.as_ref()) {
                map.serialize_entry(key, v)?;
            }
        }
        if let Some(g) = m.generation.filter(|g| *g != 0) {
            map.serialize_entry("generation", &g)?;
        }
        if let Some(t) = m.creation_timestamp.as_ref().filter(|t| !is_zero(t)) {
            map.serialize_entry("creationTimestamp", &GoTime(t))?;
        }
        if let Some(t) = &m.deletion_timestamp {
            map.serialize_entry("deletionTimestamp", &GoTime(t))?;
        }
        if let Some(s) = m.deletion_grace_period_seconds {
            map.serialize_entry("deletionGracePeriodSeconds", &s)?;
        }
        if let Some(l) = m.labels.as_ref().filter(|l| !l.is_empty()) {
            map.serialize_entry("labels", l)?;
        }
        if let Some(a) = m.annotations.as_ref().filter(|a| !a.is_empty()) {
            map.serialize_entry("annotations", a)?;
        }
        if let Some(o) = m.owner_references.as_ref().filter(|o| !o.is_empty()) {
            map.serialize_entry("ownerReferences", &Each(o, GoOwnerReference))?;
        }
        if let Some(f) = m.finalizers.as_ref().filter(|f| !f.is_empty()) {
            map.serialize_entry("finalizers", f)?;
        }
        if let Some(f) = m.managed_fields.as_ref().filter(|f| !f.is_empty()) {
            map.serialize_entry("managedFields", &Each(f, GoManagedFieldsEntry))?;
        }
        map.end()
    }
}

/// A slice serialized item by item through a wrapper.
pub(crate) struct Each<'a, T, W>(pub(crate) &'a [T], pub(crate) fn(&'a T) -> W);

impl<'a, T, W: Serialize> Serialize for Each<'a, T, W> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for item in self.0 {
            seq.serialize_element(&(self.1)(item))?;
        }
        seq.end()
    }
}

struct GoOwnerReference<'a>(&'a OwnerReference);

impl Serialize for GoOwnerReference<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let o = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("apiVersion", &o.api_version)?;
        map.serialize_entry("kind", &o.kind)?;
        map.serialize_entry("name", &o.name)?;
        map.serialize_entry("uid", &o.uid)?;
        if let Some(c) = o.controller {
            map.serialize_entry("controller", &c)?;
        }
        if let Some(b) = o.block_owner_deletion {
            map.serialize_entry("blockOwnerDeletion", &b)?;
        }
        map.end()
    }
}

struct GoManagedFieldsEntry<'a>(&'a ManagedFieldsEntry);

impl Serialize for GoManagedFieldsEntry<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let e = self.0;
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in [
            ("manager", &e.manager),
            ("operation", &e.operation),
            ("apiVersion", &e.api_version),
        ] {
            if let Some(v) = non_empty_str(value.as_ref()) {
                map.serialize_entry(key, v)?;
            }
        }
        if let Some(t) = &e.time {
            map.serialize_entry("time", &GoTime(t))?;
        }
        if let Some(v) = non_empty_str(e.fields_type.as_ref()) {
            map.serialize_entry("fieldsType", v)?;
        }
        if let Some(f) = &e.fields_v1 {
            map.serialize_entry("fieldsV1", &f.0)?;
        }
        if let Some(v) = non_empty_str(e.subresource.as_ref()) {
            map.serialize_entry("subresource", v)?;
        }
        map.end()
    }
}
