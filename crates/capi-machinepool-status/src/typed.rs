//! MachinePool status from typed objects: a MachinePool of either API version, and the
//! referenced objects (InfraMachinePool, bootstrap config) as any typed `kube_core::Resource`,
//! so a controller that reads typed objects never builds JSON by hand.
//!
//! * [`ExternalObject`] holds a typed InfraMachinePool or bootstrap config in the form the
//!   conditions read (its `apiVersion` and `kind` from its `Resource` implementation);
//!   [`ExternalObject::found`] is the [`External::Found`] input.
//! * [`AnyMachinePool`] is implemented by both MachinePool versions: [`apply_to`] writes the
//!   conditions and counters into either, [`verdict_of`] is the upgrade gate on either. A
//!   v1beta1 pool is read as the API server serves it at v1beta2 (the conversion of
//!   `capi-machinepool-conversion`), and its v1beta2 conditions and counters are written back
//!   where v1beta1 keeps them (`status.v1beta2`).
//!
//! ```
//! use capi_contract::Contract;
//! use capi_machinepool_api::v1beta1;
//! use capi_machinepool_status::typed::{apply_to, verdict_of};
//! use capi_machinepool_status::{External, Inputs, MachinePoolMachines};
//! use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
//! let mut pool: v1beta1::MachinePool = serde_json::from_value(serde_json::json!({
//!   "apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachinePool",
//!   "metadata": {"name": "pool", "namespace": "ns", "generation": 1},
//!   "spec": {"clusterName": "c", "replicas": 1, "template": {"spec": {"clusterName": "c",
//!     "version": "v1.35.0", "bootstrap": {"dataSecretName": ""},
//!     "infrastructureRef": {"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2",
//!       "kind": "AWSManagedMachinePool", "name": "p"}}}},
//!   "status": {"observedGeneration": 1, "replicas": 1, "readyReplicas": 1,
//!     "availableReplicas": 1, "infrastructureReady": true}})).unwrap();
//! let now = Time(k8s_openapi::jiff::Timestamp::from_second(1_800_000_000).unwrap());
//! // The InfraMachinePool, when read, is `ExternalObject::of(&typed_infra)?.found()`.
//! let inputs = Inputs { infra: External::ReadError, infra_contract: Contract::V1Beta2,
//!     bootstrap: External::NotFound, machines: MachinePoolMachines::Unknown,
//!     cluster_paused: false, now: &now };
//! assert!(apply_to(&mut pool, &inputs).unwrap());
//! let v1beta2 = pool.status.v1beta2.as_ref().unwrap();
//! assert!(v1beta2.conditions.as_ref().is_some_and(|c| !c.is_empty()));
//! // No status.versions yet: the upgrade to v1.35.0 is not complete.
//! assert!(!verdict_of(&pool).unwrap().is_complete());
//! ```

use std::borrow::Cow;

use capi_machinepool_api::{v1beta1, v1beta2};
use capi_machinepool_conversion::ConversionError;
use kube_core::{DynamicObject, Resource};
use serde::Serialize;
use serde_json::Value;

use crate::conditions::{External, Inputs, apply};
use crate::upgrade::{UpgradeVerdict, upgrade_verdict, upgrade_verdict_with_nodes};

/// Why typed inputs could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TypedInputError {
    /// An external object did not serialize to a JSON object.
    #[error("the {kind} {name} could not be read as a JSON object")]
    External {
        /// Its kind.
        kind: String,
        /// Its name.
        name: String,
        /// The serializer's error (`None`: it serialized to something else than an object).
        #[source]
        source: Option<serde_json::Error>,
    },
    /// A v1beta1 MachinePool did not convert to v1beta2.
    #[error("the v1beta1 MachinePool {name} could not be converted to v1beta2")]
    Conversion {
        /// Its name.
        name: String,
        /// The conversion error.
        #[source]
        source: ConversionError,
    },
}

/// A referenced object (InfraMachinePool or bootstrap config) read as a typed resource, in the
/// form the conditions read: its fields, metadata, and the `apiVersion` and `kind` of its
/// `kube_core::Resource` implementation.
#[derive(Clone, Debug)]
pub struct ExternalObject {
    object: DynamicObject,
}

impl ExternalObject {
    /// A typed object (a provider's `#[derive(CustomResource)]` type, a k8s-openapi type, a
    /// workspace view).
    ///
    /// # Errors
    /// When the object does not serialize to a JSON object.
    pub fn of<K>(object: &K) -> Result<Self, TypedInputError>
    where
        K: Resource<DynamicType = ()> + Serialize,
    {
        Self::of_with(object, &())
    }

