//! ClusterClass clusters in a manifest stream: what upstream's topology controller reads of
//! them ([`crate::upgrade_plan::TopologyState`]), the step it takes next, and every pool of the
//! cluster judged against that step, owned by the topology or not.
//!
//! Read from the stream: the Cluster (`spec.topology`: version, class, the workers in order
//! with their `defer-upgrade` / `hold-upgrade-sequence` annotations; the
//! `topology.cluster.x-k8s.io/upgrade-concurrency` annotation), its ClusterClass
//! (`spec.kubernetesVersions`; without it in the input, one minor at a time, said so), its
//! control plane (`spec.version`, `status.versions`, `status.version`), the MachinePools and
//! MachineDeployments of the cluster (owned when labelled `topology.cluster.x-k8s.io/owned`,
//! as upstream lists them: `core/reconcilers/topology/cluster/current_state.go` lines
//! 323-330), and, to tell an owned worker upgrading, the Nodes its `status.nodeRefs` name
//! (a MachinePool: upstream's `IsMachinePoolUpgrading`) or the Machines labelled with its
//! name (a MachineDeployment: `IsMachineDeploymentUpgrading`). Without them, a worker is
//! taken as not upgrading: that only changes *when* the control plane takes its step.

use std::collections::BTreeMap;

use capi_diagnostics::Severity;
use capi_machinepool_api::constants::GROUP;
use capi_machinepool_api::v1beta2;
use serde_json::Value;

use crate::document::{group_of, object_label, str_at, string_at};
use crate::skew::{ApiServers, MinorVersion, SkewFinding, SkewRule, VersionAt, window_for};
use crate::upgrade_plan::{
    ControlPlaneFacts, Hold, NextVersions, TopologyState, Worker, WorkerTopology, next_versions,
};

/// The label upstream lists topology-owned workers by.
pub const TOPOLOGY_OWNED_LABEL: &str = "topology.cluster.x-k8s.io/owned";
/// The label naming a MachinePool's entry in the Cluster's topology.
pub const TOPOLOGY_POOL_NAME_LABEL: &str = "topology.cluster.x-k8s.io/pool-name";
/// The label naming a MachineDeployment's entry in the Cluster's topology.
pub const TOPOLOGY_DEPLOYMENT_NAME_LABEL: &str = "topology.cluster.x-k8s.io/deployment-name";
/// Defers one worker's upgrade.
pub const DEFER_UPGRADE_ANNOTATION: &str = "topology.cluster.x-k8s.io/defer-upgrade";
/// Holds the upgrade of a worker and every later one.
pub const HOLD_UPGRADE_SEQUENCE_ANNOTATION: &str =
    "topology.cluster.x-k8s.io/hold-upgrade-sequence";
/// How many workers of a kind upgrade at once (on the Cluster; default 1).
pub const UPGRADE_CONCURRENCY_ANNOTATION: &str = "topology.cluster.x-k8s.io/upgrade-concurrency";

/// `(namespace, name)`.
type Key = (String, String);

/// A MachinePool or MachineDeployment of the stream.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct WorkerDoc {
    namespace: String,
    cluster: String,
    owned: bool,
    worker: Worker,
    node_refs: Vec<String>,
}

/// A ClusterClass Cluster of the stream.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct TopologyCluster {
    version: String,
    class: Key,
    control_plane: (String, String, String),
    machine_deployments: Vec<WorkerTopology>,
    machine_pools: Vec<WorkerTopology>,
    concurrency: usize,
}

/// What the topology controller reads of the stream's ClusterClass clusters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TopologyInputs {
    clusters: BTreeMap<Key, TopologyCluster>,
    classes: BTreeMap<Key, Vec<String>>,
    /// `(group, kind, namespace, name)` -> the control plane as the contract reads it.
    control_planes: BTreeMap<(String, String, String, String), ControlPlaneFacts>,
    machine_pools: Vec<WorkerDoc>,
    machine_deployments: Vec<WorkerDoc>,
    /// Node name -> `status.nodeInfo.kubeletVersion`.
    nodes: BTreeMap<String, String>,
    /// `(namespace, MachineDeployment)` -> versions of its Machines (spec and kubelet).
    machines: BTreeMap<Key, Vec<String>>,
}

fn worker_topologies(doc: &Value, kind: &str) -> Vec<WorkerTopology> {
    doc.pointer(&format!("/spec/topology/workers/{kind}"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|t| {
            let annotations = t.pointer("/metadata/annotations");
            let has = |a: &str| annotations.and_then(|m| m.get(a)).is_some();
            WorkerTopology {
                name: string_at(t, "/name"),
                defer_upgrade: has(DEFER_UPGRADE_ANNOTATION),
                hold_upgrade_sequence: has(HOLD_UPGRADE_SEQUENCE_ANNOTATION),
            }
        })
        .collect()
}

fn label<'a>(doc: &'a Value, name: &str) -> Option<&'a str> {
    doc.pointer("/metadata/labels")
        .and_then(|l| l.get(name))
        .and_then(Value::as_str)
}

