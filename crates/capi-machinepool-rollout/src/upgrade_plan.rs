//! Upstream's upgrade plan for a ClusterClass cluster, and the versions the topology
//! controller writes next: a model of Cluster API v1.14.2's
//! `exp/topology/desiredstate` (`upgrade_plan.go`: `ComputeUpgradePlan`,
//! `DefaultAndValidateUpgradePlans`, `GetUpgradePlanOneMinor`,
//! `GetUpgradePlanFromClusterClassVersions`; `desired_state.go`: the control plane, then each
//! MachineDeployment, then each MachinePool, in topology order), with the RuntimeSDK feature
//! gate off (its default) and so no lifecycle hooks.
//!
//! What the model holds to, each held by the differential against upstream's running code
//! (`tests/upstream_plan.rs`):
//!
//! * only the workers **owned by the topology** count (upstream lists MachinePools and
//!   MachineDeployments labelled `topology.cluster.x-k8s.io/owned`, `current_state.go` lines
//!   323-330): the plan starts from the oldest of them (`upgrade_plan.go` lines 74-97);
//! * the control plane plan is one minor at a time, or the ClusterClass's
//!   `kubernetesVersions` (the last version of each minor); an invalid plan is an error, and
//!   upstream's reconcile then changes nothing;
//! * the workers' plan adds a step every third minor from the oldest worker (lines 216-229)
//!   for every kubelet version, also before 1.25; when such a minor is not among the
//!   versions known, upstream returns no plan and no error (lines 221-226);
//! * the control plane waits while it is provisioning or upgrading (the control-plane
//!   contract's `IsUpgrading`), while the workers' plan starts at its version, and while a
//!   worker is upgrading (`desired_state.go` lines 560-643); else it takes the first step of
//!   its plan;
//! * each worker, in topology order, stays while deferred (`defer-upgrade`,
//!   `hold-upgrade-sequence` on it or an earlier one), at the upgrade concurrency, while the
//!   control plane is not stable, or while it is at the first step of the workers' plan; else
//!   it takes that step.
//!
//! Versions compare as upstream's `semver.ParseTolerant` and `version.Compare` with build
//! tags do: two versions differing only in build metadata are different but not ordered.
//! Where upstream compares the strings as written (the control plane's version against the
//! topology's, the first step of the workers' plan against a version), so does the model.

use std::cmp::Ordering;

use capi_versions::KubeVersion;

/// The control plane as the topology controller reads it (the control-plane contract).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ControlPlaneFacts {
    /// `spec.version`.
    pub spec_version: String,
    /// `status.versions[].version`, in order.
    pub status_versions: Vec<String>,
    /// `status.version` (read when `status.versions` is empty).
    pub status_version: Option<String>,
}

/// A MachineDeployment or MachinePool owned by the topology.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Worker {
    /// Its object name.
    pub name: String,
    /// Its name in the Cluster's topology (the `topology.cluster.x-k8s.io/pool-name` or
    /// `deployment-name` label).
    pub topology_name: String,
    /// `spec.template.spec.version`.
    pub version: String,
    /// Upstream's `IsUpgrading` said yes (its Machines or Nodes at another version).
    pub upgrading: bool,
}

/// One entry of `spec.topology.workers.machineDeployments` or `machinePools`, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkerTopology {
    /// `name`.
    pub name: String,
    /// `metadata.annotations` has `topology.cluster.x-k8s.io/defer-upgrade`.
    pub defer_upgrade: bool,
    /// `metadata.annotations` has `topology.cluster.x-k8s.io/hold-upgrade-sequence`.
    pub hold_upgrade_sequence: bool,
}

