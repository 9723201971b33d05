//! A realistic MachinePool of each API version, as `kubectl get machinepool -o json` returns it
//! from a running cluster: server-set metadata (uid, resourceVersion, generation,
//! creationTimestamp), the labels and annotations Cluster API and GitOps tools set (including
//! kubectl's `last-applied-configuration`, a whole object as a string), an owner reference, a
//! finalizer, three `managedFields` entries with their `fieldsV1` trees, long provider IDs of
//! a five-replica Azure scale set, five node references and a full status with conditions.
//!
//! The shape follows what the API server writes for a Cluster API 1.11 MachinePool (field
//! names and nesting from the CRD of `tests/fixtures`); names, uids and times vary with `i`
//! so that no two objects of a list share a string.
//!
//! Used by this crate's conversion benchmark and by `benches/peers` (which includes this
//! file by path).

use serde_json::{Value, json};

const REPLICAS: usize = 5;

fn uid(i: usize, salt: u32) -> String {
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        i * 7919 + salt as usize,
        salt,
        i % 4096,
        (i * 31) % 4096,
        i * 104_729
    )
}

fn provider_ids(i: usize) -> Vec<String> {
    (0..REPLICAS)
        .map(|r| {
            format!(
                "azure:///subscriptions/5f3c2a0e-8b1d-4c7e-9a6f-1d2e3f4a5b6c/resourceGroups/prod-eastus2-{i}/providers/Microsoft.Compute/virtualMachineScaleSets/prod-eastus2-{i}-mp-0/virtualMachines/{r}"
            )
        })
        .collect()
}

fn node_name(i: usize, r: usize) -> String {
    format!("prod-eastus2-{i}-mp-0000{r:02}")
}

fn labels(i: usize) -> Value {
    json!({
        "cluster.x-k8s.io/cluster-name": format!("prod-eastus2-{i}"),
        "topology.cluster.x-k8s.io/owned": "",
        "topology.cluster.x-k8s.io/deployment-name": "mp-0",
        "app.kubernetes.io/managed-by": "flux",
        "app.kubernetes.io/part-of": "platform",
        "kustomize.toolkit.fluxcd.io/name": "clusters",
        "kustomize.toolkit.fluxcd.io/namespace": "flux-system",
        "environment": "production",
        "team": "platform-compute",
        "cost-center": "cc-4411",
    })
}

fn last_applied(i: usize, api_version: &str) -> String {
    format!(
        "{{\"apiVersion\":\"{api_version}\",\"kind\":\"MachinePool\",\"metadata\":{{\"annotations\":{{}},\"labels\":{{\"cluster.x-k8s.io/cluster-name\":\"prod-eastus2-{i}\",\"environment\":\"production\"}},\"name\":\"prod-eastus2-{i}-mp-0\",\"namespace\":\"fleet-prod\"}},\"spec\":{{\"clusterName\":\"prod-eastus2-{i}\",\"replicas\":5,\"template\":{{\"spec\":{{\"bootstrap\":{{\"configRef\":{{\"name\":\"prod-eastus2-{i}-mp-0\"}}}},\"clusterName\":\"prod-eastus2-{i}\",\"infrastructureRef\":{{\"name\":\"prod-eastus2-{i}-mp-0\"}},\"version\":\"v1.33.4\"}}}}}}}}\n"
    )
}

fn annotations(i: usize, api_version: &str) -> Value {
    json!({
        "kubectl.kubernetes.io/last-applied-configuration": last_applied(i, api_version),
        "cluster.x-k8s.io/cloned-from-name": "prod-eastus2-template",
        "cluster.x-k8s.io/cloned-from-groupkind": "AzureMachinePoolTemplate.infrastructure.cluster.x-k8s.io",
        "cluster.x-k8s.io/replicas-managed-by": "external-autoscaler",
        "meta.helm.sh/release-name": "fleet",
        "meta.helm.sh/release-namespace": "flux-system",
    })
}

fn time(i: usize, minute: usize) -> String {
    format!(
        "2026-11-{:02}T{:02}:{:02}:{:02}Z",
        1 + i % 28,
        i % 24,
        minute % 60,
        (i * 7) % 60
    )
}

