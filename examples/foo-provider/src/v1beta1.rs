//! `infrastructure.foo.example.com/v1beta1`: storage version (the hub), v1beta2 contract.
//!
//! It holds everything [`crate::v1alpha1`] holds (its v1beta1-contract conditions under
//! `status.deprecated.v1beta1`, as upstream's v1beta2 types keep theirs) and more
//! (`spec.additionalTags`, v1beta2 conditions, `initialization.provisioned: false`), which a
//! v1alpha1 object carries in its conversion-data annotation.

use std::collections::BTreeMap;

use capi_machinepool::api::v1beta1::LegacyCondition;
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
    derive = "PartialEq",
    doc = "A pool of Foo instances (InfraMachinePool)."
)]
#[serde(rename_all = "camelCase", default)]
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
    /// Tags added to every instance (new in v1beta1: v1alpha1 has no such field).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub additional_tags: BTreeMap<String, String>,
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
    /// Fields of older contracts, kept while clients may still read them.
    #[serde(default, skip_serializing_if = "Deprecated::is_empty")]
    pub deprecated: Deprecated,
}

/// Status fields of older contracts (upstream's `status.deprecated`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Deprecated {
    /// The v1beta1 contract's fields.
    #[serde(default, skip_serializing_if = "V1Beta1Status::is_empty")]
    pub v1beta1: V1Beta1Status,
}

impl Deprecated {
    fn is_empty(&self) -> bool {
        self.v1beta1.is_empty()
    }
}

/// The v1beta1 contract's status fields.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct V1Beta1Status {
    /// Cluster API v1beta1 conditions (with severity), as v1alpha1 reports them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<LegacyCondition>,
}

impl V1Beta1Status {
    fn is_empty(&self) -> bool {
        self.conditions.is_empty()
    }
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

/// A template for FooMachinePools (ClusterClass). It has one version, so its contract label
/// can be written on the derive: nothing merges its CRD (see [`crate::crds`] for the
/// multi-version kind).
#[derive(CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "infrastructure.foo.example.com",
    version = "v1beta1",
    kind = "FooMachinePoolTemplate",
    namespaced,
    category = "cluster-api",
    label("cluster.x-k8s.io/v1beta2", "v1beta1"),
    doc = "A template for FooMachinePools (InfraMachinePoolTemplate)."
)]
// Every spec field defaults: the API server may send an object without `spec`.
#[serde(default)]
pub struct FooMachinePoolTemplateSpec {
    /// The resource the template stamps out.
    pub template: FooMachinePoolTemplateResource,
}

/// The templated resource.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct FooMachinePoolTemplateResource {
    /// The pool spec.
    pub spec: FooMachinePoolSpec,
}

impl capi_machinepool::conversion::Hub for FooMachinePool {}

/// The template is a hub too, so that a second version can be added as a spoke (its
/// conversion then decodes spec-less objects of this version: every spec field defaults).
impl capi_machinepool::conversion::Hub for FooMachinePoolTemplate {}

// Conditions live in `status.conditions`; kind, name and generation come from `Resource`.
capi_machinepool::conditions::impl_conditions!(FooMachinePool => status?.conditions);