/// What the topology controller reads of a ClusterClass cluster.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TopologyState {
    /// `spec.topology.version`.
    pub topology_version: String,
    /// The ClusterClass's `spec.kubernetesVersions` (empty: one minor at a time).
    pub class_versions: Vec<String>,
    /// The control plane.
    pub control_plane: ControlPlaneFacts,
    /// The owned MachineDeployments.
    pub machine_deployments: Vec<Worker>,
    /// The owned MachinePools.
    pub machine_pools: Vec<Worker>,
    /// `spec.topology.workers.machineDeployments`, in order.
    pub machine_deployment_topologies: Vec<WorkerTopology>,
    /// `spec.topology.workers.machinePools`, in order.
    pub machine_pool_topologies: Vec<WorkerTopology>,
    /// The Cluster's `topology.cluster.x-k8s.io/upgrade-concurrency` (at least 1).
    pub upgrade_concurrency: usize,
}

/// Why upstream's topology controller refuses the cluster: its reconcile fails and changes
/// nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// A version does not parse.
    #[error("{what} {version:?} is not a version")]
    Version {
        /// Which version.
        what: &'static str,
        /// As written.
        version: String,
    },
    /// One minor at a time cannot reach the topology version.
    #[error(
        "no upgrade plan from {from} to {to}: without ClusterClass versions the topology controller upgrades one minor at a time"
    )]
    MoreThanOneMinor {
        /// The control plane's version.
        from: String,
        /// The topology's.
        to: String,
    },
    /// The control plane's plan breaks upstream's rules (order, a skipped minor, its end).
    #[error("invalid control plane upgrade plan {plan:?}: {why}")]
    InvalidControlPlanePlan {
        /// The plan.
        plan: Vec<String>,
        /// What is wrong.
        why: String,
    },
    /// The workers' plan breaks upstream's rules.
    #[error("invalid workers upgrade plan {plan:?}: {why}")]
    InvalidWorkersPlan {
        /// The plan.
        plan: Vec<String>,
        /// What is wrong.
        why: String,
    },
    /// The control plane has no `spec.version`.
    #[error("the control plane has no spec.version")]
    NoControlPlaneVersion,
}

/// Upstream's plans (`UpgradeTracker`): empty when nothing is to upgrade.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UpgradePlan {
    /// The oldest owned worker version (`MinWorkersVersion`), `v`-prefixed as upstream
    /// writes it.
    pub min_workers_version: Option<String>,
    /// The control plane's steps.
    pub control_plane: Vec<String>,
    /// The workers' steps (MachineDeployments and MachinePools alike).
    pub workers: Vec<String>,
    /// The minor whose version upstream could not find for a workers' step: it then
    /// returns no workers' plan and no error (`upgrade_plan.go` lines 221-226).
    pub missing_worker_minor: Option<u64>,
}

/// Why the control plane keeps its version this reconcile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hold {
    /// No `status.version(s)` yet.
    Provisioning,
    /// The contract's `IsUpgrading`: a running version below `spec.version`.
    ControlPlaneUpgrading,
    /// The workers' plan starts at the control plane's version: workers upgrade first.
    WorkersFirst,
    /// Owned workers are upgrading (by name).
    WorkersUpgrading(Vec<String>),
    /// Already at the topology version.
    AtTopologyVersion,
}

/// What a worker does this reconcile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkerStep {
    /// At the topology version.
    AtTopologyVersion,
    /// `defer-upgrade` or `hold-upgrade-sequence`.
    Deferred,
    /// The upgrade concurrency is reached.
    ConcurrencyReached,
    /// The control plane is not stable.
    ControlPlaneNotStable,
    /// At the first step of the workers' plan: waits for the control plane.
    WaitingForControlPlane,
    /// Takes the first step of the workers' plan.
    Upgrades,
}

/// A worker's version after this reconcile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerNext {
    /// Its object name.
    pub name: String,
    /// The version written.
    pub version: String,
    /// Why.
    pub step: WorkerStep,
}

/// The versions the topology controller writes this reconcile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NextVersions {
    /// The plans.
    pub plan: UpgradePlan,
    /// The control plane's `spec.version` after this reconcile.
    pub control_plane: String,
    /// Why it stays, when it does.
    pub hold: Option<Hold>,
    /// The MachineDeployments, in topology order.
    pub machine_deployments: Vec<WorkerNext>,
    /// The MachinePools, in topology order.
    pub machine_pools: Vec<WorkerNext>,
}

