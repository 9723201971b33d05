//! `infrastructure.foo.example.com/v1beta1`: storage version, v1beta2 contract.

use std::borrow::Cow;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A pool of Foo instances.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FooMachinePool {
    /// `infrastructure.foo.example.com/v1beta1`.
    #[serde(default)]
    pub api_version: String,
    /// `FooMachinePool`.
    #[serde(default)]
    pub kind: String,
    /// Metadata.
    #[serde(default)]
    #[schemars(schema_with = "object")]
    pub metadata: kube_core::ObjectMeta,
    /// Desired state.
    #[serde(default)]
    pub spec: FooMachinePoolSpec,
    /// Observed state.
    #[serde(default)]
    pub status: FooMachinePoolStatus,
}

fn object(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "object"})
}

/// Desired state of a pool.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FooMachinePoolSpec {
    /// Provider IDs of the instances (contract: MUST).
    #[serde(
        rename = "providerIDList",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(length(max = 10000), inner(length(min = 1, max = 512)), extend("x-kubernetes-list-type" = "atomic"))]
    pub provider_id_list: Vec<String>,
    /// ID of the scaling group (contract: MAY).
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

/// Observed state of a pool.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FooMachinePoolStatus {
    /// Initialization progress (contract: MUST report `provisioned`).
    #[serde(default, skip_serializing_if = "Initialization::is_empty")]
    #[schemars(extend("minProperties" = 1))]
    pub initialization: Initialization,
    /// Observed number of instances (contract: MUST).
    #[serde(default)]
    pub replicas: i32,
    /// Conditions, including `Ready` (contract: SHOULD).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["type"]), length(max = 32))]
    pub conditions: Vec<Condition>,
}

/// Initialization progress.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Initialization {
    /// The pool's infrastructure is provisioned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisioned: Option<bool>,
}

impl Initialization {
    fn is_empty(&self) -> bool {
        self.provisioned.is_none()
    }
}

/// A template for FooMachinePools (ClusterClass).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FooMachinePoolTemplate {
    /// API version.
    #[serde(default)]
    pub api_version: String,
    /// Kind.
    #[serde(default)]
    pub kind: String,
    /// Metadata.
    #[serde(default)]
    #[schemars(schema_with = "object")]
    pub metadata: kube_core::ObjectMeta,
    /// The template.
    #[serde(default)]
    pub spec: FooMachinePoolTemplateSpec,
}

/// Spec of a template.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FooMachinePoolTemplateSpec {
    /// The resource the template stamps out.
    pub template: FooMachinePoolTemplateResource,
}

/// The templated resource.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FooMachinePoolTemplateResource {
    /// The pool spec.
    pub spec: FooMachinePoolSpec,
}

crate::resource::foo_resource!(
    FooMachinePool,
    "FooMachinePool",
    "v1beta1",
    "foomachinepools"
);

impl capi_machinepool_conversion::Hub for FooMachinePool {}

impl capi_conditions::HasConditions for FooMachinePool {
    fn conditions(&self) -> &[Condition] {
        &self.status.conditions
    }
    fn generation(&self) -> Option<i64> {
        self.metadata.generation
    }
    fn kind(&self) -> Cow<'_, str> {
        Cow::Borrowed("FooMachinePool")
    }
    fn name(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.metadata.name.as_deref().unwrap_or_default())
    }
}

impl capi_conditions::ConditionsMut for FooMachinePool {
    fn conditions_mut(&mut self) -> &mut Vec<Condition> {
        &mut self.status.conditions
    }
}