/// `fieldsV1` of the controller's status writes (the deepest tree of the three entries).
fn status_fields(version: &str) -> Value {
    let mut status = json!({
        "f:availableReplicas": {}, "f:phase": {}, "f:readyReplicas": {}, "f:replicas": {},
        "f:observedGeneration": {}, "f:nodeRefs": {},
        "f:conditions": {},
    });
    if version == "v1beta1" {
        status["f:bootstrapReady"] = json!({});
        status["f:infrastructureReady"] = json!({});
        status["f:v1beta2"] = json!({".": {}, "f:conditions": {}, "f:readyReplicas": {}, "f:availableReplicas": {}, "f:upToDateReplicas": {}});
    } else {
        status["f:initialization"] =
            json!({".": {}, "f:bootstrapDataSecretCreated": {}, "f:infrastructureProvisioned": {}});
        status["f:upToDateReplicas"] = json!({});
        status["f:deprecated"] = json!({".": {}, "f:v1beta1": {".": {}, "f:conditions": {}, "f:readyReplicas": {}, "f:availableReplicas": {}, "f:unavailableReplicas": {}}});
    }
    json!({"f:status": status})
}

fn managed_fields(i: usize, api_version: &str, version: &str) -> Value {
    let spec_fields = json!({
        "f:metadata": {
            "f:annotations": {".": {}, "f:kubectl.kubernetes.io/last-applied-configuration": {}},
            "f:labels": {".": {}, "f:cluster.x-k8s.io/cluster-name": {}, "f:environment": {}},
        },
        "f:spec": {
            ".": {}, "f:clusterName": {}, "f:replicas": {},
            "f:template": {".": {}, "f:spec": {".": {}, "f:bootstrap": {".": {}, "f:configRef": {}},
                "f:clusterName": {}, "f:infrastructureRef": {}, "f:version": {}}},
        },
    });
    let controller_fields = json!({
        "f:metadata": {
            "f:finalizers": {".": {}, "v:\"machinepool.cluster.x-k8s.io\"": {}},
            "f:ownerReferences": {".": {}, format!("k:{{\"uid\":\"{}\"}}", uid(i, 1)): {}},
        },
        "f:spec": {"f:providerIDList": {}, "f:failureDomains": {}},
    });
    json!([
        {"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": api_version,
         "time": time(i, 1), "fieldsType": "FieldsV1", "fieldsV1": spec_fields},
        {"manager": "manager", "operation": "Update", "apiVersion": api_version,
         "time": time(i, 2), "fieldsType": "FieldsV1", "fieldsV1": controller_fields},
        {"manager": "manager", "operation": "Update", "apiVersion": api_version,
         "time": time(i, 3), "fieldsType": "FieldsV1", "fieldsV1": status_fields(version),
         "subresource": "status"},
    ])
}

fn metadata(i: usize, api_version: &str, version: &str) -> Value {
    json!({
        "name": format!("prod-eastus2-{i}-mp-0"),
        "namespace": "fleet-prod",
        "uid": uid(i, 0),
        "resourceVersion": format!("{}", 48_213_377 + i),
        "generation": 4,
        "creationTimestamp": time(i, 0),
        "labels": labels(i),
        "annotations": annotations(i, api_version),
        "ownerReferences": [{"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
            "name": format!("prod-eastus2-{i}"), "uid": uid(i, 1)}],
        "finalizers": ["machinepool.cluster.x-k8s.io"],
        "managedFields": managed_fields(i, api_version, version),
    })
}

fn node_refs(i: usize) -> Value {
    (0..REPLICAS)
        .map(|r| json!({"apiVersion": "v1", "kind": "Node", "name": node_name(i, r), "uid": uid(i, 100 + r as u32)}))
        .collect()
}

fn v1beta2_conditions(i: usize) -> Value {
    [
        ("Available", "True", "Available", ""),
        ("BootstrapConfigReady", "True", "Ready", ""),
        ("InfrastructureReady", "True", "Ready", ""),
        ("MachinesReady", "True", "Ready", ""),
        ("MachinesUpToDate", "True", "UpToDate", ""),
        ("ScalingUp", "False", "NotScalingUp", ""),
        ("ScalingDown", "False", "NotScalingDown", ""),
        ("Remediating", "False", "NotRemediating", ""),
        ("Deleting", "False", "NotDeleting", ""),
        ("Paused", "False", "NotPaused", ""),
    ]
    .iter()
    .enumerate()
    .map(|(k, (t, s, r, m))| {
        json!({"type": t, "status": s, "observedGeneration": 4, "lastTransitionTime": time(i, 10 + k),
               "reason": r, "message": m})
    })
    .collect()
}