impl NextVersions {
    /// The step the control plane takes once nothing holds it: the first of its plan.
    #[must_use]
    pub fn control_plane_step(&self) -> Option<&str> {
        self.plan.control_plane.first().map(String::as_str)
    }
}

/// `semver.ParseTolerant`: a `v` prefix, and `MAJOR.MINOR` read as `MAJOR.MINOR.0`.
fn parse(what: &'static str, text: &str) -> Result<KubeVersion, PlanError> {
    let t = text.trim();
    KubeVersion::parse(t)
        .ok()
        .or_else(|| {
            let (major, minor) = KubeVersion::major_minor(t).ok()?;
            KubeVersion::parse(&format!("{major}.{minor}.0")).ok()
        })
        .ok_or_else(|| PlanError::Version {
            what,
            version: text.to_owned(),
        })
}

/// `version.Compare(a, b, WithBuildTags())`: `None` when only the build metadata differs.
fn compare(a: &KubeVersion, b: &KubeVersion) -> Option<Ordering> {
    match a.cmp(b) {
        Ordering::Equal if a.build() != b.build() => None,
        other => Some(other),
    }
}

/// Same version (`semver.Version.String()` equal).
fn same(a: &KubeVersion, b: &KubeVersion) -> bool {
    compare(a, b) == Some(Ordering::Equal)
}

/// `v` + the version (upstream writes `MinWorkersVersion` so).
fn prefixed(v: &KubeVersion) -> String {
    let text = v.to_string();
    if text.starts_with('v') {
        text
    } else {
        format!("v{text}")
    }
}

/// The oldest owned worker (`isLowerThanMinVersion`: of two versions differing only in build
/// metadata, the one that is not the control plane's is the lower).
fn min_workers(
    state: &TopologyState,
    control_plane: &KubeVersion,
) -> Result<Option<KubeVersion>, PlanError> {
    let mut min: Option<KubeVersion> = None;
    let workers = state
        .machine_deployments
        .iter()
        .chain(&state.machine_pools)
        .filter(|w| !w.version.is_empty());
    for w in workers {
        let v = parse("worker version", &w.version)?;
        let lower = min.as_ref().is_none_or(|m| match compare(&v, m) {
            Some(Ordering::Less) => true,
            None => !same(&v, control_plane),
            _ => false,
        });
        if lower {
            min = Some(v);
        }
    }
    Ok(min)
}

/// The control plane's plan: one minor at a time, or from the ClusterClass's versions.
fn control_plane_plan(
    state: &TopologyState,
    desired: &KubeVersion,
    current: &KubeVersion,
) -> Result<Vec<String>, PlanError> {
    if same(current, desired) {
        return Ok(Vec::new());
    }
    if state.class_versions.is_empty() {
        if desired.minor() > current.minor() + 1 {
            return Err(PlanError::MoreThanOneMinor {
                from: state.control_plane.spec_version.clone(),
                to: state.topology_version.clone(),
            });
        }
        return Ok(vec![state.topology_version.clone()]);
    }
    let mut candidates: Vec<(String, KubeVersion)> = Vec::new();
    for text in &state.class_versions {
        let v = parse("ClusterClass version", text)?;
        if v.cmp(current) != Ordering::Greater {
            continue;
        }
        if compare(&v, desired) == Some(Ordering::Greater) {
            break;
        }
        let reached = same(&v, desired);
        candidates.push((text.clone(), v));
        if reached {
            break;
        }
    }
    // The last version of each minor (the first one when only patches are upgraded).
    let mut plan: Vec<String> = Vec::new();
    let mut minor = current.minor();
    if minor == desired.minor()
        && let Some((first, _)) = candidates.first()
    {
        plan.push(first.clone());
    }
    for (text, v) in candidates {
        if v.minor() > minor {
            plan.push(text);
        } else if v.minor() == minor
            && let Some(last) = plan.last_mut()
        {
            *last = text;
        }
        minor = v.minor();
    }
    Ok(plan)
}

