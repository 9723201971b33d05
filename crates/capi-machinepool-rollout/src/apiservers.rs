//! Which kube-apiservers run now and next, per control plane kind: what a pool's kubelets
//! are judged against.
//!
//! A control plane publishes its versions as the contract writes them
//! ([`ControlPlaneVersionSet`](crate::control_plane::ControlPlaneVersionSet)); how its desired
//! version (`spec.version`) turns into running
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

use capi_diagnostics::Severity;

use crate::skew::{
    ApiServers, MinorVersion, SkewFinding, SkewRule, VersionAt, check, upgrade_range,
};

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

/// What runs now and next of a control plane reporting `running` (every `status.versions`
/// entry, else `status.version`) and `desired` (`spec.version`), by its [`RolloutModel`]
/// ([`ControlPlaneVersionSet::outlook`](crate::control_plane::ControlPlaneVersionSet::outlook)
/// reads them from an object).
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
pub fn outlook(
    running: &[VersionAt],
    desired: Option<&VersionAt>,
    model: RolloutModel,
) -> ApiServerOutlook {
    let mut outlook = ApiServerOutlook {
        now_and_next: running.to_vec(),
        upgrading_to: None,
        later: None,
        model,
    };
    let Some(desired) = desired else {
        return outlook;
    };
    let newest_running = running
        .iter()
        .filter_map(|v| MinorVersion::api_server(&v.version).ok())
        .max();
    let Ok(to) = MinorVersion::api_server(&desired.version) else {
        // Judged as it is written: the policy reports what does not parse.
        outlook.now_and_next.push(desired.clone());
        return outlook;
    };
    let Some(newest) = newest_running else {
        if running.is_empty() {
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
            if !running
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

/// Checks every kubelet version against the kube-apiservers that run now and next
/// ([`ApiServerOutlook::now_and_next`]: the running versions and what the control plane's
/// [`RolloutModel`] says its desired version brings at once),
/// then says where the control plane is going when that is ahead
/// ([`SkewRule::ControlPlaneUpgrading`], a note naming the model and its source), and for a
/// desired version reached only by later steps (EKS), which kubelets it would leave behind
/// ([`SkewRule::DesiredNarrowsWindow`], a note).
///
/// ```
/// use capi_machinepool_rollout::control_plane::ControlPlaneVersionSet;
/// use capi_machinepool_rollout::apiservers::check_outlook;
/// use capi_machinepool_rollout::skew::{SkewRule, VersionAt};
/// use capi_diagnostics::Severity;
/// // EKS at 1.32 asked for 1.33: CAPA has requested 1.33 from EKS, a 1.29 kubelet is too old.
/// let eks = ControlPlaneVersionSet::from_value("AWSManagedControlPlane", &serde_json::json!({
///     "metadata": {"name": "eks", "namespace": "ns"},
///     "spec": {"version": "v1.33"}, "status": {"version": "1.32"}}));
/// let pool = [VersionAt::new("v1.29.4", "MachinePool ns/mp spec.template.spec.version")];
/// let found = check_outlook(&eks.outlook(), &pool);
/// assert_eq!(found[0].rule, SkewRule::KubeletTooOld);
/// assert_eq!(found[0].severity, Some(Severity::Error));
/// assert_eq!(found[1].rule, SkewRule::ControlPlaneUpgrading);
/// ```
#[must_use]
pub fn check_outlook(outlook: &ApiServerOutlook, kubelets: &[VersionAt]) -> Vec<SkewFinding> {
    let mut findings = check(&outlook.now_and_next, kubelets);
    let Some(desired) = &outlook.upgrading_to else {
        return findings;
    };
    let (window, _) = ApiServers::from_versions(&outlook.now_and_next);
    let Some(window) = window else {
        return findings;
    };
    let (Ok(to), Some(oldest)) = (
        MinorVersion::api_server(&desired.version),
        outlook
            .now_and_next
            .iter()
            .filter_map(|v| Some((MinorVersion::api_server(&v.version).ok()?, v)))
            .min_by_key(|(m, _)| *m),
    ) else {
        return findings;
    };
    findings.push(SkewFinding {
        rule: SkewRule::ControlPlaneUpgrading,
        severity: None,
        kubelet: None,
        api_servers: vec![desired.clone(), oldest.1.clone()],
        message: format!(
            "the control plane is moving to {to} (desired) from {} ({}): {}",
            oldest.0,
            outlook.model,
            outlook.model.rollout()
        ),
    });
    let Some(later) = &outlook.later else {
        return findings;
    };
    let (target, _) = ApiServers::from_versions(std::slice::from_ref(later));
    let Some(target) = target else {
        return findings;
    };
    for kubelet in kubelets.iter().filter(|v| !v.version.is_empty()) {
        let Ok(v) = MinorVersion::kubelet(&kubelet.version) else {
            continue;
        };
        // Only a kubelet that fits what runs now and next gets the hint.
        if window
            .verdict(v)
            .is_some_and(|(_, s, _, _)| s == Severity::Error)
        {
            continue;
        }
        if let Some((rule, _, _, message)) = target.verdict(v)
            && matches!(
                rule,
                SkewRule::KubeletTooOld | SkewRule::AtTheEdgeOfTheWindow
            )
        {
            findings.push(SkewFinding {
                rule: SkewRule::DesiredNarrowsWindow,
                severity: None,
                kubelet: Some(kubelet.clone()),
                api_servers: vec![later.clone()],
                message: format!(
                    "once the control plane reaches its desired version: {message}; {}",
                    upgrade_range(window.oldest().0, target.newest().0)
                ),
            });
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now(model: RolloutModel, spec: &str, status: &str) -> Vec<String> {
        let running = [VersionAt::new(status, "status.version")];
        let desired = VersionAt::new(spec, "spec.version");
        outlook(&running, Some(&desired), model)
            .now_and_next
            .into_iter()
            .map(|v| v.version)
            .collect()
    }

    /// A desired version below what runs: KubeadmControlPlane rolls its machines to it
    /// (filters.go marks every machine whose version differs); a control plane read by the
    /// contract alone is not taken to move down (a managed one may have moved past it), nor is
    /// EKS (it never moves down).
    #[test]
    fn a_desired_version_below_what_runs() {
        assert_eq!(
            now(RolloutModel::Kubeadm, "v1.33.0", "v1.34.0"),
            ["v1.34.0", "v1.33.0"]
        );
        assert_eq!(
            now(RolloutModel::Contract, "v1.33.0", "v1.34.0"),
            ["v1.34.0"]
        );
        assert_eq!(
            now(RolloutModel::EksOneMinorPerStep, "v1.33", "1.34"),
            ["1.34"]
        );
    }
}
