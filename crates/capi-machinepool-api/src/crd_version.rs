//! One MachinePool version's CustomResourceDefinition, and the merge of single-version CRDs
//! into the multi-version one.
//!
//! As with kube-derive, each version's `crd()` is that version alone (served and storage);
//! [`merge_crd_values`] combines them as `kube_core::crd::merge_crds` does. This module knows
//! no version type: the versions hand in their schema, so it sits below them.

use kube_core::crd::MergeError;
use serde_json::{Value, json};

use crate::constants::{
    CATEGORIES, CRD_NAME, GROUP, KIND, LIST_KIND, PLURAL, SHORT_NAMES, SINGULAR, V1BETA1,
};

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

fn desired() -> Value {
    column(
        "Desired",
        "integer",
        ".spec.replicas",
        "Desired number of machines",
    )
}

/// The printer columns of one version: upstream's `+kubebuilder:printcolumn` markers.
fn printer_columns(version: &str) -> Vec<Value> {
    let mut columns = vec![column("Cluster", "string", ".spec.clusterName", "Cluster")];
    if version == V1BETA1 {
        columns.extend([
            with_priority(desired(), 10),
            column(
                "Replicas",
                "string",
                ".status.replicas",
                "Observed number of machines",
            ),
        ]);
    } else {
        columns.extend([
            desired(),
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
        ]);
    }
    columns.extend([
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
    ]);
    columns
}

/// The single-version CRD of `version` with its `openAPIV3Schema`: served and storage (the
/// only version of its CRD), `deprecated` for v1beta1, status and scale subresources, the
/// version's printer columns.
pub(crate) fn version_crd_value(version: &str, schema: Value) -> Value {
    let mut entry = json!({
        "name": version,
        "served": true,
        "storage": true,
        "additionalPrinterColumns": printer_columns(version),
        "schema": { "openAPIV3Schema": schema },
        "subresources": scale_and_status(),
    });
    if version == V1BETA1 {
        entry["deprecated"] = json!(true);
    }
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
            "versions": [entry]
        }
    })
}

/// Merges single-version CRDs (as JSON) into one multi-version CRD, with the semantics of
/// `kube_core::crd::merge_crds`: every input has exactly one version, group, kind and scope
/// agree, the CRD of `stored_version` gives the metadata and `spec`, its version is the
/// storage version and every other one is not.
///
/// One difference: the versions stay in input order (kube-core puts the storage version
/// first), so a merge of `[v1beta1, v1beta2]` lists them as upstream's CRD does. JSON keeps
/// integers as integers (`minimum: 0`), which the typed CRD would turn into floats.
///
/// ```
/// use capi_machinepool_api::{crd::merge_crd_values, v1beta1, v1beta2};
/// let merged = merge_crd_values(
///     vec![v1beta1::MachinePool::crd_value(), v1beta2::MachinePool::crd_value()],
///     "v1beta2",
/// )
/// .unwrap();
/// assert_eq!(merged, capi_machinepool_api::machine_pool_crd_value());
/// assert!(merge_crd_values(vec![v1beta1::MachinePool::crd_value()], "v1beta2").is_err());
/// ```
///
/// # Errors
///
/// The [`MergeError`] kube-core's `merge_crds` returns for the same inputs.
pub fn merge_crd_values(mut crds: Vec<Value>, stored_version: &str) -> Result<Value, MergeError> {
    if crds.is_empty() {
        return Err(MergeError::MissingCrds);
    }
    let mut versions = Vec::with_capacity(crds.len());
    for crd in &crds {
        match crd["spec"]["versions"].as_array().map(Vec::as_slice) {
            None | Some([]) => return Err(MergeError::MissingVersions),
            Some([version]) => versions.push(version.clone()),
            Some(_) => return Err(MergeError::MultiVersionCrd),
        }
    }
    let root = versions
        .iter()
        .position(|v| v["name"] == stored_version)
        .ok_or_else(|| MergeError::MissingRootVersion(stored_version.to_owned()))?;
    for crd in &crds {
        for (property, pointer) in [
            ("group", "/spec/group"),
            ("kind", "/spec/names/kind"),
            ("scope", "/spec/scope"),
        ] {
            if crd.pointer(pointer) != crds[root].pointer(pointer) {
                return Err(MergeError::PropertyMismatch(property.to_owned()));
            }
        }
    }
    for (i, version) in versions.iter_mut().enumerate() {
        version["storage"] = json!(i == root);
    }
    let mut merged = crds.swap_remove(root);
    merged["spec"]["versions"] = Value::Array(versions);
    Ok(merged)
}
