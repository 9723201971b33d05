//! The multi-version `machinepools.cluster.x-k8s.io` CustomResourceDefinition: the merge of
//! each version's own CRD (`v1beta1::MachinePool::crd()`, `v1beta2::MachinePool::crd()`).

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;

pub use crate::crd_version::merge_crd_values;
use crate::schema::structural_schema_for;
use crate::{v1beta1, v1beta2};

/// The CRD as JSON: both versions (v1beta1 served and deprecated, v1beta2 served and storage),
/// status and scale subresources, printer columns, short name `mp`, category `cluster-api`,
/// with the OpenAPI v3 schemas generated from the Rust types; each version's
/// `crd_value()` merged by [`merge_crd_values`].
///
/// JSON keeps integers as integers (`minimum: 0`), which the typed
/// [`CustomResourceDefinition`] would turn into floats; print this form.
#[must_use]
pub fn machine_pool_crd_value() -> Value {
    #[allow(clippy::expect_used)]
    merge_crd_values(
        vec![
            v1beta1::MachinePool::crd_value(),
            v1beta2::MachinePool::crd_value(),
        ],
        crate::constants::V1BETA2,
    )
    .expect("both versions' CRDs have one version each, the same group, kind and scope")
}

/// The CRD as the typed k8s-openapi object (see [`machine_pool_crd_value`]).
///
/// ```
/// let crd = capi_machinepool_api::machine_pool_crd();
/// assert_eq!(crd.spec.versions.len(), 2);
/// assert!(crd.spec.versions[1].storage);
/// ```
#[must_use]
pub fn machine_pool_crd() -> CustomResourceDefinition {
    #[allow(clippy::expect_used)]
    serde_json::from_value(machine_pool_crd_value())
        .expect("the generated CRD is a valid CustomResourceDefinition (checked by tests)")
}

/// The `openAPIV3Schema` of one served version (`v1beta1` or `v1beta2`), if it exists.
#[must_use]
pub fn version_schema(version: &str) -> Option<Value> {
    match version {
        crate::constants::V1BETA1 => Some(structural_schema_for::<v1beta1::MachinePool>()),
        crate::constants::V1BETA2 => Some(structural_schema_for::<v1beta2::MachinePool>()),
        _ => None,
    }
}
