//! The multi-version `machinepools.cluster.x-k8s.io` CustomResourceDefinition.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::{Value, json};

use crate::constants::{
    CATEGORIES, CRD_NAME, GROUP, KIND, LIST_KIND, PLURAL, SHORT_NAMES, SINGULAR,
};
use crate::schema::structural_schema_for;
use crate::{v1beta1, v1beta2};

fn column(name: &str, type_: &str, path: &str, description: &str) -> Value {
    json!({ "name": name, "type": type_, "jsonPath": path, "description": description })
}

fn with_priority(mut column: Value, priority: i32) -> Value {
    column["priority"] = json!(priority);
    column
}

fn scale_and_status() -> Value {
    json!({
        "status": {},
        "scale": { "specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas" }
    })
}

fn common_tail_columns() -> [Value; 3] {
    [
        column(
            "Phase",
            "string",
            ".status.phase",
            "MachinePool phase (Pending, Provisioning, Running, ...)",
        ),
        column(
            "Age",
            "date",
            ".metadata.creationTimestamp",
            "Time since creation of the MachinePool",
        ),
        column(
            "Version",
            "string",
            ".spec.template.spec.version",
            "Kubernetes version of the machines",
        ),
    ]
}

/// The CRD as JSON: both versions (v1beta1 served and deprecated, v1beta2 served and storage),
/// status and scale subresources, printer columns, short name `mp`, category `cluster-api`,
/// with the OpenAPI v3 schemas generated from the Rust types.
///
/// JSON keeps integers as integers (`minimum: 0`), which the typed
/// [`CustomResourceDefinition`] would turn into floats; print this form.
#[must_use]
pub fn machine_pool_crd_value() -> Value {
    let [phase, age, version] = common_tail_columns();
    let v1beta1_columns = vec![
        column("Cluster", "string", ".spec.clusterName", "Cluster"),
        with_priority(
            column(
                "Desired",
                "integer",
                ".spec.replicas",
                "Desired number of machines",
            ),
            10,
        ),
        column(
            "Replicas",
            "string",
            ".status.replicas",
            "Observed number of machines",
        ),
        phase.clone(),
        age.clone(),
        version.clone(),
    ];
    let v1beta2_columns = vec![
        column("Cluster", "string", ".spec.clusterName", "Cluster"),
        column(
            "Desired",
            "integer",
            ".spec.replicas",
            "Desired number of machines",
        ),
        column(
            "Current",
            "integer",
            ".status.replicas",
            "Observed number of machines",
        ),
        column(
            "Ready",
            "integer",
            ".status.readyReplicas",
            "Machines with Ready condition true",
        ),
        column(
            "Available",
            "integer",
            ".status.availableReplicas",
            "Machines with Available condition true",
        ),
        column(
            "Up-to-date",
            "integer",
            ".status.upToDateReplicas",
            "Machines with UpToDate condition true",
        ),
        with_priority(
            column(
                "Paused",
                "string",
                ".status.conditions[?(@.type==\"Paused\")].status",
                "Reconciliation paused",
            ),
            10,
        ),
        phase,
        age,
        version,
    ];
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": { "name": CRD_NAME },
        "spec": {
            "group": GROUP,
            "names": {
                "categories": CATEGORIES,
                "kind": KIND,
                "listKind": LIST_KIND,
                "plural": PLURAL,
                "shortNames": SHORT_NAMES,
                "singular": SINGULAR,
            },
            "scope": "Namespaced",
            "versions": [
                {
                    "name": crate::constants::V1BETA1,
                    "served": true,
                    "storage": false,
                    "deprecated": true,
                    "additionalPrinterColumns": v1beta1_columns,
                    "schema": { "openAPIV3Schema": structural_schema_for::<v1beta1::MachinePool>() },
                    "subresources": scale_and_status(),
                },
                {
                    "name": crate::constants::V1BETA2,
                    "served": true,
                    "storage": true,
                    "additionalPrinterColumns": v1beta2_columns,
                    "schema": { "openAPIV3Schema": structural_schema_for::<v1beta2::MachinePool>() },
                    "subresources": scale_and_status(),
                }
            ]
        }
    })
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