fn strings(doc: &Value, pointer: &str, field: &str) -> Vec<String> {
    doc.pointer(pointer)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|v| {
            if field.is_empty() {
                v.as_str()
            } else {
                str_at(v, field)
            }
        })
        .map(str::to_owned)
        .collect()
}

impl TopologyInputs {
    /// Reads one document of the stream (any kind; what is not needed is ignored).
    pub fn add(&mut self, doc: &Value) {
        let group = group_of(str_at(doc, "/apiVersion").unwrap_or_default());
        let kind = str_at(doc, "/kind").unwrap_or_default();
        let key = (
            string_at(doc, "/metadata/namespace"),
            string_at(doc, "/metadata/name"),
        );
        match (group, kind) {
            (GROUP, "Cluster") => self.add_cluster(key, doc),
            (GROUP, "ClusterClass") => {
                self.classes
                    .insert(key, strings(doc, "/spec/kubernetesVersions", ""));
            }
            (GROUP, "MachinePool" | "MachineDeployment") => self.add_worker(kind, key, doc),
            (GROUP, "Machine") => {
                if let Some(md) = label(doc, "cluster.x-k8s.io/deployment-name") {
                    let versions = self.machines.entry((key.0, md.to_owned())).or_default();
                    versions.push(string_at(doc, "/spec/version"));
                    versions.extend(
                        str_at(doc, "/status/nodeInfo/kubeletVersion")
                            .filter(|v| !v.is_empty())
                            .map(str::to_owned),
                    );
                }
            }
            ("", "Node") => {
                let kubelet = string_at(doc, "/status/nodeInfo/kubeletVersion");
                self.nodes.insert(key.1, kubelet);
            }
            _ if doc.pointer("/spec/version").is_some() => {
                let facts = ControlPlaneFacts {
                    spec_version: string_at(doc, "/spec/version"),
                    status_versions: strings(doc, "/status/versions", "/version"),
                    status_version: str_at(doc, "/status/version").map(str::to_owned),
                };
                self.control_planes
                    .insert((group.to_owned(), kind.to_owned(), key.0, key.1), facts);
            }
            _ => {}
        }
    }

    fn add_cluster(&mut self, key: Key, doc: &Value) {
        let Some(topology) = doc.pointer("/spec/topology") else {
            return;
        };
        let class_name = str_at(topology, "/classRef/name")
            .or_else(|| str_at(topology, "/class"))
            .unwrap_or_default();
        let class_ns = str_at(topology, "/classRef/namespace")
            .or_else(|| str_at(topology, "/classNamespace"))
            .filter(|ns| !ns.is_empty())
            .unwrap_or(&key.0);
        let cp = doc.pointer("/spec/controlPlaneRef").unwrap_or(&Value::Null);
        let cp_group = str_at(cp, "/apiGroup")
            .map(str::to_owned)
            .unwrap_or_else(|| group_of(str_at(cp, "/apiVersion").unwrap_or_default()).to_owned());
        let concurrency = doc
            .pointer("/metadata/annotations")
            .and_then(|a| a.get(UPGRADE_CONCURRENCY_ANNOTATION))
            .and_then(Value::as_str)
            .and_then(|c| c.parse().ok())
            .unwrap_or(1);
        self.clusters.insert(
            key.clone(),
            TopologyCluster {
                version: string_at(topology, "/version"),
                class: (class_ns.to_owned(), class_name.to_owned()),
                control_plane: (cp_group, string_at(cp, "/kind"), string_at(cp, "/name")),
                machine_deployments: worker_topologies(doc, "machineDeployments"),
                machine_pools: worker_topologies(doc, "machinePools"),
                concurrency,
            },
        );
    }

    fn add_worker(&mut self, kind: &str, (namespace, name): Key, doc: &Value) {
        let topology_label = if kind == "MachinePool" {
            TOPOLOGY_POOL_NAME_LABEL
        } else {
            TOPOLOGY_DEPLOYMENT_NAME_LABEL
        };
        let worker = WorkerDoc {
            namespace,
            cluster: string_at(doc, "/spec/clusterName"),
            owned: label(doc, TOPOLOGY_OWNED_LABEL).is_some(),
            worker: Worker {
                name,
                topology_name: label(doc, topology_label).unwrap_or_default().to_owned(),
                version: string_at(doc, "/spec/template/spec/version"),
                upgrading: false,
            },
            node_refs: strings(doc, "/status/nodeRefs", "/name"),
        };
        if kind == "MachinePool" {
            self.machine_pools.push(worker);
        } else {
            self.machine_deployments.push(worker);
        }
    }

