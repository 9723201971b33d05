//! `infrastructure.foo.example.com/v1alpha1`: an older version on the v1beta1 contract
//! (`status.ready`). Converts to and from [`crate::v1beta1`].

use capi_machinepool_api::v1beta1::LegacyCondition;
use capi_machinepool_conversion::{ApiVersionResolver, ConversionError, Spoke};
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
    doc = "A pool of Foo instances (InfraMachinePool, v1beta1 contract)."
)]
#[serde(rename_all = "camelCase")]
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
    /// Cluster API v1beta1-style conditions (v1beta1 contract). They have no v1beta1
    /// counterpart here: the provider recomputes its v1beta2 conditions after conversion.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<LegacyCondition>,
}

fn spec_to_hub(spec: FooMachinePoolSpec) -> v1beta1::FooMachinePoolSpec {
    v1beta1::FooMachinePoolSpec {
        provider_id_list: spec.provider_id_list,
        provider_id: spec.provider_id,
        instance_type: spec.instance_type,
    }
}

fn spec_from_hub(spec: v1beta1::FooMachinePoolSpec) -> FooMachinePoolSpec {
    FooMachinePoolSpec {
        provider_id_list: spec.provider_id_list,
        provider_id: spec.provider_id,
        instance_type: spec.instance_type,
    }
}

impl Spoke<v1beta1::FooMachinePool> for FooMachinePool {
    fn to_hub(
        self,
        _: &dyn ApiVersionResolver,
    ) -> Result<v1beta1::FooMachinePool, ConversionError> {
        let mut hub = v1beta1::FooMachinePool::new("", spec_to_hub(self.spec));
        hub.metadata = self.metadata;
        hub.status = self.status.map(|s| v1beta1::FooMachinePoolStatus {
            initialization: v1beta1::Initialization {
                provisioned: s.ready.then_some(true),
            },
            replicas: s.replicas,
            conditions: Vec::new(),
        });
        Ok(hub)
    }

    fn from_hub(
        hub: v1beta1::FooMachinePool,
        _: &dyn ApiVersionResolver,
    ) -> Result<Self, ConversionError> {
        let mut spoke = Self::new("", spec_from_hub(hub.spec));
        spoke.metadata = hub.metadata;
        spoke.status = hub.status.map(|s| FooMachinePoolStatus {
            ready: s.initialization.provisioned.unwrap_or(false),
            replicas: s.replicas,
            conditions: Vec::new(),
        });
        Ok(spoke)
    }
}
