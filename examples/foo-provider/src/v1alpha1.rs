//! `infrastructure.foo.example.com/v1alpha1`: an older version on the v1beta1 contract
//! (`status.ready`). Converts to and from [`crate::v1beta1`].

use capi_machinepool_conversion::{ApiVersionResolver, ConversionError, Spoke};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::v1beta1;

/// A pool of Foo instances (v1alpha1).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FooMachinePool {
    /// `infrastructure.foo.example.com/v1alpha1`.
    #[serde(default)]
    pub api_version: String,
    /// `FooMachinePool`.
    #[serde(default)]
    pub kind: String,
    /// Metadata.
    #[serde(default)]
    #[schemars(schema_with = "object")]
    pub metadata: kube_core::ObjectMeta,
    /// Desired state (same as v1beta1).
    #[serde(default)]
    pub spec: v1beta1::FooMachinePoolSpec,
    /// Observed state.
    #[serde(default)]
    pub status: FooMachinePoolStatus,
}

fn object(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "object"})
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
    pub conditions: Vec<capi_machinepool_api::v1beta1::Condition>,
}

crate::resource::foo_resource!(
    FooMachinePool,
    "FooMachinePool",
    "v1alpha1",
    "foomachinepools"
);

impl Spoke<v1beta1::FooMachinePool> for FooMachinePool {
    fn to_hub(
        self,
        _: &dyn ApiVersionResolver,
    ) -> Result<v1beta1::FooMachinePool, ConversionError> {
        Ok(v1beta1::FooMachinePool {
            api_version: format!("{}/v1beta1", crate::GROUP),
            kind: self.kind,
            metadata: self.metadata,
            spec: self.spec,
            status: v1beta1::FooMachinePoolStatus {
                initialization: v1beta1::Initialization {
                    provisioned: self.status.ready.then_some(true),
                },
                replicas: self.status.replicas,
                conditions: Vec::new(),
            },
        })
    }

    fn from_hub(
        hub: v1beta1::FooMachinePool,
        _: &dyn ApiVersionResolver,
    ) -> Result<Self, ConversionError> {
        Ok(Self {
            api_version: format!("{}/v1alpha1", crate::GROUP),
            kind: hub.kind,
            metadata: hub.metadata,
            spec: hub.spec,
            status: FooMachinePoolStatus {
                ready: hub.status.initialization.provisioned.unwrap_or(false),
                replicas: hub.status.replicas,
                conditions: Vec::new(),
            },
        })
    }
}
