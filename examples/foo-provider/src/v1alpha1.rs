//! `infrastructure.foo.example.com/v1alpha1`: an older version on the v1beta1 contract
//! (`status.ready`). Converts to and from [`crate::v1beta1`].

use std::collections::BTreeMap;

use capi_machinepool::api::v1beta1::LegacyCondition;
use capi_machinepool::conversion::{
    ApiVersionResolver, ConversionError, LosslessSpoke, recover_bool,
};
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::v1beta1;

/// Desired state of a pool (v1alpha1; the same fields as v1beta1).
#[derive(CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "infrastructure.foo.example.com",
    version = "v1alpha1",
    kind = "FooMachinePool",
    namespaced,
    status = "FooMachinePoolStatus",
    category = "cluster-api",
    derive = "PartialEq",
    doc = "A pool of Foo instances (InfraMachinePool, v1beta1 contract)."
)]
#[serde(rename_all = "camelCase", default)]
pub struct FooMachinePoolSpec {
    /// Provider IDs of the instances.
    #[serde(
        rename = "providerIDList",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(length(max = 10000), inner(length(min = 1, max = 512)), extend("x-kubernetes-list-type" = "atomic"))]
    pub provider_id_list: Vec<String>,
    /// ID of the scaling group.
    #[serde(
        rename = "providerID",
        default,
        skip_serializing_if = "String::is_empty"
    )]
    #[schemars(length(min = 1, max = 512))]
    pub provider_id: String,
    /// Instance type of the pool.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub instance_type: String,
}

/// Observed state (v1alpha1).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FooMachinePoolStatus {
    /// Infrastructure is ready (v1beta1 contract).
    #[serde(default)]
    pub ready: bool,
    /// Observed number of instances.
    #[serde(default)]
    pub replicas: i32,
    /// Cluster API v1beta1-style conditions (v1beta1 contract); v1beta1 keeps them in
    /// `status.deprecated.v1beta1.conditions`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<LegacyCondition>,
}

fn spec_to_hub(spec: FooMachinePoolSpec) -> v1beta1::FooMachinePoolSpec {
    v1beta1::FooMachinePoolSpec {
        provider_id_list: spec.provider_id_list,
        provider_id: spec.provider_id,
        instance_type: spec.instance_type,
        additional_tags: BTreeMap::new(),
    }
}

fn spec_from_hub(spec: &v1beta1::FooMachinePoolSpec) -> FooMachinePoolSpec {
    FooMachinePoolSpec {
        provider_id_list: spec.provider_id_list.clone(),
        provider_id: spec.provider_id.clone(),
        instance_type: spec.instance_type.clone(),
    }
}

fn status_to_hub(status: FooMachinePoolStatus) -> v1beta1::FooMachinePoolStatus {
    v1beta1::FooMachinePoolStatus {
        initialization: v1beta1::Initialization {
            provisioned: status.ready.then_some(true),
        },
        replicas: status.replicas,
        conditions: Vec::new(),
        deprecated: v1beta1::Deprecated {
            v1beta1: v1beta1::V1Beta1Status {
                conditions: status.conditions,
            },
        },
    }
}

fn status_from_hub(status: &v1beta1::FooMachinePoolStatus) -> FooMachinePoolStatus {
    FooMachinePoolStatus {
        ready: status.initialization.provisioned == Some(true),
        replicas: status.replicas,
        conditions: status.deprecated.v1beta1.conditions.clone(),
    }
}

/// The field mappings; the conversion-data annotation is handled by [`LosslessSpoke`].
impl LosslessSpoke<v1beta1::FooMachinePool> for FooMachinePool {
    fn to_hub_fields(
        self,
        _: &dyn ApiVersionResolver,
    ) -> Result<v1beta1::FooMachinePool, ConversionError> {
        let mut hub = v1beta1::FooMachinePool::new("", spec_to_hub(self.spec));
        hub.status = self.status.map(status_to_hub);
        Ok(hub)
    }

    fn from_hub_fields(
        hub: &v1beta1::FooMachinePool,
        _: &dyn ApiVersionResolver,
    ) -> Result<Self, ConversionError> {
        let mut spoke = Self::new("", spec_from_hub(&hub.spec));
        spoke.status = hub.status.as_ref().map(status_from_hub);
        Ok(spoke)
    }

    /// What v1alpha1 cannot hold: the tags, the v1beta2 conditions, and a `provisioned`
    /// that was `false` rather than unset (`ready: false` reads as unset; upstream's
    /// `Convert_bool_To_Pointer_bool` recovery, [`recover_bool`]).
    fn restore(hub: &mut v1beta1::FooMachinePool, saved: v1beta1::FooMachinePool) {
        hub.spec.additional_tags = saved.spec.additional_tags;
        if let (Some(status), Some(saved)) = (hub.status.as_mut(), saved.status) {
            status.conditions = saved.conditions;
            status.initialization.provisioned = recover_bool(
                status.initialization.provisioned == Some(true),
                Some(saved.initialization.provisioned),
            );
        }
    }
}
