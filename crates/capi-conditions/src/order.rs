//! The default order of v1beta2 conditions.

use std::cmp::Ordering;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;

/// Types in upstream's order; `None` marks where types not listed go (alphabetically).
const ORDER: &[Option<&str>] = &[
    Some("Available"),
    Some("Ready"),
    Some("UpToDate"),
    Some("RemoteConnectionProbe"),
    Some("BootstrapConfigReady"),
    Some("InfrastructureReady"),
    Some("ControlPlaneInitialized"),
    Some("ControlPlaneAvailable"),
    Some("WorkersAvailable"),
    Some("CertificatesAvailable"),
    Some("Initialized"),
    Some("EtcdClusterHealthy"),
    Some("ControlPlaneComponentsHealthy"),
    Some("NodeHealthy"),
    Some("NodeReady"),
    Some("NodeKubeadmLabelsAndTaintsSet"),
    Some("EtcdPodHealthy"),
    Some("EtcdMemberHealthy"),
    Some("APIServerPodHealthy"),
    Some("ControllerManagerPodHealthy"),
    Some("SchedulerPodHealthy"),
    Some("HealthCheckSucceeded"),
    Some("OwnerRemediated"),
    Some("TopologyReconciled"),
    Some("Updating"),
    Some("RollingOut"),
    Some("Remediating"),
    Some("ScalingDown"),
    Some("ScalingUp"),
    Some("MachinesReady"),
    Some("ControlPlaneMachinesReady"),
    Some("WorkerMachinesReady"),
    Some("MachinesUpToDate"),
    Some("ControlPlaneMachinesUpToDate"),
    Some("WorkerMachinesUpToDate"),
    None,
    Some("Paused"),
    Some("Deleting"),
];

fn rank(type_: &str) -> usize {
    ORDER
        .iter()
        .position(|t| *t == Some(type_))
        .or_else(|| ORDER.iter().position(Option::is_none))
        .unwrap_or(ORDER.len())
}

/// Compares condition types by upstream's order: a total order (rank, then type string).
#[must_use]
pub fn compare_types(a: &str, b: &str) -> Ordering {
    rank(a).cmp(&rank(b)).then_with(|| a.cmp(b))
}

/// Sorts conditions in place with upstream's default order (stable).
///
/// ```
/// use capi_conditions::{order::sort, new_condition};
/// let mut c = vec![new_condition("Paused", "False", "NotPaused", ""), new_condition("Custom", "True", "R", ""),
///                  new_condition("Available", "True", "Available", "")];
/// sort(&mut c);
/// let types: Vec<_> = c.iter().map(|c| c.type_.as_str()).collect();
/// assert_eq!(types, ["Available", "Custom", "Paused"]);
/// ```
pub fn sort(conditions: &mut [Condition]) {
    conditions.sort_by(|a, b| compare_types(&a.type_, &b.type_));
}
