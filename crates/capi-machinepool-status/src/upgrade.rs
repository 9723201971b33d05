//! Gating on a MachinePool upgrade: has the pool finished rolling out
//! `spec.template.spec.version`?
//!
//! Clients that gate on `status.observedGeneration == metadata.generation` plus conditions (which
//! works for MachineDeployments) see a MachinePool "done" right after a version bump
//! (cluster-api#10059): upstream catches up `observedGeneration` at once, sets no `RollingOut`
//! condition, and reports `upToDateReplicas = spec.replicas` for pools without MachinePool
//! Machines. [`upgrade_verdict`] checks every signal a pool has, and says what is still pending:
//!
//! 1. the controller observed the current generation ([`Pending::GenerationNotObserved`]);
//! 2. when a `RollingOut` condition is reported, it is for that generation and is False
//!    ([`Pending::RollingOut`] and friends). Upstream's MachinePool controller writes none, so
//!    the gate never depends on it: a pool as upstream writes it after an upgrade (every
//!    `status.versions` entry at the target, counters equal) is complete. Upstream's own check,
//!    `IsMachinePoolUpgrading` (`internal/topology/check/upgrade.go` at ae7ff047), compares the
//!    kubelet version of every referenced Node with the template version; rule 3 does that on
//!    `status.versions`, which upstream fills from the same Nodes;
//! 3. every `status.versions` entry runs the template version (see
//!    [`runs_version`]), and the entries account for every
//!    desired replica ([`Pending::VersionsBehind`], [`Pending::VersionsIncomplete`]);
//! 4. `status.replicas`, `readyReplicas` and `availableReplicas` all equal `spec.replicas`, and
//!    `upToDateReplicas` too when the status was written by a controller that computes it (a
//!    `RollingOut` condition is reported, as [`apply`](crate::conditions::apply) writes both).
//!    Upstream's counter says nothing: without MachinePool Machines it writes `spec.replicas`
//!    whatever runs, with them it counts Machines whose `UpToDate` is True
//!    (`core/reconcilers/machinepool/machinepool_controller_status.go` `setReplicas` at
//!    ae7ff047), a condition the Machine controller never sets on MachinePool Machines
//!    (`core/reconcilers/machine/machine_controller_status.go` `setUpToDateCondition`: only for
//!    Machines of a MachineSet of a MachineDeployment) and upstream's MachinePool controller
//!    sets True on every Machine not being deleted, whatever its version
//!    (`machinepool_controller.go` `setMachinesUptoDate`); releases without that last function
//!    write 0 forever, so a gate on it never opens. Upstream's own upgrade check ignores it.
//!
//! [`upgrade_verdict_with_nodes`] adds upstream's own check, `IsMachinePoolUpgrading`: the
//! kubelet of every Node in `status.nodeRefs` runs the template version.
//!
//! ```
//! use capi_machinepool_status::upgrade::{Pending, upgrade_verdict};
//! use capi_machinepool_api::v1beta2::MachinePool;
//! let mp: MachinePool = serde_json::from_value(serde_json::json!({
//!   "apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
//!   "metadata": {"name": "pool", "generation": 2},
//!   "spec": {"clusterName": "c", "replicas": 1, "template": {"spec": {"clusterName": "c",
//!     "version": "v1.35.0", "bootstrap": {"dataSecretName": ""},
//!     "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "AzureManagedMachinePool", "name": "p"}}}},
//!   "status": {"observedGeneration": 2, "replicas": 1, "readyReplicas": 1, "availableReplicas": 1,
//!     "upToDateReplicas": 1, "versions": [{"version": "v1.34.2", "replicas": 1}]}})).unwrap();
//! let verdict = upgrade_verdict(&mp);
//! assert!(!verdict.is_complete());
//! assert!(verdict.pending().contains(&Pending::VersionsBehind {
//!     desired: "v1.35.0".into(), behind: vec![("v1.34.2".into(), 1)] }));
//! ```

use std::fmt;

use capi_machinepool_api::v1beta2::MachinePool;

use capi_conditions::types::{FALSE, condition as ct};

use crate::conditions::{runs_version, version_tally};
use k8s_openapi::api::core::v1::Node;

/// Whether an upgrade (or any rollout) of a MachinePool is complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UpgradeVerdict {
    /// Every check passed: the pool runs the template version on every desired replica, and
    /// all of them are ready and available.
    Complete,
    /// Something is pending, in check order (never empty).
    Pending(Vec<Pending>),
}

impl UpgradeVerdict {
    /// True for [`UpgradeVerdict::Complete`].
    #[must_use]
    pub fn is_complete(&self) -> bool {
        matches!(self, Self::Complete)
    }