fn invalid_cp(plan: &[String], why: String) -> PlanError {
    PlanError::InvalidControlPlanePlan {
        plan: plan.to_vec(),
        why,
    }
}

fn invalid_workers(plan: &[String], why: String) -> PlanError {
    PlanError::InvalidWorkersPlan {
        plan: plan.to_vec(),
        why,
    }
}

/// Upstream's validation of the control plane's plan; returns the version known per minor.
fn validate_control_plane_plan(
    state: &TopologyState,
    plan: &[String],
    desired: &KubeVersion,
    current: &KubeVersion,
) -> Result<Vec<(u64, String)>, PlanError> {
    let mut minors = vec![(current.minor(), state.control_plane.spec_version.clone())];
    if same(current, desired) {
        if !plan.is_empty() {
            return Err(invalid_cp(plan, "already at the desired version".into()));
        }
        return Ok(minors);
    }
    let mut at = current.clone();
    for (i, text) in plan.iter().enumerate() {
        let v = parse("control plane plan version", text)?;
        if matches!(compare(&v, &at), Some(Ordering::Less | Ordering::Equal)) {
            return Err(invalid_cp(plan, format!("item {i} is not after {at}")));
        }
        if v.minor() != at.minor() && v.minor() != at.minor() + 1 {
            return Err(invalid_cp(plan, format!("item {i} skips a minor")));
        }
        minors.retain(|(m, _)| *m != v.minor());
        minors.push((v.minor(), text.clone()));
        at = v;
    }
    if !same(&at, desired) {
        return Err(invalid_cp(
            plan,
            "does not end at the desired version".into(),
        ));
    }
    Ok(minors)
}

/// The workers' plan: a step every third minor from the oldest worker, then the desired
/// version; `Err(minor)` where upstream finds no version for such a minor (it then returns no
/// plan and no error). Workers newer than the desired version make upstream's unsigned
/// count of minors wrap, so it looks for the third minor past them, which no plan has.
fn default_workers_plan(
    state: &TopologyState,
    minors: &[(u64, String)],
    min: &KubeVersion,
    desired: &KubeVersion,
) -> Result<Vec<String>, u64> {
    let from = min.minor();
    if desired.minor() < from {
        return Err(from + 3);
    }
    let mut plan = Vec::new();
    for i in (1..desired.minor() - from).filter(|i| i % 3 == 0) {
        let (_, text) = minors
            .iter()
            .find(|(m, _)| *m == from + i)
            .ok_or(from + i)?;
        plan.push(text.clone());
    }
    if plan.last() != Some(&state.topology_version) {
        plan.push(state.topology_version.clone());
    }
    Ok(plan)
}

fn validate_workers_plan(
    plan: &[String],
    min: &KubeVersion,
    desired: &KubeVersion,
) -> Result<(), PlanError> {
    let mut at = min.clone();
    for (i, text) in plan.iter().enumerate() {
        let v = parse("workers plan version", text)?;
        if matches!(compare(&v, &at), Some(Ordering::Less | Ordering::Equal)) {
            return Err(invalid_workers(plan, format!("item {i} is not after {at}")));
        }
        if v.minor().saturating_sub(at.minor()) > 3 {
            return Err(invalid_workers(
                plan,
                format!(
                    "item {i}: workers cannot go from minor {} to minor {}",
                    at.minor(),
                    v.minor()
                ),
            ));
        }
        at = v;
    }
    if !same(&at, desired) {
        return Err(invalid_workers(
            plan,
            "does not end at the desired version".into(),
        ));
    }
    Ok(())
}

