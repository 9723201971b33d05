//! Which kube-apiservers run now and next, per control plane kind: what a pool's kubelets
//! are judged against.
//!
//! A control plane publishes its versions as the contract writes them
//! ([`ControlPlaneVersionSet`]); how its desired version (`spec.version`) turns into running
//! kube-apiservers depends on what the control plane does with it ([`RolloutModel`]):
//!
//! * **KubeadmControlPlane** replaces every machine whose version differs from `spec.version`
//!   (`controlplane/kubeadm/pkg/filters.go`, `matchesMachineSpec`: "Machine version %q is not
//!   equal to KCP version %q" marks it for rollout), and its `status.version` is the *lowest*
//!   machine version (`reconcilers/kubeadmcontrolplane/status.go`, `updateStatus`: the first of
//!   `status.versions`, ordered older to newer). So with `spec.version` ahead, apiservers at
//!   `spec.version` run now or next to the ones reported: a kubelet must fit both.
//! * **The contract** (any other kind): `status.version` "represents the minimum Kubernetes
//!   version for the control plane machines" and `spec.version` is "the desired Kubernetes
//!   version for the control plane" (`docs/book/src/developer/providers/contracts/control-plane.md`
//!   at ae7ff047, "ControlPlane: version"): read as KubeadmControlPlane, which is the
//!   contract's reference implementation.
//! * **AWSManagedControlPlane** (CAPA, EKS): CAPA asks EKS for one minor version at a time
//!   (`pkg/cloud/services/eks/cluster.go`, `reconcileClusterVersion`: the next version is the
//!   running one plus one minor, "you can only upgrade increments of minor versions"), and an
//!   EKS update once requested is not undone. So the running version and the step already
//!   requested run now or next; the steps after it are a plan (a note).
//! * **The topology controller** (a ClusterClass Cluster): `spec.topology.version` is a plan.
//!   The controller moves the control plane one step at a time and holds it while the workers
//!   must upgrade first (`exp/topology/desiredstate/desired_state.go`,
//!   `computeControlPlaneVersion`: "If the MachineDeployments/MachinePools are required to
//!   upgrade, then do not pick up the next control plane version yet"). With the control plane
//!   object in the input, its own versions are judged; without it, nothing runs that is known
//!   ([`ControlPlaneVersions::Desired`](crate::control_plane::ControlPlaneVersions::Desired)
//!   is not judged).
//! * **Versions only** (`status.versions`, no `spec.version`): every listed version runs.

use std::fmt;

use crate::control_plane::ControlPlaneVersionSet;
use crate::skew::{MinorVersion, VersionAt};

/// How a control plane turns its desired version into running kube-apiservers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RolloutModel {
    /// The control-plane contract: `status.version` is the minimum, `spec.version` is rolled
    /// out as KubeadmControlPlane does.
    #[default]
    Contract,
    /// KubeadmControlPlane: every machine whose version differs from `spec.version` is
    /// replaced; `status.version` is the lowest machine version.
    Kubeadm,
    /// CAPA's AWSManagedControlPlane: EKS moves one minor version per requested update.
    EksOneMinorPerStep,
}

impl RolloutModel {
    /// The model of a control plane kind.
    ///
    /// ```
    /// use capi_machinepool_rollout::apiservers::RolloutModel;
    /// assert_eq!(RolloutModel::for_kind("AWSManagedControlPlane"), RolloutModel::EksOneMinorPerStep);
    /// assert_eq!(RolloutModel::for_kind("RKE2ControlPlane"), RolloutModel::Contract);
    /// ```
    #[must_use]
    pub fn for_kind(kind: &str) -> Self {
        match kind {
            "KubeadmControlPlane" => Self::Kubeadm,
            "AWSManagedControlPlane" => Self::EksOneMinorPerStep,
            _ => Self::Contract,
        }
    }

    /// What the model says a desired version ahead of the running ones does, with its source.
    #[must_use]
    pub fn rollout(self) -> &'static str {
        match self {
            Self::Kubeadm => {
                "KubeadmControlPlane replaces every machine whose version differs from spec.version (controlplane/kubeadm/pkg/filters.go) and reports the lowest machine version as status.version (reconcilers/kubeadmcontrolplane/status.go): both may run now"
            }
            Self::Contract => {
                "the control-plane contract: status.version is the minimum version of the control plane machines and spec.version the desired one, rolled out as KubeadmControlPlane does: both may run now"
            }
            Self::EksOneMinorPerStep => {
                "CAPA asks EKS for one minor version at a time (pkg/cloud/services/eks/cluster.go reconcileClusterVersion), and a requested EKS update is not undone: the running version and the step requested run now or next; later steps are a plan"
            }
        }
    }
}

impl fmt::Display for RolloutModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Kubeadm => "KubeadmControlPlane",
            Self::Contract => "control-plane contract",
            Self::EksOneMinorPerStep => "EKS, one minor per step",
        })
    }
}

/// The kube-apiservers a pool's kubelets must fit now and next, and the plan beyond.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ApiServerOutlook {
    /// Running now or next (a kubelet must fit every one): the running versions, and what the
    /// model says the desired version brings at once.
    pub now_and_next: Vec<VersionAt>,
    /// Where the control plane is going when that is ahead of what runs (a note).
    pub upgrading_to: Option<VersionAt>,
    /// A desired version reached only by later steps (EKS): a plan, judged as a note.
    pub later: Option<VersionAt>,
    /// The model used.
    pub model: RolloutModel,
}