    /// What is pending (empty when complete).
    #[must_use]
    pub fn pending(&self) -> &[Pending] {
        match self {
            Self::Complete => &[],
            Self::Pending(p) => p,
        }
    }
}

/// One reason an upgrade is not complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pending {
    /// The pool is being deleted.
    Deleting,
    /// `spec.replicas` is unset (the defaulting webhook sets it; nothing to compare with).
    ReplicasUnset,
    /// `status.observedGeneration` is behind `metadata.generation`.
    GenerationNotObserved {
        /// `metadata.generation`.
        generation: i64,
        /// `status.observedGeneration`.
        observed: i64,
    },
    /// `RollingOut` was computed for an older generation.
    RollingOutStale {
        /// Its `observedGeneration`.
        observed: Option<i64>,
        /// `metadata.generation`.
        generation: i64,
    },
    /// `RollingOut` is True or Unknown.
    RollingOut {
        /// Its status.
        status: String,
        /// Its message.
        message: String,
    },
    /// Entries of `status.versions` run another version than the template.
    VersionsBehind {
        /// `spec.template.spec.version`.
        desired: String,
        /// The entries on another version (version, replicas).
        behind: Vec<(String, i32)>,
    },
    /// `status.versions` accounts for fewer replicas than desired (instances whose Node has not
    /// joined, or reported no kubelet version).
    VersionsIncomplete {
        /// Replicas `status.versions` accounts for.
        reported: i32,
        /// `spec.replicas`.
        desired: i32,
    },
    /// A Node the pool references (`status.nodeRefs`) runs another kubelet version than the
    /// template's.
    NodeBehind {
        /// The Node's name.
        node: String,
        /// Its `status.nodeInfo.kubeletVersion`.
        kubelet: String,
        /// `spec.template.spec.version`.
        desired: String,
    },
    /// A Node the pool references is not among the Nodes given.
    NodeNotFound {
        /// The Node's name.
        node: String,
    },
    /// A counter differs from `spec.replicas`.
    Counter {
        /// Which counter.
        counter: Counter,
        /// Its value (`None` when unset).
        value: Option<i32>,
        /// `spec.replicas`.
        desired: i32,
    },
}

/// A replica counter of the MachinePool status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Counter {
    /// `status.replicas`.
    Replicas,
    /// `status.upToDateReplicas`.
    UpToDate,
    /// `status.readyReplicas`.
    Ready,
    /// `status.availableReplicas`.
    Available,
}

impl Counter {
    /// The status field.
    #[must_use]
    pub fn field(self) -> String {
        match self {
            Self::Replicas => capi_contract::fields::machine_pool::REPLICAS.dotted(),
            Self::UpToDate => "status.upToDateReplicas".to_owned(),
            Self::Ready => "status.readyReplicas".to_owned(),
            Self::Available => "status.availableReplicas".to_owned(),
        }
    }
}

impl fmt::Display for Pending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Deleting => f.write_str("the MachinePool is being deleted"),
            Self::ReplicasUnset => f.write_str("spec.replicas is unset"),
            Self::GenerationNotObserved {
                generation,
                observed,
            } => write!(
                f,
                "status.observedGeneration {observed} is behind metadata.generation {generation}"
            ),
            Self::RollingOutStale {
                observed,
                generation,
            } => match observed {
                Some(o) => write!(
                    f,
                    "RollingOut was computed for generation {o}, not {generation}"
                ),
                None => write!(
                    f,
                    "RollingOut has no observedGeneration (generation is {generation})"
                ),
            },
            Self::RollingOut { status, message } if message.is_empty() => {
                write!(f, "RollingOut is {status}")
            }
            Self::RollingOut { status, message } => {
                write!(f, "RollingOut is {status}: {message}")
            }
            Self::VersionsBehind { desired, behind } => {
                let list: Vec<String> = behind.iter().map(|(v, n)| format!("{n} on {v}")).collect();
                write!(
                    f,
                    "status.versions has replicas not at {desired}: {}",
                    list.join(", ")
                )
            }
            Self::VersionsIncomplete { reported, desired } => write!(
                f,
                "status.versions accounts for {reported} of {desired} replicas"
            ),
            Self::NodeBehind {
                node,
                kubelet,
                desired,
            } => write!(f, "Node {node} runs kubelet {kubelet}, not {desired}"),
            Self::NodeNotFound { node } => write!(
                f,
                "Node {node} (status.nodeRefs) is not among the Nodes given"
            ),
            Self::Counter {
                counter,
                value: Some(v),
                desired,
            } => write!(f, "{} is {v}, spec.replicas is {desired}", counter.field()),
            Self::Counter {
                counter,
                value: None,
                desired,
            } => write!(
                f,
                "{} is unset, spec.replicas is {desired}",
                counter.field()
            ),
        }
    }
}

