//! Lossless spokes: the author writes the field mappings, the conversion-data annotation is
//! handled here.
//!
//! This is what upstream's `util/conversion` gives a Go provider: `ConvertFrom` (hub ->
//! spoke) maps the fields and calls `MarshalData(hub, spoke)`; `ConvertTo` (spoke -> hub)
//! maps the fields, then `UnmarshalData(spoke, restored)` and copies from `restored` what the
//! spoke could not hold. A type implementing [`LosslessSpoke`] is a [`Spoke`] with exactly
//! those steps; it registers with [`crate::HubSpokeConverter::with_spoke`] like any spoke.

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