impl ControlPlaneVersionSet {
    /// What runs now and next by this control plane's [`RolloutModel`].
    ///
    /// ```
    /// use capi_machinepool_rollout::control_plane::ControlPlaneVersionSet;
    /// // KubeadmControlPlane asked to upgrade: 1.35 machines are rolled out now.
    /// let kcp = ControlPlaneVersionSet::from_value("KubeadmControlPlane", &serde_json::json!({
    ///     "metadata": {"name": "cp", "namespace": "ns"},
    ///     "spec": {"version": "v1.35.0"}, "status": {"version": "v1.34.0"}}));
    /// let outlook = kcp.outlook();
    /// let now: Vec<&str> = outlook.now_and_next.iter().map(|v| v.version.as_str()).collect();
    /// assert_eq!(now, ["v1.34.0", "v1.35.0"]);
    /// // EKS at 1.31 asked for 1.33: 1.32 is the step requested, 1.33 a plan.
    /// let eks = ControlPlaneVersionSet::from_value("AWSManagedControlPlane", &serde_json::json!({
    ///     "metadata": {"name": "eks", "namespace": "ns"},
    ///     "spec": {"version": "v1.33"}, "status": {"version": "1.31"}}));
    /// let outlook = eks.outlook();
    /// let now: Vec<&str> = outlook.now_and_next.iter().map(|v| v.version.as_str()).collect();
    /// assert_eq!(now, ["1.31", "v1.32"]);
    /// assert_eq!(outlook.later.unwrap().version, "v1.33");
    /// ```
    #[must_use]
    pub fn outlook(&self) -> ApiServerOutlook {
        let model = self.model;
        let mut outlook = ApiServerOutlook {
            now_and_next: self.running.clone(),
            upgrading_to: None,
            later: None,
            model,
        };
        let Some(desired) = &self.desired else {
            return outlook;
        };
        let newest_running = self
            .running
            .iter()
            .filter_map(|v| MinorVersion::api_server(&v.version).ok())
            .max();
        let Ok(to) = MinorVersion::api_server(&desired.version) else {
            // Judged as it is written: the policy reports what does not parse.
            outlook.now_and_next.push(desired.clone());
            return outlook;
        };
        let Some(newest) = newest_running else {
            if self.running.is_empty() {
                outlook.now_and_next.push(VersionAt::new(
                    desired.version.clone(),
                    format!(
                        "{}, desired: the control plane reports no running version",
                        desired.at
                    ),
                ));
            } else {
                outlook.now_and_next.push(desired.clone());
            }
            return outlook;
        };
        if to > newest {
            outlook.upgrading_to = Some(desired.clone());
        }
        match model {
            RolloutModel::EksOneMinorPerStep => {
                // EKS never moves down, and moves up one minor per requested update.
                if to <= newest || to.major != newest.major {
                    return outlook;
                }
                let step = MinorVersion {
                    major: newest.major,
                    minor: newest.minor + 1,
                };
                outlook.now_and_next.push(VersionAt::new(
                    format!("v{step}"),
                    format!(
                        "{}: the step CAPA has requested from EKS, running {newest} + 1 minor",
                        desired.at
                    ),
                ));
                if to > step {
                    outlook.later = Some(desired.clone());
                }
            }
            // The contract does not say a control plane moves down to a desired version below
            // what runs (a managed one may have moved past it on its own): only
            // KubeadmControlPlane, which rolls every machine to spec.version, is taken to.
            RolloutModel::Contract if to < newest => {}
            _ => {
                if !self
                    .running
                    .iter()
                    .any(|v| MinorVersion::api_server(&v.version).is_ok_and(|m| m == to))
                {
                    outlook.now_and_next.push(VersionAt::new(
                        desired.version.clone(),
                        format!("{}, rolled out now ({model})", desired.at),
                    ));
                }
            }
        }
        outlook
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outlook(kind: &str, spec: &str, status: &str) -> Vec<String> {
        ControlPlaneVersionSet::from_value(
            kind,
            &serde_json::json!({"metadata": {"name": "cp", "namespace": "ns"},
                "spec": {"version": spec}, "status": {"version": status}}),
        )
        .outlook()
        .now_and_next
        .into_iter()
        .map(|v| v.version)
        .collect()
    }

    /// A desired version below what runs: KubeadmControlPlane rolls its machines to it
    /// (filters.go marks every machine whose version differs); a control plane read by the
    /// contract alone is not taken to move down (a managed one may have moved past it).
    #[test]
    fn a_desired_version_below_what_runs() {
        assert_eq!(
            outlook("KubeadmControlPlane", "v1.33.0", "v1.34.0"),
            ["v1.34.0", "v1.33.0"]
        );
        assert_eq!(
            outlook("RKE2ControlPlane", "v1.33.0", "v1.34.0"),
            ["v1.34.0"]
        );
        assert_eq!(outlook("AWSManagedControlPlane", "v1.33", "1.34"), ["1.34"]);
    }
}