/// Whether the pool finished rolling out its template version; see the module documentation
/// for the checks, in order. Reads only the pool, as a client sees it.
#[must_use]
pub fn upgrade_verdict(mp: &MachinePool) -> UpgradeVerdict {
    let mut pending = Vec::new();
    if mp.metadata.deletion_timestamp.is_some() {
        pending.push(Pending::Deleting);
    }
    pending.extend(generation_check(mp));
    pending.extend(rolling_out_check(mp));
    match mp.spec.replicas {
        Some(desired) => {
            pending.extend(versions_check(mp, desired));
            pending.extend(counters_check(mp, desired));
        }
        None => pending.push(Pending::ReplicasUnset),
    }
    if pending.is_empty() {
        UpgradeVerdict::Complete
    } else {
        UpgradeVerdict::Pending(pending)
    }
}

/// [`upgrade_verdict`], then upstream's own upgrade check on the pool's Nodes
/// (`IsMachinePoolUpgrading`, `internal/topology/check/upgrade.go` at ae7ff047): the kubelet of
/// every Node in `status.nodeRefs` runs `spec.template.spec.version`
/// ([`Pending::NodeBehind`]); a referenced Node missing from `nodes` is
/// [`Pending::NodeNotFound`] (upstream fails its check). Versions are compared as rule 3
/// compares them ([`runs_version`]: a vendor build suffix such
/// as `-eks-5e0fdde` runs its release), where upstream compares the strings and would never
/// see such a pool done. `nodes`: the cluster's Nodes, as `kubectl get nodes` lists them.
///
/// ```
/// use capi_machinepool_status::upgrade::{Pending, upgrade_verdict_with_nodes};
/// use capi_machinepool_api::v1beta2::MachinePool;
/// use k8s_openapi::api::core::v1::Node;
/// let mp: MachinePool = serde_json::from_value(serde_json::json!({
///   "metadata": {"name": "pool", "generation": 2},
///   "spec": {"clusterName": "c", "replicas": 1, "template": {"spec": {"clusterName": "c",
///     "version": "v1.35.0", "bootstrap": {"dataSecretName": ""},
///     "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DevMachinePool", "name": "p"}}}},
///   "status": {"observedGeneration": 2, "replicas": 1, "readyReplicas": 1, "availableReplicas": 1,
///     "upToDateReplicas": 0, "nodeRefs": [{"kind": "Node", "name": "n1"}],
///     "versions": [{"version": "v1.35.0", "replicas": 1}]}})).unwrap();
/// let node: Node = serde_json::from_value(serde_json::json!({
///   "metadata": {"name": "n1"}, "status": {"nodeInfo": {"kubeletVersion": "v1.35.0",
///     "architecture": "", "bootID": "", "containerRuntimeVersion": "", "kernelVersion": "",
///     "kubeProxyVersion": "", "machineID": "", "operatingSystem": "", "osImage": "", "systemUUID": ""}}})).unwrap();
/// // upToDateReplicas 0 as upstream writes it for MachinePool Machines: not judged.
/// assert!(upgrade_verdict_with_nodes(&mp, &[node]).is_complete());
/// assert_eq!(upgrade_verdict_with_nodes(&mp, &[]).pending(), [Pending::NodeNotFound { node: "n1".into() }]);
/// ```
#[must_use]
pub fn upgrade_verdict_with_nodes(mp: &MachinePool, nodes: &[Node]) -> UpgradeVerdict {
    let mut pending = match upgrade_verdict(mp) {
        UpgradeVerdict::Complete => Vec::new(),
        UpgradeVerdict::Pending(p) => p,
    };
    let desired = &mp.spec.template.spec.version;
    if !desired.is_empty() {
        for node_ref in mp.status.node_refs.iter().flatten() {
            let name = node_ref.name.clone().unwrap_or_default();
            let node = nodes
                .iter()
                .find(|n| n.metadata.name.as_deref() == Some(name.as_str()));
            let Some(node) = node else {
                pending.push(Pending::NodeNotFound { node: name });
                continue;
            };
            let kubelet = node
                .status
                .as_ref()
                .and_then(|s| s.node_info.as_ref())
                .map(|i| i.kubelet_version.clone())
                .unwrap_or_default();
            if !runs_version(desired, &kubelet) {
                pending.push(Pending::NodeBehind {
                    node: name,
                    kubelet,
                    desired: desired.clone(),
                });
            }
        }
    }
    if pending.is_empty() {
        UpgradeVerdict::Complete
    } else {
        UpgradeVerdict::Pending(pending)
    }
}

