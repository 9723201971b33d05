//! Lossless spokes: the author writes the field mappings, the conversion-data annotation is
//! handled here.
//!
//! This is what upstream's `util/conversion` gives a Go provider: `ConvertFrom` (hub ->
//! spoke) maps the fields and calls `MarshalData(hub, spoke)`; `ConvertTo` (spoke -> hub)
//! maps the fields, then `UnmarshalData(spoke, restored)` and copies from `restored` what the
//! spoke could not hold. A type implementing [`LosslessSpoke`] is a [`Spoke`] with exactly
//! those steps; it registers with [`crate::HubSpokeConverter::with_spoke`] like any spoke.
//!
//! The restore helpers are for the shapes a spoke loses, in [`LosslessSpoke::restore`]:
//!
//! * a hub `Option<T>` held by a spoke as a plain `T` (`bool`, integers, a struct): the
//!   zero value is ambiguous, [`recover_zero`] (and [`recover_bool`], [`recover_i32`],
//!   [`recover_i64`]) takes the hub's earlier value to tell "set to zero" from "unset", as
//!   upstream's `Convert_bool_To_Pointer_bool` and `Convert_int32_To_Pointer_int32` do;
//! * a list whose items have fields the spoke lacks: [`restore_list_by_key`] restores each
//!   item from the saved item with the same key.

