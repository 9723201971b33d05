//! Lossless MachinePool conversion between `cluster.x-k8s.io/v1beta1` and `v1beta2`, and a
//! generic `ConversionReview` handler.
//!
//! * [`machine_pool`]: the field-by-field conversion upstream Cluster API performs, including
//!   the `cluster.x-k8s.io/conversion-data` annotation ([`conversion_data`]). The output is
//!   byte-for-byte what upstream's Go webhook writes. In a cluster, Cluster API's core
//!   serves MachinePool conversion (its CRD points at core's webhook); this conversion is for
//!   tools, tests and migrations, and a provider's webhook does not serve it.
//! * [`Hub`] / [`Spoke`] / [`HubSpokeConverter`]: hub-and-spoke conversion, generic over the
//!   types. A provider's webhook converts its own kinds with it: [`LosslessSpoke`] is
//!   upstream's `Convertible` + `MarshalData` / `UnmarshalData` pattern, so the provider writes
//!   only its field mappings (recipe: `docs/provider-webhook.md`). [`ConverterSet`] serves
//!   several kinds from one webhook. Converters are `Send + Sync` and live in a server's
//!   shared state.
//! * [`review::handle_bytes`]: `ConversionReview` in, `ConversionReview` out; pure and
//!   synchronous, no I/O.
//! * [`ApiVersionResolver`]: the GroupKind -> apiVersion lookup down-conversion needs, from
//!   CRD contract labels ([`CrdResolver`]), a fixed map ([`StaticResolver`]) or both
//!   ([`ChainResolver`]).
//!
//! ```
//! use capi_machinepool_conversion::{ObjectConverter, StaticResolver, machine_pool_converter};
//! let converter = machine_pool_converter(StaticResolver::new()
//!     .with("infrastructure.cluster.x-k8s.io", "DockerMachinePool", "infrastructure.cluster.x-k8s.io/v1beta2")
//!     .with("bootstrap.cluster.x-k8s.io", "KubeadmConfig", "bootstrap.cluster.x-k8s.io/v1beta2"));
//! let hub = serde_json::json!({
//!   "apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
//!   "metadata": {"name": "mp", "namespace": "default"},
//!   "spec": {"clusterName": "c", "template": {"spec": {"clusterName": "c", "minReadySeconds": 5,
//!     "bootstrap": {"configRef": {"apiGroup": "bootstrap.cluster.x-k8s.io", "kind": "KubeadmConfig", "name": "k"}},
//!     "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DockerMachinePool", "name": "d"}}}}
//! });
//! let spoke = converter.convert_value(&hub, "cluster.x-k8s.io/v1beta1").unwrap();
//! assert_eq!(spoke["spec"]["minReadySeconds"], 5);
//! assert_eq!(spoke["spec"]["template"]["spec"]["infrastructureRef"]["apiVersion"], "infrastructure.cluster.x-k8s.io/v1beta2");
//! let back = converter.convert_value(&spoke, "cluster.x-k8s.io/v1beta2").unwrap();
//! assert_eq!(back["spec"], hub["spec"]);
//! ```
#![deny(missing_docs)]

pub mod conversion_data;
mod converter;
mod error;
mod json_cursor;
mod lossless;
pub mod machine_pool;
mod resolver;
pub mod review;

pub use converter::{
    ConverterSet, Hub, HubSpokeConverter, ObjectConverter, Spoke, TypeMetaRef,
    VALUE_PATH_MAX_DEPTH, nests_deeper_than,
};
pub use error::{ConversionError, ResolveError};
pub use lossless::{
    LosslessSpoke, recover_bool, recover_i32, recover_i64, recover_zero, restore_list_by_key,
};
pub use resolver::{
    ApiVersionResolver, ChainResolver, CrdResolver, MapEntryError, StaticResolver,
    api_version_from_crd_labels,
};

/// Re-export of kube-core's ConversionReview types.
pub use kube_core::conversion;

use capi_machinepool_api::{v1beta1, v1beta2};

/// The MachinePool converter: hub v1beta2, spoke v1beta1.
#[must_use]
pub fn machine_pool_converter(
    resolver: impl ApiVersionResolver + 'static,
) -> HubSpokeConverter<v1beta2::MachinePool> {
    HubSpokeConverter::new(resolver).with_spoke::<v1beta1::MachinePool>()
}
