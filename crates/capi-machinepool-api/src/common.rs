//! Types that are identical in v1beta1 and v1beta2 (same fields, same JSON, same validation).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Cluster API's own `ObjectMeta` for templates: only labels and annotations.
///
/// In v1beta2 the schema additionally requires at least one property (`minProperties: 1`).
/// `None` and `Some(empty)` are Go's nil and empty maps: both are left out, but an empty map
/// makes the (`omitzero`) metadata non-zero, so Go prints it as `{}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ObjectMeta {
    /// Map of string keys and values used to organize and categorize objects.
    #[serde(default, skip_serializing_if = "crate::omit::is_empty_map")]
    pub labels: Option<BTreeMap<String, String>>,
    /// Unstructured key/value map stored with the resource.
    #[serde(default, skip_serializing_if = "crate::omit::is_empty_map")]
    pub annotations: Option<BTreeMap<String, String>>,
}

impl ObjectMeta {
    /// The labels (empty when unset).
    #[must_use]
    pub fn labels(&self) -> &BTreeMap<String, String> {
        self.labels.as_ref().unwrap_or(&EMPTY_MAP)
    }

    /// The annotations (empty when unset).
    #[must_use]
    pub fn annotations(&self) -> &BTreeMap<String, String> {
        self.annotations.as_ref().unwrap_or(&EMPTY_MAP)
    }
}

static EMPTY_MAP: BTreeMap<String, String> = BTreeMap::new();

/// A taint to apply to the Nodes of the machines (rejected today for MachinePools by the
/// admission webhook).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = required_machine_taint)]
pub struct MachineTaint {
    /// The taint key.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(min = 1, max = 317))]
    #[schemars(extend("pattern" = r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$"))]
    pub key: String,
    /// The taint value.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(min = 1, max = 63))]
    #[schemars(extend("pattern" = r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$"))]
    pub value: String,
    /// The taint effect: `NoSchedule`, `PreferNoSchedule` or `NoExecute`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(extend("enum" = ["NoSchedule", "PreferNoSchedule", "NoExecute"]))]
    pub effect: String,
    /// When the taint is propagated: `Always` or `OnInitialization`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(extend("enum" = ["Always", "OnInitialization"]))]
    pub propagation: String,
}

/// Number of replicas running a given Kubernetes version.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = required_status_version)]
pub struct StatusVersion {
    /// The Kubernetes version.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(min = 1, max = 256))]
    pub version: String,
    /// Number of replicas on that version.
    #[serde(
        default,
        skip_serializing_if = "crate::omit::is_zero",
        deserialize_with = "crate::wire::int::value"
    )]
    #[schemars(range(min = 1))]
    pub replicas: i32,
}

/// A condition a Machine must report True (or False, for negative polarity) to be Ready.
///
/// One JSON difference between the versions: v1beta1 prints an empty `conditionType` (its Go
/// tag has no `omitempty`), which the v1beta1 `readinessGates` printer takes care of.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = required_machine_readiness_gate)]
pub struct MachineReadinessGate {
    /// The condition type in the Machine's `status.conditions`.
    #[serde(
        rename = "conditionType",
        default,
        skip_serializing_if = "String::is_empty"
    )]
    #[schemars(length(min = 1, max = 316), extend("pattern" = crate::schema::QUALIFIED_NAME_PATTERN))]
    pub condition_type: String,
    /// `Positive` (the default when empty) or `Negative`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(extend("enum" = ["Positive", "Negative"]))]
    pub polarity: String,
}

/// Severity values of deprecated v1beta1 conditions.
pub mod severity {
    /// A failure that blocks progress.
    pub const ERROR: &str = "Error";
    /// A problem that may block progress.
    pub const WARNING: &str = "Warning";
    /// Information about progress.
    pub const INFO: &str = "Info";
    /// No severity (only for True conditions).
    pub const NONE: &str = "";
}

