//! The `cluster.x-k8s.io/conversion-data` annotation: the hub object, without metadata, stored
//! on a down-converted object so that the next up-conversion can restore what the spoke
//! cannot represent.

use std::collections::BTreeMap;

use capi_machinepool_api::constants::CONVERSION_DATA_ANNOTATION;
use capi_machinepool_api::wire;
use kube_core::ObjectMeta;
use serde::Serialize;
use serde::de::DeserializeOwned;

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
    let json = wire::to_string(&copy).map_err(ConversionError::Encode)?;
    let data = json.replacen("\"metadata\":{},", "", 1);
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
    let restored =
        serde_json::from_str::<Option<H>>(data).map_err(ConversionError::ConversionData)?;
    annotations.remove(CONVERSION_DATA_ANNOTATION);
    if annotations.is_empty() {
        src_meta.annotations = None;
    }
    Ok(restored)
}
