//! `cluster.x-k8s.io/v1beta1` MachinePool: deprecated, still served.
//!
//! Go value types without `omitempty` are always emitted: `spec`, `status`,
//! `status.replicas`, `status.bootstrapReady`, `status.infrastructureReady`,
//! `spec.template`, `spec.template.spec.clusterName`, `bootstrap` and `infrastructureRef`.

use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition as MetaCondition, ListMeta};
use kube_core::ObjectMeta as KubeObjectMeta;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use crate::common::{
    LegacyCondition, MachineReadinessGate, MachineTaint, ObjectMeta, StatusVersion,
};
use crate::common::{node_refs_schema, object_reference_schema, phase_schema};
use crate::duration::Duration;
use crate::omit::is_zero;
use crate::schema::metav1_conditions_schema;

/// A v1beta1 MachinePool.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MachinePool {
    /// Standard object metadata.
    pub metadata: KubeObjectMeta,
    /// Desired state (always emitted).
    pub spec: MachinePoolSpec,
    /// Observed state (always emitted).
    pub status: MachinePoolStatus,
}

/// Desired state of a v1beta1 MachinePool.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(transform = required_machine_pool_spec)]
pub struct MachinePoolSpec {
    /// Name of the Cluster this object belongs to (always emitted).
    #[serde(default)]
    #[schemars(length(min = 1, max = 63))]
    pub cluster_name: String,
    /// Number of desired machines.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::wire::int::option"
    )]
    pub replicas: Option<i32>,
    /// Template of the machines (always emitted).
    #[serde(default)]
    pub template: MachineTemplateSpec,
    /// Seconds a new machine must be ready before it is considered available.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::wire::int::option"
    )]
    pub min_ready_seconds: Option<i32>,
    /// Provider IDs of the machine instances.
    #[serde(
        rename = "providerIDList",
        default,
        skip_serializing_if = "crate::omit::is_empty_list"
    )]
    #[schemars(length(max = 10000), inner(length(min = 1, max = 512)))]
    pub provider_id_list: Option<Vec<String>>,
    /// Failure domains the pool should be attached to.
    #[serde(default, skip_serializing_if = "crate::omit::is_empty_list")]
    #[schemars(length(max = 100), inner(length(min = 1, max = 256)))]
    pub failure_domains: Option<Vec<String>>,
}

/// Template of the machines of a v1beta1 MachinePool.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MachineTemplateSpec {
    /// Labels and annotations of the machines (always emitted).
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// Specification of the machines (always emitted).
    #[serde(default)]
    pub spec: MachineSpec,
}

/// Specification of the machines of a v1beta1 MachinePool.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(transform = required_machine_spec)]
pub struct MachineSpec {
    /// Name of the Cluster (always emitted).
    #[serde(default)]
    #[schemars(length(min = 1, max = 63))]
    pub cluster_name: String,
    /// Bootstrap configuration (always emitted).
    #[serde(default)]
    pub bootstrap: Bootstrap,
    /// Reference to the infrastructure object (always emitted, `{}` when empty).
    #[serde(default, serialize_with = "crate::wire::reference::serialize")]
    #[schemars(schema_with = "object_reference_schema")]
    pub infrastructure_ref: ObjectReference,
    /// Kubernetes version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 256))]
    pub version: Option<String>,
    /// Provider ID.
    #[serde(
        rename = "providerID",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(length(min = 1, max = 512))]
    pub provider_id: Option<String>,
    /// Failure domain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 256))]
    pub failure_domain: Option<String>,
    /// Extra readiness conditions.
    #[serde(
        default,
        skip_serializing_if = "crate::omit::is_empty_list",
        serialize_with = "serialize_readiness_gates"
    )]
    #[schemars(length(max = 32))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["conditionType"]))]
    pub readiness_gates: Option<Vec<MachineReadinessGate>>,
    /// Node drain timeout (Go duration string).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_drain_timeout: Option<Duration>,
    /// Volume detach timeout (Go duration string).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_volume_detach_timeout: Option<Duration>,
    /// Node deletion timeout (Go duration string).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_deletion_timeout: Option<Duration>,
    /// Taints to apply to the Nodes.
    #[serde(default, skip_serializing_if = "crate::omit::is_empty_list")]
    #[schemars(length(min = 1, max = 64))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["key", "effect"]))]
    pub taints: Option<Vec<MachineTaint>>,
}

/// Bootstrap configuration (v1beta1).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Bootstrap {
    /// Reference to the bootstrap config object.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::wire::reference::serialize_option"
    )]
    #[schemars(schema_with = "object_reference_schema")]
    pub config_ref: Option<ObjectReference>,
    /// Name of the bootstrap data Secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 0, max = 253))]
    pub data_secret_name: Option<String>,
}