/// Upstream's `ComputeUpgradePlan` for the cluster.
///
/// # Errors
/// Where upstream's returns an error (its reconcile then changes nothing).
pub fn compute_plan(state: &TopologyState) -> Result<UpgradePlan, PlanError> {
    if state.control_plane.spec_version.is_empty() {
        return Err(PlanError::NoControlPlaneVersion);
    }
    let desired = parse("topology version", &state.topology_version)?;
    let current = parse("control plane version", &state.control_plane.spec_version)?;
    let min = min_workers(state, &current)?;
    let mut plan = UpgradePlan {
        min_workers_version: min.as_ref().map(prefixed),
        ..UpgradePlan::default()
    };
    if same(&current, &desired) && min.as_ref().is_none_or(|m| same(m, &desired)) {
        return Ok(plan);
    }
    let cp_plan = control_plane_plan(state, &desired, &current)?;
    let minors = validate_control_plane_plan(state, &cp_plan, &desired, &current)?;
    plan.control_plane = cp_plan;
    let Some(min) = min.filter(|m| !same(m, &desired)) else {
        return Ok(plan);
    };
    match default_workers_plan(state, &minors, &min, &desired) {
        Ok(workers) => {
            validate_workers_plan(&workers, &min, &desired)?;
            plan.workers = workers;
        }
        Err(minor) => plan.missing_worker_minor = Some(minor),
    }
    Ok(plan)
}

