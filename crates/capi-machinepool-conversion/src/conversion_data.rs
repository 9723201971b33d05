//! The `cluster.x-k8s.io/conversion-data` annotation: the hub object, without metadata, stored
//! on a down-converted object so that the next up-conversion can restore what the spoke
//! cannot represent (upstream's `util/conversion` `MarshalData` / `UnmarshalData`).
//!
//! [`unmarshal`] reads every text upstream writes, into any hub type, kube-derive root types
//! included: `MarshalDataUnsafeNoCopy`'s (Go field order, the empty `"metadata":{},` cut out),
//! `MarshalData`'s (keys sorted, no `metadata` at all) and a hub whose zero `spec` Go left out
//! (`json:"spec,omitzero"`).

use std::collections::BTreeMap;

use capi_machinepool_api::constants::CONVERSION_DATA_ANNOTATION;
use capi_machinepool_api::wire;
use kube_core::ObjectMeta;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::ConversionError;

/// Serializes `hub` with its metadata cleared and stores it in `dst_meta`'s annotations
/// (created if needed, other annotations kept, an existing value overwritten).
///
/// The text is what upstream's `MarshalDataUnsafeNoCopy` writes, byte for byte: Go's JSON
/// (field order, `omitempty`, HTML-safe escaping, see [`wire`]) with the first
/// `"metadata":{},` removed.
///
/// # Errors
/// When `hub` cannot be serialized.
pub fn marshal<H: Serialize + Clone + kube_core::Resource>(
    hub: &H,
    dst_meta: &mut ObjectMeta,
) -> Result<(), ConversionError> {
    let mut copy = hub.clone();
    *copy.meta_mut() = ObjectMeta::default();
    store(&copy, dst_meta)
}

/// [`marshal`] of a hub whose metadata is already empty (upstream's
/// `MarshalDataUnsafeNoCopy`, which clears the source's metadata instead of copying it).
pub(crate) fn store<H: Serialize>(
    hub_without_metadata: &H,
    dst_meta: &mut ObjectMeta,
) -> Result<(), ConversionError> {
    // The first `"metadata":{},` is cut in place (no second copy of a large text).
    const EMPTY_METADATA: &str = "\"metadata\":{},";
    let mut data = wire::to_string(hub_without_metadata).map_err(ConversionError::Encode)?;
    if let Some(at) = data.find(EMPTY_METADATA) {
        data.replace_range(at..at + EMPTY_METADATA.len(), "");
    }
    dst_meta
        .annotations
        .get_or_insert_with(BTreeMap::new)
        .insert(CONVERSION_DATA_ANNOTATION.to_owned(), data);
    Ok(())
}

/// Reads the annotation from `src_meta` into a hub value and removes it (an annotations map
/// left empty becomes `None`). `Ok(None)` when the annotation is absent, or when its value is
/// the JSON `null`: upstream decodes `null` into an empty hub and restores nothing from it.
///
/// The hub's root members that upstream's texts leave out, `metadata` (always cut) and
/// `spec` (left out by Go when zero), are read as `{}` when the hub type requires them, as a
/// `#[derive(CustomResource)]` root does ([`decode`]).
///
/// # Errors
/// When the annotation does not decode as the hub type; the whole conversion then fails.
pub fn unmarshal<H: DeserializeOwned>(
    src_meta: &mut ObjectMeta,
) -> Result<Option<H>, ConversionError> {
    let Some(annotations) = src_meta.annotations.as_mut() else {
        return Ok(None);
    };
    let Some(data) = annotations.get(CONVERSION_DATA_ANNOTATION) else {
        return Ok(None);
    };
    let restored = decode::<H>(data).map_err(ConversionError::ConversionData)?;
    annotations.remove(CONVERSION_DATA_ANNOTATION);
    if annotations.is_empty() {
        src_meta.annotations = None;
    }
    Ok(restored)
}

/// Root members a conversion-data text, or an object the API server sends, may lack although
/// the type requires them.
const OMITTED_ROOT_MEMBERS: [&str; 2] = ["metadata", "spec"];

/// Decodes a conversion-data text into a hub value (`None` for `null`), with
/// [`decode_root`]'s rule for `metadata` and `spec`.
///
/// # Errors
/// When the text is not the hub's JSON.
///
/// ```
/// use capi_machinepool_conversion::conversion_data::decode;
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Hub { metadata: kube_core::ObjectMeta, spec: Spec }
/// #[derive(serde::Deserialize, Debug, PartialEq, Default)]
/// struct Spec { #[serde(default)] size: i32 }
/// let hub: Option<Hub> = decode(r#"{"spec":{"size":3}}"#).unwrap();
/// assert_eq!(hub.unwrap().spec.size, 3);
/// let zero: Option<Hub> = decode(r#"{"kind":"Foo"}"#).unwrap();
/// assert_eq!(zero.unwrap().spec, Spec::default());
/// assert!(decode::<Hub>("null").unwrap().is_none());
/// ```
pub fn decode<H: DeserializeOwned>(data: &str) -> Result<Option<H>, serde_json::Error> {
    if let Some(merged) = duplicate_keys::merged(data) {
        return decode(&merged);
    }
    match serde_json::from_str::<Option<H>>(data) {
        Ok(hub) => Ok(hub),
        Err(first) => match without_type_meta(data) {
            // Decoded again without the TypeMeta strings, which then cannot fail the decode.
            Some(text) => decode(&text),
            None => decode_with_omitted_members(data, first).map(Some),
        },
    }
}

