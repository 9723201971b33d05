//! `infrastructure.foo.example.com/v1beta1`: storage version, v1beta2 contract.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Desired state of a pool of Foo instances.
#[derive(CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "infrastructure.foo.example.com",
    version = "v1beta1",
    kind = "FooMachinePool",
    namespaced,
    status = "FooMachinePoolStatus",
    category = "cluster-api",
    doc = "A pool of Foo instances (InfraMachinePool)."
)]
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
#[derive(CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "infrastructure.foo.example.com",
    version = "v1beta1",
    kind = "FooMachinePoolTemplate",
    namespaced,
    category = "cluster-api",
    doc = "A template for FooMachinePools (InfraMachinePoolTemplate)."
)]
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

impl capi_machinepool_conversion::Hub for FooMachinePool {}

// Conditions live in `status.conditions`; kind, name and generation come from `Resource`.
capi_conditions::impl_conditions!(FooMachinePool => status?.conditions);