use kube_core::{ObjectMeta, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::{ApiVersionResolver, ConversionError, Hub, Spoke, conversion_data};

/// A spoke version whose conversion through the hub `H` loses nothing: what the spoke cannot
/// represent travels in the `cluster.x-k8s.io/conversion-data` annotation.
///
/// Metadata is moved by the conversion, never by the mappings: whatever `metadata` the
/// mappings return is replaced by the source's (less the annotation on the way up, plus it
/// on the way down).
///
/// ```
/// use capi_machinepool_conversion::{ApiVersionResolver, ConversionError, Hub, LosslessSpoke};
/// use capi_machinepool_conversion::{HubSpokeConverter, ObjectConverter, StaticResolver};
/// use kube::CustomResource;
///
/// mod v2 {
///     #[derive(kube::CustomResource, Clone, Debug, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
///     #[kube(group = "example.com", version = "v2", kind = "Pool", namespaced)]
///     pub struct PoolSpec { pub size: i32, pub zone: String }
/// }
/// mod v1 {
///     #[derive(kube::CustomResource, Clone, Debug, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
///     #[kube(group = "example.com", version = "v1", kind = "Pool", namespaced)]
///     pub struct PoolSpec { pub size: i32 }
/// }
///
/// impl Hub for v2::Pool {}
///
/// impl LosslessSpoke<v2::Pool> for v1::Pool {
///     fn to_hub_fields(self, _: &dyn ApiVersionResolver) -> Result<v2::Pool, ConversionError> {
///         Ok(v2::Pool::new("", v2::PoolSpec { size: self.spec.size, zone: String::new() }))
///     }
///     fn from_hub_fields(hub: &v2::Pool, _: &dyn ApiVersionResolver) -> Result<Self, ConversionError> {
///         Ok(v1::Pool::new("", v1::PoolSpec { size: hub.spec.size }))
///     }
///     fn restore(hub: &mut v2::Pool, saved: v2::Pool) {
///         hub.spec.zone = saved.spec.zone; // the one field v1 lacks
///     }
/// }
///
/// let converter = HubSpokeConverter::<v2::Pool>::new(StaticResolver::new()).with_spoke::<v1::Pool>();
/// let hub = serde_json::json!({"apiVersion": "example.com/v2", "kind": "Pool",
///     "metadata": {"name": "p"}, "spec": {"size": 3, "zone": "eu-1"}});
/// let old = converter.convert_value(&hub, "example.com/v1").unwrap();
/// assert_eq!(old["metadata"]["annotations"]["cluster.x-k8s.io/conversion-data"],
///     r#"{"apiVersion":"example.com/v2","kind":"Pool","spec":{"size":3,"zone":"eu-1"}}"#);
/// let back = converter.convert_value(&old, "example.com/v2").unwrap();
/// assert_eq!(back, hub);
/// ```
pub trait LosslessSpoke<H: Hub>:
    Serialize + DeserializeOwned + Resource<DynamicType = ()> + Send + Sync + Sized
{
    /// Spoke fields -> hub fields (upstream's generated `Convert_<spoke>_To_<hub>`).
    ///
    /// # Errors
    /// When a field cannot be represented in the hub.
    fn to_hub_fields(self, resolver: &dyn ApiVersionResolver) -> Result<H, ConversionError>;

    /// Hub fields -> spoke fields (upstream's generated `Convert_<hub>_To_<spoke>`). `hub`
    /// has empty metadata here.
    ///
    /// # Errors
    /// When a field cannot be represented in the spoke (e.g. an unresolvable reference).
    fn from_hub_fields(hub: &H, resolver: &dyn ApiVersionResolver)
    -> Result<Self, ConversionError>;

    /// Copies from `saved`, the hub as it was when it was down-converted, what the spoke
    /// could not hold into `hub`, the hub just mapped from the spoke. Called only when the
    /// spoke carried the annotation. Read no metadata from `saved`: it is empty in the
    /// texts this crate and upstream's current marshal write, and `hub` already has the
    /// spoke's.
    fn restore(hub: &mut H, saved: H);
}

/// Every [`LosslessSpoke`] is a [`Spoke`].
impl<H: Hub, S: LosslessSpoke<H>> Spoke<H> for S {
    fn to_hub(mut self, resolver: &dyn ApiVersionResolver) -> Result<H, ConversionError> {
        let saved: Option<H> = conversion_data::unmarshal(self.meta_mut())?;
        let metadata = std::mem::take(self.meta_mut());
        let mut hub = self.to_hub_fields(resolver)?;
        *hub.meta_mut() = metadata;
        if let Some(saved) = saved {
            S::restore(&mut hub, saved);
        }
        Ok(hub)
    }

    fn from_hub(mut hub: H, resolver: &dyn ApiVersionResolver) -> Result<Self, ConversionError> {
        let metadata: ObjectMeta = std::mem::take(hub.meta_mut());
        let mut spoke = S::from_hub_fields(&hub, resolver)?;
        *spoke.meta_mut() = metadata;
        conversion_data::store(&hub, spoke.meta_mut())?;
        Ok(spoke)
    }
}

/// Upstream's intent recovery for a hub `Option<T>` that a spoke holds as a plain `T`
/// (`Convert_bool_To_Pointer_bool`, `Convert_int32_To_Pointer_int32` in Cluster API's
/// `api/core/v1beta2/conversion.go`), for any type with a zero value (`Default`):
///
/// * a non-zero `value` is `Some(value)` (the spoke's value wins);
/// * a zero `value` is `Some(zero)` only when the hub saved in the conversion-data annotation
///   (`restored`: `None` when there was no annotation) held `Some(zero)`: it was set to zero
///   on purpose; else `None`.
///
/// ```
/// use capi_machinepool_conversion::recover_zero;
/// #[derive(Clone, Debug, Default, PartialEq)]
/// struct Limits { cpu: u32 }
/// assert_eq!(recover_zero(Limits { cpu: 2 }, None), Some(Limits { cpu: 2 }));
/// assert_eq!(recover_zero(Limits::default(), Some(Some(Limits::default()))), Some(Limits::default()));
/// assert_eq!(recover_zero(Limits::default(), Some(None)), None);
/// ```
#[must_use]
pub fn recover_zero<T: Default + PartialEq>(value: T, restored: Option<Option<T>>) -> Option<T> {
    let zero = T::default();
    if value != zero {
        Some(value)
    } else if restored.flatten().is_some_and(|r| r == zero) {
        Some(zero)
    } else {
        None
    }
}

/// [`recover_zero`] for a `bool` (upstream's `Convert_bool_To_Pointer_bool`): `true` is
/// `Some(true)`; `false` is `Some(false)` only when the saved hub held `Some(false)`.
#[must_use]
pub fn recover_bool(value: bool, restored: Option<Option<bool>>) -> Option<bool> {
    recover_zero(value, restored)
}

/// [`recover_zero`] for an `i32` such as `replicas` (upstream's
/// `Convert_int32_To_Pointer_int32`): `0` is `Some(0)` only when the saved hub held
/// `Some(0)`.
#[must_use]
pub fn recover_i32(value: i32, restored: Option<Option<i32>>) -> Option<i32> {
    recover_zero(value, restored)
}

/// [`recover_zero`] for an `i64`.
#[must_use]
pub fn recover_i64(value: i64, restored: Option<Option<i64>>) -> Option<i64> {
    recover_zero(value, restored)
}

/// Restores the items of a list the spoke holds with fewer fields: each item of `current`
/// (mapped from the spoke) whose `key` matches an item of `saved` (the hub's list from the
/// annotation) gets `restore(item, saved_item)`. Items only in `saved` were removed while
/// the object was at the spoke version and stay removed; items only in `current` were added
/// there and keep what the spoke gave them. With duplicate keys, the first saved item of a
/// key restores every current item of that key.
///
/// ```
/// use capi_machinepool_conversion::restore_list_by_key;
/// #[derive(Debug, PartialEq)]
/// struct Disk { name: &'static str, size: u32, iops: Option<u32> }
/// let mut current = vec![Disk { name: "root", size: 20, iops: None }, Disk { name: "new", size: 5, iops: None }];
/// let saved = vec![Disk { name: "root", size: 10, iops: Some(3000) }, Disk { name: "gone", size: 1, iops: Some(1) }];
/// restore_list_by_key(&mut current, saved, |d| d.name, |d, s| d.iops = s.iops);
/// assert_eq!(current, [Disk { name: "root", size: 20, iops: Some(3000) }, Disk { name: "new", size: 5, iops: None }]);
/// ```
pub fn restore_list_by_key<T, K: PartialEq>(
    current: &mut [T],
    saved: Vec<T>,
    key: impl Fn(&T) -> K,
    mut restore: impl FnMut(&mut T, &T),
) {
    for item in current.iter_mut() {
        let k = key(item);
        if let Some(s) = saved.iter().find(|s| key(s) == k) {
            restore(item, s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The truth table of upstream's `Convert_bool_To_Pointer_bool`
    /// (cluster-api ae7ff047 `api/core/v1beta2/conversion.go` lines 50-63: "convert to *false
    /// only if the value was *false before").
    #[test]
    fn bool_intent_recovery_truth_table() {
        let cases = [
            (true, None, Some(true)),
            (true, Some(None), Some(true)),
            (true, Some(Some(false)), Some(true)),
            (true, Some(Some(true)), Some(true)),
            (false, None, None),
            (false, Some(None), None),
            (false, Some(Some(false)), Some(false)),
            (false, Some(Some(true)), None),
        ];
        for (value, restored, want) in cases {
            assert_eq!(recover_bool(value, restored), want, "{value} {restored:?}");
        }
    }

    /// Upstream's `Convert_int32_To_Pointer_int32` (same file, lines 66-79: "convert to *0
    /// only if the value was *0 before"), over values around zero and the extremes.
    #[test]
    fn i32_intent_recovery_matches_upstream() {
        // Upstream's rule, written from its Go text: in != 0 -> &in; in == 0 -> &0 iff
        // hasRestored && restoredIn != nil && *restoredIn == 0, else nil.
        let upstream = |value: i32, restored: Option<Option<i32>>| -> Option<i32> {
            match (value, restored) {
                (0, Some(Some(0))) => Some(0),
                (0, _) => None,
                (v, _) => Some(v),
            }
        };
        let values = [i32::MIN, -1, 0, 1, 3, i32::MAX];
        let mut restored_cases = vec![None, Some(None)];
        restored_cases.extend(values.iter().map(|v| Some(Some(*v))));
        for value in values {
            for restored in &restored_cases {
                assert_eq!(recover_i32(value, *restored), upstream(value, *restored));
                let wide = restored.map(|r| r.map(i64::from));
                assert_eq!(
                    recover_i64(i64::from(value), wide),
                    upstream(value, *restored).map(i64::from)
                );
            }
        }
    }

    #[test]
    fn list_items_are_restored_by_key_and_removed_items_stay_removed() {
        let mut current = vec![("a", 1, None), ("b", 2, None), ("a", 3, None)];
        let saved = vec![
            ("c", 0, Some("c")),
            ("a", 9, Some("first")),
            ("a", 9, Some("second")),
        ];
        restore_list_by_key(&mut current, saved, |i| i.0, |i, s| i.2 = s.2);
        assert_eq!(
            current,
            [
                ("a", 1, Some("first")),
                ("b", 2, None),
                ("a", 3, Some("first"))
            ]
        );
    }
}