/// The text without its root `apiVersion` and `kind` when either is a string (`None` when
/// the text is not an object or has no such string).
///
/// Upstream's `UnmarshalData` (`util/conversion/conversion.go`, line 121 at Cluster API
/// ae7ff047) is a plain JSON decode into the hub: the annotation's TypeMeta is read into the
/// hub's `TypeMeta` and never checked, so a text naming another kind (or another version)
/// restores its `spec` and `status` all the same; the conversion then sets the hub's own
/// TypeMeta. A root type that checks its TypeMeta (as the MachinePool types do for objects
/// the API server sends) would fail the whole conversion instead, so the strings are left out
/// here. A TypeMeta of another JSON type (a number, say) still fails, as in Go.
fn without_type_meta(data: &str) -> Option<String> {
    // Raw member values: everything else is decoded from its own bytes afterwards.
    let mut object: BTreeMap<String, Box<RawValue>> = serde_json::from_str(data).ok()?;
    let mut removed = false;
    for member in ["apiVersion", "kind"] {
        if object
            .get(member)
            .is_some_and(|v| v.get().trim_start().starts_with('"'))
        {
            object.remove(member);
            removed = true;
        }
    }
    if !removed {
        return None;
    }
    serde_json::to_string(&object).ok()
}

/// Decodes an object's JSON text into `T`, reading a missing `metadata` or `spec` as `{}`
/// when `T` requires them (a `#[derive(CustomResource)]` root does): upstream's marshal cuts
/// `metadata` from conversion data, Go leaves out a zero `spec` (`json:"spec,omitzero"`), and
/// the API server sends objects without `spec` (upstream's `FuzzTestFunc` tests that
/// `ConvertTo` handles them).
///
/// The text is decoded as it is first (the MachinePool types' members all have defaults, so
/// their one decode is unchanged). Only when that fails and the text is an object without
/// `metadata` or `spec` is it decoded again with the missing ones as `{}`; a failure then is
/// the second decode's (the text's own problem, not the missing member).
///
/// # Errors
/// When the text is not `T`'s JSON.
pub fn decode_root<T: DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    match serde_json::from_str::<T>(text) {
        Ok(value) => Ok(value),
        Err(first) => decode_with_omitted_members(text, first),
    }
}

/// [`decode_root`] of an object already parsed into a `Value` (read in place; copied only
/// for the second decode, when a member is missing).
///
/// # Errors
/// When the value is not `T`'s JSON.
pub(crate) fn decode_root_value<T: DeserializeOwned>(
    value: &Value,
) -> Result<T, serde_json::Error> {
    match T::deserialize(value) {
        Ok(decoded) => Ok(decoded),
        Err(first) => match value {
            Value::Object(object) => decode_object_with_omitted_members(object.clone(), first),
            _ => Err(first),
        },
    }
}

/// The second decode of [`decode_root`], after `first` failed: with the missing
/// [`OMITTED_ROOT_MEMBERS`] as `{}`, or `first` when none is missing.
fn decode_with_omitted_members<T: DeserializeOwned>(
    text: &str,
    first: serde_json::Error,
) -> Result<T, serde_json::Error> {
    match serde_json::from_str::<Map<String, Value>>(text) {
        Ok(object) => decode_object_with_omitted_members(object, first),
        Err(_) => Err(first),
    }
}

/// [`decode_with_omitted_members`] of the parsed object.
fn decode_object_with_omitted_members<T: DeserializeOwned>(
    mut object: Map<String, Value>,
    first: serde_json::Error,
) -> Result<T, serde_json::Error> {
    if !add_omitted_members(&mut object) {
        return Err(first);
    }
    T::deserialize(Value::Object(object))
}

/// Adds `{}` for each of [`OMITTED_ROOT_MEMBERS`] the object lacks; whether it added one.
fn add_omitted_members(object: &mut Map<String, Value>) -> bool {
    let mut added = false;
    for member in OMITTED_ROOT_MEMBERS {
        if !object.contains_key(member) {
            object.insert(member.to_owned(), Value::Object(Map::new()));
            added = true;
        }
    }
    added
}