/// Observed state of a v1beta1 MachinePool.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MachinePoolStatus {
    /// Node references.
    #[serde(
        default,
        skip_serializing_if = "crate::omit::is_empty_list",
        serialize_with = "crate::wire::reference::serialize_list"
    )]
    #[schemars(schema_with = "node_refs_schema")]
    pub node_refs: Option<Vec<ObjectReference>>,
    /// Observed replicas (always emitted).
    #[serde(default, deserialize_with = "crate::wire::int::value")]
    pub replicas: i32,
    /// Replicas whose Node is Ready (legacy semantic).
    #[serde(
        default,
        skip_serializing_if = "is_zero",
        deserialize_with = "crate::wire::int::value"
    )]
    pub ready_replicas: i32,
    /// Available replicas (legacy semantic).
    #[serde(
        default,
        skip_serializing_if = "is_zero",
        deserialize_with = "crate::wire::int::value"
    )]
    pub available_replicas: i32,
    /// Unavailable replicas (deprecated).
    #[serde(
        default,
        skip_serializing_if = "is_zero",
        deserialize_with = "crate::wire::int::value"
    )]
    pub unavailable_replicas: i32,
    /// Terminal failure reason (deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<String>,
    /// Terminal failure message (deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 10240))]
    pub failure_message: Option<String>,
    /// Phase string.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(schema_with = "phase_schema")]
    pub phase: String,
    /// Bootstrap data is ready (always emitted).
    #[serde(default)]
    pub bootstrap_ready: bool,
    /// Infrastructure is ready (always emitted).
    #[serde(default)]
    pub infrastructure_ready: bool,
    /// Latest generation observed.
    #[serde(
        default,
        skip_serializing_if = "is_zero",
        deserialize_with = "crate::wire::int::value"
    )]
    pub observed_generation: i64,
    /// Legacy conditions.
    #[serde(default, skip_serializing_if = "crate::omit::is_empty_list")]
    pub conditions: Option<Vec<LegacyCondition>>,
    /// Kubernetes versions of the replicas.
    #[serde(default, skip_serializing_if = "crate::omit::is_empty_list")]
    #[schemars(length(min = 1, max = 100))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["version"]))]
    pub versions: Option<Vec<StatusVersion>>,
    /// Preview of the v1beta2 status fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub v1beta2: Option<MachinePoolV1Beta2Status>,
}

impl MachinePoolStatus {
    /// The typed phase (unknown strings map to `Unknown`).
    #[must_use]
    pub fn typed_phase(&self) -> crate::MachinePoolPhase {
        crate::MachinePoolPhase::parse(&self.phase)
    }
}

/// v1beta2 status fields carried by a v1beta1 object.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MachinePoolV1Beta2Status {
    /// v1beta2 conditions.
    #[serde(
        default,
        skip_serializing_if = "crate::omit::is_empty_list",
        serialize_with = "crate::wire::condition::serialize_list",
        deserialize_with = "crate::wire::condition::deserialize_list"
    )]
    #[schemars(schema_with = "metav1_conditions_schema")]
    pub conditions: Option<Vec<MetaCondition>>,
    /// Machines with Ready=True.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::wire::int::option"
    )]
    pub ready_replicas: Option<i32>,
    /// Machines with Available=True.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::wire::int::option"
    )]
    pub available_replicas: Option<i32>,
    /// Machines with UpToDate=True.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::wire::int::option"
    )]
    pub up_to_date_replicas: Option<i32>,
}

/// A list of v1beta1 MachinePools.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MachinePoolList {
    /// List metadata.
    pub metadata: ListMeta,
    /// The MachinePools.
    pub items: Vec<MachinePool>,
}

crate::resource::machine_pool_resource!(
    MachinePool,
    MachinePoolList,
    MachinePoolSpec,
    MachinePoolStatus,
    version = crate::constants::V1BETA1,
    api_version = crate::constants::API_VERSION_V1BETA1,
    omit_zero_spec_status = false,
    required = []
);

/// v1beta1 readiness gates as Go prints them: upstream's v1beta1 `MachineReadinessGate` has no
/// `omitempty` on `conditionType` (v1beta2's has), so an empty one is printed.
struct V1Beta1ReadinessGate<'a>(&'a MachineReadinessGate);

impl Serialize for V1Beta1ReadinessGate<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("conditionType", &self.0.condition_type)?;
        if !self.0.polarity.is_empty() {
            map.serialize_entry("polarity", &self.0.polarity)?;
        }
        map.end()
    }
}

/// `serialize_with` for v1beta1 `readinessGates` (`skip_serializing_if` handles empty lists).
fn serialize_readiness_gates<S: serde::Serializer>(
    gates: &Option<Vec<MachineReadinessGate>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    crate::wire::meta::Each(gates.as_deref().unwrap_or_default(), V1Beta1ReadinessGate)
        .serialize(serializer)
}

fn required_machine_pool_spec(schema: &mut schemars::Schema) {
    crate::schema::require(schema, &["clusterName", "template"]);
}
fn required_machine_spec(schema: &mut schemars::Schema) {
    crate::schema::require(schema, &["bootstrap", "clusterName", "infrastructureRef"]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Upstream `api/core/v1beta1/machine_types.go` `MachineReadinessGate`:
    /// `json:"conditionType"`; `api/core/v1beta2/machine_types.go`:
    /// `json:"conditionType,omitempty"`.
    #[test]
    fn an_empty_readiness_gate_condition_type_is_printed_in_v1beta1_only() {
        let gates = Some(vec![MachineReadinessGate::default()]);
        let v1beta1 = MachineSpec {
            readiness_gates: gates.clone(),
            ..Default::default()
        };
        let json = serde_json::to_value(&v1beta1).unwrap();
        assert_eq!(
            json["readinessGates"],
            serde_json::json!([{"conditionType": ""}])
        );
        let v1beta2 = crate::v1beta2::MachineSpec {
            readiness_gates: gates,
            ..Default::default()
        };
        let json = serde_json::to_value(&v1beta2).unwrap();
        assert_eq!(json["readinessGates"], serde_json::json!([{}]));
        let polar = MachineReadinessGate {
            condition_type: "A".into(),
            polarity: "Negative".into(),
        };
        let v1beta1 = MachineSpec {
            readiness_gates: Some(vec![polar]),
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_value(&v1beta1).unwrap()["readinessGates"],
            serde_json::json!([{"conditionType": "A", "polarity": "Negative"}])
        );
    }
}