/// The contract's `IsUpgrading`: a running version below `spec.version`.
fn control_plane_upgrading(cp: &ControlPlaneFacts) -> Result<bool, PlanError> {
    let spec = parse("control plane version", &cp.spec_version)?;
    let running: Vec<&String> = if cp.status_versions.is_empty() {
        cp.status_version.iter().filter(|v| !v.is_empty()).collect()
    } else {
        cp.status_versions.iter().collect()
    };
    for text in running {
        let v = parse("control plane status version", text)?;
        if compare(&spec, &v) != Some(Ordering::Less) && !same(&spec, &v) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The control plane tracker's flags after its version is computed.
#[derive(Clone, Copy, Debug, Default)]
struct Tracker {
    provisioning: bool,
    upgrading: bool,
    starting: bool,
    pending: bool,
    waiting_for_workers: bool,
}

impl Tracker {
    /// `IsControlPlaneStableOrWaitingForWorkersUpgrade`.
    fn stable_or_waiting(self) -> bool {
        !self.provisioning
            && !self.upgrading
            && !self.starting
            && (!self.pending || self.waiting_for_workers)
    }
}

/// The control plane's version this reconcile (`computeControlPlaneVersion`).
fn control_plane_next(
    state: &TopologyState,
    plan: &UpgradePlan,
) -> Result<(String, Option<Hold>, Tracker), PlanError> {
    let cp = &state.control_plane;
    let current = cp.spec_version.clone();
    let mut t = Tracker {
        pending: current != state.topology_version,
        ..Tracker::default()
    };
    let running = cp
        .status_versions
        .first()
        .or(cp.status_version.as_ref())
        .filter(|v| !v.is_empty());
    if running.is_none() {
        t.provisioning = true;
        return Ok((current, Some(Hold::Provisioning), t));
    }
    if control_plane_upgrading(cp)? {
        t.upgrading = true;
        return Ok((current, Some(Hold::ControlPlaneUpgrading), t));
    }
    let first_is_current = plan.workers.first() == Some(&current);
    if first_is_current
        && (!state.machine_deployments.is_empty() || !state.machine_pools.is_empty())
    {
        t.waiting_for_workers = true;
        return Ok((current, Some(Hold::WorkersFirst), t));
    }
    let upgrading: Vec<String> = state
        .machine_deployments
        .iter()
        .chain(&state.machine_pools)
        .filter(|w| w.upgrading)
        .map(|w| w.name.clone())
        .collect();
    if !upgrading.is_empty() {
        return Ok((current, Some(Hold::WorkersUpgrading(upgrading)), t));
    }
    if !t.pending {
        return Ok((current, Some(Hold::AtTopologyVersion), t));
    }
    let Some(next) = plan.control_plane.first() else {
        return Err(invalid_cp(
            &plan.control_plane,
            "the control plane is pending upgrade and the plan is empty".into(),
        ));
    };
    t.starting = true;
    t.pending = false;
    Ok((next.clone(), None, t))
}

/// Whether a worker topology is deferred (`isMachinePoolDeferred`,
/// `isMachineDeploymentDeferred`).
fn deferred(topologies: &[WorkerTopology], name: &str) -> bool {
    for t in topologies {
        if t.name == name {
            return t.defer_upgrade || t.hold_upgrade_sequence;
        }
        if t.hold_upgrade_sequence {
            return true;
        }
    }
    false
}

/// Each worker's version this reconcile, in topology order.
fn workers_next(
    state: &TopologyState,
    topologies: &[WorkerTopology],
    workers: &[Worker],
    plan: &[String],
    tracker: Tracker,
) -> Result<Vec<WorkerNext>, PlanError> {
    let concurrency = state.upgrade_concurrency.max(1);
    let mut upgrading: Vec<&str> = workers
        .iter()
        .filter(|w| w.upgrading)
        .map(|w| w.name.as_str())
        .collect();
    let mut out = Vec::new();
    for topology in topologies {
        let Some(w) = workers.iter().find(|w| w.topology_name == topology.name) else {
            continue;
        };
        let step = if w.version == state.topology_version {
            WorkerStep::AtTopologyVersion
        } else if deferred(topologies, &topology.name) {
            WorkerStep::Deferred
        } else if upgrading.len() >= concurrency {
            WorkerStep::ConcurrencyReached
        } else if !tracker.stable_or_waiting() {
            WorkerStep::ControlPlaneNotStable
        } else if plan.is_empty() {
            return Err(invalid_workers(
                plan,
                format!("{} is pending upgrade and the plan is empty", w.name),
            ));
        } else if plan[0] == w.version {
            WorkerStep::WaitingForControlPlane
        } else {
            WorkerStep::Upgrades
        };
        let version = if step == WorkerStep::Upgrades {
            if !upgrading.contains(&w.name.as_str()) {
                upgrading.push(&w.name);
            }
            plan[0].clone()
        } else {
            w.version.clone()
        };
        out.push(WorkerNext {
            name: w.name.clone(),
            version,
            step,
        });
    }
    Ok(out)
}

/// The versions upstream's topology controller writes this reconcile: its plan, the
/// control plane's version, then each owned MachineDeployment's and MachinePool's in
/// topology order.
///
/// ```
/// use capi_machinepool_rollout::upgrade_plan::{next_versions, ControlPlaneFacts, TopologyState, Worker};
/// let state = TopologyState {
///     topology_version: "v1.35.1".into(),
///     control_plane: ControlPlaneFacts {
///         spec_version: "v1.34.3".into(),
///         status_version: Some("v1.34.3".into()),
///         ..Default::default()
///     },
///     machine_pools: vec![Worker { name: "mp".into(), topology_name: "mp".into(),
///                                  version: "v1.34.3".into(), upgrading: false }],
///     ..Default::default()
/// };
/// let next = next_versions(&state).unwrap();
/// assert_eq!(next.control_plane, "v1.35.1");
/// assert_eq!(next.plan.workers, ["v1.35.1"]);
/// ```
///
/// # Errors
/// Where upstream's reconcile fails (and so changes nothing).
pub fn next_versions(state: &TopologyState) -> Result<NextVersions, PlanError> {
    let plan = compute_plan(state)?;
    let md_plan: &[String] = if state.machine_deployments.is_empty() {
        &[]
    } else {
        &plan.workers
    };
    let mp_plan: &[String] = if state.machine_pools.is_empty() {
        &[]
    } else {
        &plan.workers
    };
    let (control_plane, hold, tracker) = control_plane_next(state, &plan)?;
    let machine_deployments = workers_next(
        state,
        &state.machine_deployment_topologies,
        &state.machine_deployments,
        md_plan,
        tracker,
    )?;
    let machine_pools = workers_next(
        state,
        &state.machine_pool_topologies,
        &state.machine_pools,
        mp_plan,
        tracker,
    )?;
    Ok(NextVersions {
        plan,
        control_plane,
        hold,
        machine_deployments,
        machine_pools,
    })
}