    /// Upstream's `IsMachinePoolUpgrading`: a Node the pool references runs another version
    /// than the pool's (compared as written). A Node not in the input counts as not upgrading.
    fn pool_upgrading(&self, w: &WorkerDoc) -> bool {
        w.node_refs.iter().any(|n| {
            self.nodes
                .get(n)
                .is_some_and(|v| !v.is_empty() && *v != w.worker.version)
        })
    }

    /// Upstream's `IsMachineDeploymentUpgrading`: a Machine at another version.
    fn deployment_upgrading(&self, w: &WorkerDoc) -> bool {
        self.machines
            .get(&(w.namespace.clone(), w.worker.name.clone()))
            .is_some_and(|vs| vs.iter().any(|v| *v != w.worker.version))
    }

    /// The state upstream's topology controller reads for the Cluster `(namespace, name)`,
    /// with the control plane's label and whether its ClusterClass was in the input; `None`
    /// for a Cluster without a topology or whose control plane is not in the input.
    #[must_use]
    pub fn state_for(&self, namespace: &str, cluster: &str) -> Option<ClusterPlan> {
        let key = (namespace.to_owned(), cluster.to_owned());
        let c = self.clusters.get(&key)?;
        let (group, kind, name) = &c.control_plane;
        let facts = self.control_planes.get(&(
            group.clone(),
            kind.clone(),
            namespace.to_owned(),
            name.clone(),
        ))?;
        let class = self.classes.get(&c.class);
        let owned = |docs: &[WorkerDoc], pool: bool| -> Vec<Worker> {
            let mut out: Vec<Worker> = Vec::new();
            for w in docs
                .iter()
                .filter(|w| w.namespace == namespace && w.cluster == cluster && w.owned)
            {
                let mut worker = w.worker.clone();
                worker.upgrading = if pool {
                    self.pool_upgrading(w)
                } else {
                    self.deployment_upgrading(w)
                };
                out.push(worker);
            }
            out
        };
        let state = TopologyState {
            topology_version: c.version.clone(),
            class_versions: class.cloned().unwrap_or_default(),
            control_plane: facts.clone(),
            machine_deployments: owned(&self.machine_deployments, false),
            machine_pools: owned(&self.machine_pools, true),
            machine_deployment_topologies: c.machine_deployments.clone(),
            machine_pool_topologies: c.machine_pools.clone(),
            upgrade_concurrency: c.concurrency,
        };
        Some(ClusterPlan {
            state,
            control_plane: object_label(kind, namespace, name),
            cluster: object_label("Cluster", namespace, cluster),
            class_in_input: class.is_some(),
        })
    }
}

/// A ClusterClass cluster as upstream's topology controller reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterPlan {
    /// What upstream reads.
    pub state: TopologyState,
    /// `Kind ns/name` of the control plane.
    pub control_plane: String,
    /// `Cluster ns/name`.
    pub cluster: String,
    /// The ClusterClass was in the input (else one minor at a time is assumed).
    pub class_in_input: bool,
}

const SOURCE: &str = "Cluster API v1.14.2 exp/topology/desiredstate";

fn plan_text(plan: &ClusterPlan, next: &NextVersions) -> String {
    let how = if !plan.state.class_versions.is_empty() {
        "the ClusterClass's kubernetesVersions"
    } else if plan.class_in_input {
        "one minor at a time (the ClusterClass lists no kubernetesVersions)"
    } else {
        "one minor at a time (the ClusterClass is not in the input: its kubernetesVersions unknown)"
    };
    let owned = plan.state.machine_pools.len() + plan.state.machine_deployments.len();
    let workers = match next.plan.missing_worker_minor {
        Some(m) => format!(
            "none: upstream finds no version for minor 1.{m} and returns no workers' plan and no error (upgrade_plan.go lines 221-226), so no worker holds the control plane"
        ),
        None => format!("{:?}", next.plan.workers),
    };
    format!(
        "control plane plan {:?} ({how}); workers' plan {workers}, over {owned} owned worker(s) from {} (upgrade_plan.go ComputeUpgradePlan)",
        next.plan.control_plane,
        next.plan.min_workers_version.as_deref().unwrap_or("none"),
    )
}

fn hold_text(hold: Option<&Hold>) -> String {
    match hold {
        None => "this reconcile".to_owned(),
        Some(Hold::Provisioning) => "once the control plane is provisioned".to_owned(),
        Some(Hold::ControlPlaneUpgrading) => {
            "once the control plane finishes its upgrade (the contract's IsUpgrading)".to_owned()
        }
        Some(Hold::WorkersFirst) => {
            "once the owned workers reach its version (the workers' plan starts there: desired_state.go lines 629-636)".to_owned()
        }
        Some(Hold::WorkersUpgrading(names)) => format!(
            "once {} finish upgrading (desired_state.go lines 641-643)",
            names.join(", ")
        ),
        Some(Hold::AtTopologyVersion) => "never: it is at the topology version".to_owned(),
    }
}