/// `metadata.generation` (0 when unset, as the API server always sets it).
fn generation(mp: &MachinePool) -> i64 {
    mp.metadata.generation.unwrap_or(0)
}

/// Rule 1: the controller has seen the current spec.
fn generation_check(mp: &MachinePool) -> Option<Pending> {
    let (generation, observed) = (generation(mp), mp.status.observed_generation);
    (observed < generation).then_some(Pending::GenerationNotObserved {
        generation,
        observed,
    })
}

/// Rule 2: when `RollingOut` is reported (our controller, or a future upstream), it is for the
/// current generation, and False. Without it the other rules decide: upstream's controller
/// writes none, and its own answer (`IsMachinePoolUpgrading`,
/// `internal/topology/check/upgrade.go`) compares versions only.
fn rolling_out_check(mp: &MachinePool) -> Option<Pending> {
    let c = capi_conditions::get(mp, ct::ROLLING_OUT)?;
    let generation = generation(mp);
    if c.observed_generation.is_none_or(|o| o < generation) {
        return Some(Pending::RollingOutStale {
            observed: c.observed_generation,
            generation,
        });
    }
    (c.status != FALSE).then(|| Pending::RollingOut {
        status: c.status.clone(),
        message: c.message.clone(),
    })
}

/// Rule 3: every `status.versions` entry at the template version, covering every desired
/// replica. Skipped without a template version (nothing to compare with).
fn versions_check(mp: &MachinePool, desired: i32) -> Vec<Pending> {
    let version = &mp.spec.template.spec.version;
    if version.is_empty() {
        return Vec::new();
    }
    let tally = version_tally(mp);
    let mut out = Vec::new();
    if !tally.behind.is_empty() {
        out.push(Pending::VersionsBehind {
            desired: version.clone(),
            behind: tally.behind.clone(),
        });
    }
    let reported = tally.at_template.saturating_add(tally.not_at_template());
    if reported < desired {
        out.push(Pending::VersionsIncomplete { reported, desired });
    }
    out
}

/// Rule 4: every counter equals `spec.replicas`; `upToDateReplicas` only when the status was
/// written by a controller that computes it (a `RollingOut` condition is reported).
fn counters_check(mp: &MachinePool, desired: i32) -> Vec<Pending> {
    let s = &mp.status;
    let up_to_date_computed = capi_conditions::get(mp, ct::ROLLING_OUT).is_some();
    [
        (Counter::Replicas, s.replicas),
        (Counter::UpToDate, s.up_to_date_replicas),
        (Counter::Ready, s.ready_replicas),
        (Counter::Available, s.available_replicas),
    ]
    .into_iter()
    .filter(|(counter, _)| *counter != Counter::UpToDate || up_to_date_computed)
    .filter(|(_, value)| *value != Some(desired))
    .map(|(counter, value)| Pending::Counter {
        counter,
        value,
        desired,
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use capi_conditions::new_condition;

    fn pool() -> MachinePool {
        let mut mp = MachinePool::default();
        mp.metadata.generation = Some(5);
        mp.spec.replicas = Some(1);
        mp.status.observed_generation = 5;
        mp.status.replicas = Some(1);
        mp.status.ready_replicas = Some(1);
        mp.status.available_replicas = Some(1);
        mp.status.up_to_date_replicas = Some(1);
        mp
    }

    fn with_rolling_out(mut mp: MachinePool, observed: Option<i64>) -> MachinePool {
        let mut c = new_condition(ct::ROLLING_OUT, FALSE, "NotRollingOut", "");
        c.observed_generation = observed;
        mp.status.conditions = Some(vec![c]);
        mp
    }

    #[test]
    fn complete_without_template_version() {
        assert_eq!(
            upgrade_verdict(&with_rolling_out(pool(), Some(5))),
            UpgradeVerdict::Complete
        );
    }

    /// A RollingOut condition from before the version bump proves nothing (cluster-api#10059:
    /// conditions lag the generation).
    #[test]
    fn stale_rolling_out_is_pending() {
        assert_eq!(
            upgrade_verdict(&with_rolling_out(pool(), Some(4))).pending(),
            [Pending::RollingOutStale {
                observed: Some(4),
                generation: 5
            }]
        );
    }

    #[test]
    fn unset_replicas_and_counters() {
        let mut mp = with_rolling_out(pool(), Some(5));
        mp.spec.replicas = None;
        assert_eq!(upgrade_verdict(&mp).pending(), [Pending::ReplicasUnset]);
        mp.spec.replicas = Some(2);
        assert_eq!(upgrade_verdict(&mp).pending().len(), 4);
    }
}