    /// [`of`](Self::of) for a resource whose kind is known at run time (`dyntype`).
    ///
    /// # Errors
    /// When the object does not serialize to a JSON object.
    pub fn of_with<K>(object: &K, dyntype: &K::DynamicType) -> Result<Self, TypedInputError>
    where
        K: Resource + Serialize,
    {
        let kind = K::kind(dyntype).into_owned();
        let error = |source| TypedInputError::External {
            kind: kind.clone(),
            name: object.meta().name.clone().unwrap_or_default(),
            source,
        };
        let mut doc = serde_json::to_value(object).map_err(|e| error(Some(e)))?;
        let Value::Object(map) = &mut doc else {
            return Err(error(None));
        };
        map.insert(
            "apiVersion".to_owned(),
            Value::String(K::api_version(dyntype).into_owned()),
        );
        map.insert("kind".to_owned(), Value::String(kind.clone()));
        let object = serde_json::from_value(doc).map_err(|e| error(Some(e)))?;
        Ok(Self { object })
    }

    /// The object as [`Inputs::infra`] or [`Inputs::bootstrap`]: [`External::Found`].
    #[must_use]
    pub fn found(&self) -> External<'_> {
        External::Found(&self.object)
    }

    /// The object as the conditions read it.
    #[must_use]
    pub fn as_dynamic(&self) -> &DynamicObject {
        &self.object
    }
}

/// A MachinePool of either API version; implemented by [`v1beta1::MachinePool`] and
/// [`v1beta2::MachinePool`] (sealed).
pub trait AnyMachinePool: sealed::Sealed {
    /// The pool at v1beta2, as the API server serves it.
    ///
    /// # Errors
    /// When a v1beta1 pool does not convert.
    fn at_v1beta2(&self) -> Result<Cow<'_, v1beta2::MachinePool>, TypedInputError>;

    /// Writes the v1beta2 conditions and the new-semantic counters of `hub` (this pool at
    /// v1beta2, after [`apply`]) into this pool.
    fn write_v1beta2_status(&mut self, hub: v1beta2::MachinePool);
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::v1beta1::MachinePool {}
    impl Sealed for super::v1beta2::MachinePool {}
}

impl AnyMachinePool for v1beta2::MachinePool {
    fn at_v1beta2(&self) -> Result<Cow<'_, v1beta2::MachinePool>, TypedInputError> {
        Ok(Cow::Borrowed(self))
    }

    fn write_v1beta2_status(&mut self, hub: v1beta2::MachinePool) {
        *self = hub;
    }
}

impl AnyMachinePool for v1beta1::MachinePool {
    fn at_v1beta2(&self) -> Result<Cow<'_, v1beta2::MachinePool>, TypedInputError> {
        capi_machinepool_conversion::machine_pool::to_hub(self.clone())
            .map(Cow::Owned)
            .map_err(|source| TypedInputError::Conversion {
                name: self.metadata.name.clone().unwrap_or_default(),
                source,
            })
    }

    fn write_v1beta2_status(&mut self, hub: v1beta2::MachinePool) {
        let status = hub.status;
        let block = self.status.v1beta2.get_or_insert_with(Default::default);
        block.conditions = status.conditions;
        block.ready_replicas = status.ready_replicas;
        block.available_replicas = status.available_replicas;
        block.up_to_date_replicas = status.up_to_date_replicas;
    }
}

/// [`apply`] on a MachinePool of either API version: computes the conditions and counters from
/// the pool at v1beta2 and writes them back; returns whether anything changed.
///
/// # Errors
/// When a v1beta1 pool does not convert to v1beta2 (an undecodable conversion-data
/// annotation, a reference with an invalid apiVersion).
pub fn apply_to<P: AnyMachinePool>(
    pool: &mut P,
    inputs: &Inputs<'_>,
) -> Result<bool, TypedInputError> {
    let mut hub = pool.at_v1beta2()?.into_owned();
    let changed = apply(&mut hub, inputs);
    if changed {
        pool.write_v1beta2_status(hub);
    }
    Ok(changed)
}

/// [`upgrade_verdict_with_nodes`] on a MachinePool of either API version (read at v1beta2).
///
/// # Errors
/// When a v1beta1 pool does not convert to v1beta2.
pub fn verdict_with_nodes_of<P: AnyMachinePool>(
    pool: &P,
    nodes: &[k8s_openapi::api::core::v1::Node],
) -> Result<UpgradeVerdict, TypedInputError> {
    let hub = pool.at_v1beta2()?;
    Ok(upgrade_verdict_with_nodes(&hub, nodes))
}

/// [`upgrade_verdict`] on a MachinePool of either API version (read at v1beta2).
///
/// # Errors
/// When a v1beta1 pool does not convert to v1beta2.
pub fn verdict_of<P: AnyMachinePool>(pool: &P) -> Result<UpgradeVerdict, TypedInputError> {
    let hub = pool.at_v1beta2()?;
    Ok(upgrade_verdict(&hub))
}