mod duplicate_keys;

#[cfg(test)]
mod tests {
    use super::*;
    use capi_machinepool_api::v1beta2;

    fn meta_with(text: &str) -> ObjectMeta {
        ObjectMeta {
            annotations: Some(BTreeMap::from([(
                CONVERSION_DATA_ANNOTATION.to_owned(),
                text.to_owned(),
            )])),
            ..ObjectMeta::default()
        }
    }

    /// [`marshal`] (public; the MachinePool converter prints through [`store`] from a hub it
    /// owns) writes the hub without its metadata (Go's TypeMeta order, kind first, then
    /// `spec`) and keeps the other annotations.
    #[test]
    fn marshal_writes_the_hub_without_its_metadata() {
        let hub: v1beta2::MachinePool = serde_saphyr::from_str(include_str!(
            "../../../tests/fixtures/conversion/v1beta2-every-field.yaml"
        ))
        .unwrap();
        assert!(hub.metadata.name.is_some());
        let mut meta = ObjectMeta {
            annotations: Some(BTreeMap::from([("keep".to_owned(), "me".to_owned())])),
            ..ObjectMeta::default()
        };
        marshal(&hub, &mut meta).unwrap();
        let annotations = meta.annotations.unwrap();
        assert_eq!(annotations["keep"], "me");
        let text = &annotations[CONVERSION_DATA_ANNOTATION];
        assert!(
            text.starts_with(
                r#"{"kind":"MachinePool","apiVersion":"cluster.x-k8s.io/v1beta2","spec":{"#
            ),
            "{text}"
        );
        let mut cleared = hub;
        cleared.metadata = ObjectMeta::default();
        assert_eq!(decode::<v1beta2::MachinePool>(text).unwrap(), Some(cleared));
    }

    /// Upstream's `UnmarshalData` (cluster-api ae7ff047, `util/conversion/conversion.go` line
    /// 121: `json.Unmarshal([]byte(data), to)`) never checks the text's TypeMeta; the Go
    /// oracle restores `status.replicas: 2` from this text (`upstream_oracle.rs`).
    #[test]
    fn another_kinds_type_meta_is_not_checked() {
        let mut meta = meta_with(r#"{"apiVersion":"v1","kind":"Pod","status":{"replicas":2}}"#);
        let restored = unmarshal::<v1beta2::MachinePool>(&mut meta)
            .unwrap()
            .unwrap();
        assert_eq!(restored.status.replicas, Some(2));
        assert_eq!(meta.annotations, None);
    }

    /// The same decode rejects a TypeMeta that is not a string ("cannot unmarshal number into
    /// Go struct field MachinePool.TypeMeta.apiVersion of type string", the oracle's answer).
    #[test]
    fn a_type_meta_that_is_not_a_string_still_fails() {
        let mut meta = meta_with(r#"{"apiVersion":7,"status":{"replicas":1}}"#);
        assert!(unmarshal::<v1beta2::MachinePool>(&mut meta).is_err());
        assert!(meta.annotations.is_some(), "left in place on failure");
    }

    /// Go decodes a duplicated `status` into one struct: the Go oracle's `unmarshal-data`
    /// restores `replicas: 3` *and* `readyReplicas: 1` (encoding/json semantics, as
    /// `sigs.k8s.io/json` keeps them); the later value used to replace the earlier one here.
    #[test]
    fn duplicate_keys_merge_as_go_decodes_them() {
        let mut meta = meta_with(r#"{"status":{"replicas":3},"status":{"readyReplicas":1}}"#);
        let restored = unmarshal::<v1beta2::MachinePool>(&mut meta)
            .unwrap()
            .unwrap();
        assert_eq!(restored.status.replicas, Some(3));
        assert_eq!(restored.status.ready_replicas, Some(1));
        assert_eq!(meta.annotations, None);
    }

    /// Go's decode is case-sensitive (`k8s.io/apimachinery/pkg/util/json`, imported at
    /// `util/conversion/conversion.go` line 21, decodes with `sigs.k8s.io/json`'s
    /// case-sensitive `UnmarshalCaseSensitivePreserveInts`, unlike plain `encoding/json`):
    /// `Status` is an unknown key, so nothing is restored and the annotation is consumed (the
    /// live oracle answers `found: true` with an empty object, `upstream_oracle.rs`
    /// `conversion_data_is_read_as_upstream_reads_it`).
    #[test]
    fn capitalised_keys_are_unknown_keys() {
        let mut meta = meta_with(r#"{"Status":{"replicas":3}}"#);
        let restored = unmarshal::<v1beta2::MachinePool>(&mut meta)
            .unwrap()
            .unwrap();
        assert_eq!(restored, v1beta2::MachinePool::default());
        assert_eq!(meta.annotations, None);
    }
}