fn v1beta1_conditions(i: usize) -> Value {
    [
        "Ready",
        "BootstrapReady",
        "InfrastructureReady",
        "ReplicasReady",
    ]
    .iter()
    .enumerate()
    .map(|(k, t)| json!({"type": t, "status": "True", "lastTransitionTime": time(i, 20 + k)}))
    .collect()
}

/// The `i`-th realistic v1beta2 MachinePool.
pub fn v1beta2(i: usize) -> Value {
    let api_version = "cluster.x-k8s.io/v1beta2";
    json!({
        "apiVersion": api_version, "kind": "MachinePool",
        "metadata": metadata(i, api_version, "v1beta2"),
        "spec": {
            "clusterName": format!("prod-eastus2-{i}"), "replicas": REPLICAS,
            "template": {
                "metadata": {"labels": {"node-pool": "mp-0", "environment": "production"}},
                "spec": {
                    "clusterName": format!("prod-eastus2-{i}"),
                    "bootstrap": {"configRef": {"apiGroup": "bootstrap.cluster.x-k8s.io", "kind": "KubeadmConfig", "name": format!("prod-eastus2-{i}-mp-0")},
                                  "dataSecretName": format!("prod-eastus2-{i}-mp-0-bootstrap")},
                    "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "AzureMachinePool", "name": format!("prod-eastus2-{i}-mp-0")},
                    "version": "v1.33.4",
                    "minReadySeconds": 0,
                    "deletion": {"nodeDrainTimeoutSeconds": 300, "nodeDeletionTimeoutSeconds": 10},
                },
            },
            "providerIDList": provider_ids(i),
            "failureDomains": ["1", "2", "3"],
        },
        "status": {
            "conditions": v1beta2_conditions(i),
            "initialization": {"infrastructureProvisioned": true, "bootstrapDataSecretCreated": true},
            "nodeRefs": node_refs(i),
            "replicas": REPLICAS, "readyReplicas": REPLICAS, "availableReplicas": REPLICAS, "upToDateReplicas": REPLICAS,
            "phase": "Running", "observedGeneration": 4,
            "deprecated": {"v1beta1": {"conditions": v1beta1_conditions(i), "readyReplicas": REPLICAS, "availableReplicas": REPLICAS}},
        },
    })
}

/// The `i`-th realistic v1beta1 MachinePool.
pub fn v1beta1(i: usize) -> Value {
    let api_version = "cluster.x-k8s.io/v1beta1";
    json!({
        "apiVersion": api_version, "kind": "MachinePool",
        "metadata": metadata(i, api_version, "v1beta1"),
        "spec": {
            "clusterName": format!("prod-eastus2-{i}"), "replicas": REPLICAS,
            "template": {
                "metadata": {"labels": {"node-pool": "mp-0", "environment": "production"}},
                "spec": {
                    "clusterName": format!("prod-eastus2-{i}"),
                    "bootstrap": {"configRef": {"apiVersion": "bootstrap.cluster.x-k8s.io/v1beta1", "kind": "KubeadmConfig", "name": format!("prod-eastus2-{i}-mp-0"), "namespace": "fleet-prod"},
                                  "dataSecretName": format!("prod-eastus2-{i}-mp-0-bootstrap")},
                    "infrastructureRef": {"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "AzureMachinePool", "name": format!("prod-eastus2-{i}-mp-0"), "namespace": "fleet-prod"},
                    "version": "v1.33.4",
                    "nodeDrainTimeout": "5m0s", "nodeDeletionTimeout": "10s",
                },
            },
            "minReadySeconds": 0,
            "providerIDList": provider_ids(i),
            "failureDomains": ["1", "2", "3"],
        },
        "status": {
            "nodeRefs": node_refs(i),
            "replicas": REPLICAS, "readyReplicas": REPLICAS, "availableReplicas": REPLICAS,
            "phase": "Running", "bootstrapReady": true, "infrastructureReady": true, "observedGeneration": 4,
            "conditions": v1beta1_conditions(i),
            "v1beta2": {"conditions": v1beta2_conditions(i), "readyReplicas": REPLICAS, "availableReplicas": REPLICAS, "upToDateReplicas": REPLICAS},
        },
    })
}