/// A deprecated Cluster API v1beta1 condition (with `severity`); v1beta2 conditions are
/// k8s-openapi's `metav1.Condition`.
///
/// Used for `status.conditions` of v1beta1 objects and `status.deprecated.v1beta1.conditions`
/// of v1beta2 objects. `lastTransitionTime` is a Go value type: when unset it is emitted as
/// `null`, exactly as Go does.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(transform = required_condition)]
pub struct LegacyCondition {
    /// Type of the condition, e.g. `Ready`.
    #[serde(rename = "type", default)]
    #[schemars(length(min = 1, max = 256))]
    pub type_: String,
    /// `True`, `False` or `Unknown`.
    #[serde(default)]
    pub status: String,
    /// Severity of a False condition (`Error`, `Warning`, `Info`), empty otherwise.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(max = 32))]
    pub severity: String,
    /// Last time the condition changed status.
    #[serde(
        default,
        serialize_with = "crate::wire::time::serialize_option",
        deserialize_with = "crate::wire::time::deserialize_option"
    )]
    pub last_transition_time: Option<Time>,
    /// One-word CamelCase reason for the last transition.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(min = 1, max = 256))]
    pub reason: String,
    /// Human readable message.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(min = 1, max = 10240))]
    pub message: String,
}

/// Schema of a `corev1.ObjectReference` (all optional strings, atomic map).
pub(crate) fn object_reference_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let string = serde_json::json!({ "type": "string" });
    schemars::json_schema!({
        "type": "object",
        "x-kubernetes-map-type": "atomic",
        "description": "Reference to a Kubernetes object.",
        "properties": {
            "apiVersion": string, "fieldPath": string, "kind": string, "name": string,
            "namespace": string, "resourceVersion": string, "uid": string
        }
    })
}

/// Schema of a list of `corev1.ObjectReference` (`status.nodeRefs`).
pub(crate) fn node_refs_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "array",
        "maxItems": 10000,
        "items": object_reference_schema(generator)
    })
}

/// Schema of the root `metadata` field: controller-gen emits a bare object.
pub(crate) fn root_metadata_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "object" })
}

/// Schema of `status.phase`.
pub(crate) fn phase_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "string",
        "description": "Phase of the MachinePool (Pending, Provisioning, Running, ...).",
        "enum": crate::phase::MachinePoolPhase::ALL.iter().map(|p| p.as_str()).collect::<Vec<_>>()
    })
}

fn required_machine_taint(schema: &mut schemars::Schema) {
    crate::schema::require(schema, &["effect", "key", "propagation"]);
}
fn required_status_version(schema: &mut schemars::Schema) {
    crate::schema::require(schema, &["version"]);
}
fn required_machine_readiness_gate(schema: &mut schemars::Schema) {
    crate::schema::require(schema, &["conditionType"]);
}
fn required_condition(schema: &mut schemars::Schema) {
    crate::schema::require(schema, &["lastTransitionTime", "status", "type"]);
    // `#[serde(default)]` makes schemars emit `default: ""`, which the API server refuses where
    // the field has `minLength: 1` ("in body should be at least 1 chars long", found by
    // tests/e2e/tests/foo_provider.rs on kube-derive CRDs that embed this type).
    if let Some(properties) = schema
        .get_mut("properties")
        .and_then(serde_json::Value::as_object_mut)
    {
        for property in properties.values_mut() {
            if let Some(p) = property.as_object_mut() {
                p.remove("default");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_condition_times_print_as_go_does() {
        let read = |json: &str| serde_json::from_str::<LegacyCondition>(json).unwrap();
        let print = |c: &LegacyCondition| serde_json::to_string(c).unwrap();
        // Go decodes its zero time and prints it back as `null`, like an absent time.
        let zero =
            read(r#"{"type":"Ready","status":"True","lastTransitionTime":"0001-01-01T00:00:00Z"}"#);
        assert_eq!(
            print(&zero),
            r#"{"type":"Ready","status":"True","lastTransitionTime":null}"#
        );
        let unset = read(r#"{"type":"Ready","status":"True"}"#);
        assert_eq!(
            print(&unset),
            r#"{"type":"Ready","status":"True","lastTransitionTime":null}"#
        );
        let offset = read(
            r#"{"type":"Ready","status":"True","lastTransitionTime":"2026-01-01T02:00:00.5+02:00"}"#,
        );
        assert_eq!(
            print(&offset),
            r#"{"type":"Ready","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z"}"#
        );
    }
}