/// Why upstream's plan does not keep this pool within the policy.
fn why_unprotected(owned: bool, next: &NextVersions, kubelet: MinorVersion) -> String {
    if !owned {
        return format!(
            "the pool is not owned by the topology (no {TOPOLOGY_OWNED_LABEL} label): upstream plans only over owned MachinePools and MachineDeployments (core/reconcilers/topology/cluster/current_state.go lines 323-330, exp/topology/desiredstate/upgrade_plan.go lines 74-97), so nothing waits for it"
        );
    }
    if let Some(m) = next.plan.missing_worker_minor {
        return format!(
            "the oldest owned worker is beyond the window: upstream finds no version for minor 1.{m}, returns no workers' plan and no error (upgrade_plan.go lines 221-226), and nothing holds the control plane"
        );
    }
    if window_for(kubelet) < crate::skew::MAX_KUBELET_MINORS_BEHIND {
        return "upstream adds a workers' step only every third minor, for every kubelet version (upgrade_plan.go lines 216-229), while the skew policy allows a kubelet older than 1.25 only two minors behind kube-apiserver".to_owned();
    }
    "upstream's plan does not hold the control plane for this pool".to_owned()
}

/// The verdicts on one pool of a ClusterClass cluster against the step upstream's topology
/// controller takes next: one [`SkewRule::TopologyNextStep`] note saying the step and the
/// model, and a [`SkewRule::UpstreamBreaksPool`] error for each kubelet that step leaves
/// outside the policy. An owned pool is judged by its `spec.template.spec.version` (upstream
/// waits while it upgrades), and not at all while the workers' plan holds the control plane
/// for the owned workers; a pool the topology does not own, by every kubelet version.
#[must_use]
pub fn step_verdicts(
    plan: &ClusterPlan,
    pool: &v1beta2::MachinePool,
    kubelets: &[VersionAt],
) -> Vec<SkewFinding> {
    let next = match next_versions(&plan.state) {
        Ok(next) => next,
        Err(e) => {
            return vec![SkewFinding {
                rule: SkewRule::TopologyNextStep,
                severity: None,
                kubelet: None,
                api_servers: Vec::new(),
                message: format!(
                    "upstream's topology controller fails this Cluster's reconcile and changes nothing ({SOURCE}): {e}"
                ),
            }];
        }
    };
    let Some(step) = next.control_plane_step() else {
        return Vec::new();
    };
    let name = pool.metadata.name.as_deref().unwrap_or_default();
    let owned = pool
        .metadata
        .labels
        .as_ref()
        .is_some_and(|l| l.contains_key(TOPOLOGY_OWNED_LABEL));
    let step_at = VersionAt::new(
        step,
        format!(
            "{} spec.topology.version: the step the topology controller sets in {} spec.version {}",
            plan.cluster,
            plan.control_plane,
            hold_text(next.hold.as_ref())
        ),
    );
    let mut findings = vec![SkewFinding {
        rule: SkewRule::TopologyNextStep,
        severity: None,
        kubelet: None,
        api_servers: vec![step_at.clone()],
        message: format!(
            "{} ({SOURCE}); MachinePool {name} is {}",
            plan_text(plan, &next),
            if owned {
                "owned by the topology"
            } else {
                "not owned by the topology"
            }
        ),
    }];
    let workers_first = next.plan.workers.first() == Some(&plan.state.control_plane.spec_version);
    if owned && workers_first {
        return findings;
    }
    let judged: Vec<&VersionAt> = if owned {
        kubelets.iter().take(1).collect()
    } else {
        kubelets.iter().collect()
    };
    let (Some(window), _) = ApiServers::from_versions(std::slice::from_ref(&step_at)) else {
        return findings;
    };
    for kubelet in judged.into_iter().filter(|k| !k.version.is_empty()) {
        let Ok(v) = MinorVersion::kubelet(&kubelet.version) else {
            continue;
        };
        if let Some((_, Severity::Error, _, message)) = window.verdict(v) {
            findings.push(SkewFinding {
                rule: SkewRule::UpstreamBreaksPool,
                severity: Some(Severity::Error),
                kubelet: Some(kubelet.clone()),
                api_servers: vec![step_at.clone()],
                message: format!(
                    "upstream will take this step: {message}; {}",
                    why_unprotected(owned, &next, v)
                ),
            });
        }
    }
    findings
}
