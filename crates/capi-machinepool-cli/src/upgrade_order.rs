//! `preflight --to VERSION`: which MachinePools block moving the control plane to VERSION,
//! and a safe order, judged with the same version-skew verdict as `validate`
//! ([`capi_machinepool_rollout::skew::check`]) at each control-plane minor on the way.
//!
//! The control plane moves one minor at a time (kubeadm, and upstream's topology controller
//! without ClusterClass versions, never skip a minor). Before each step to `1.s`, every pool
//! whose kubelets the skew policy refuses against a `1.s` kube-apiserver moves first, to the
//! control plane's minor of that moment (the newest a kubelet may run while `1.(s-1)`
//! API servers still run). The pools are the MachinePools the validation read: their
//! `spec.template.spec.version` and `status.versions`.

use std::fmt::Write as _;

use capi_diagnostics::Severity;
use capi_machinepool_rollout::PoolReport;
use capi_machinepool_rollout::kubelet_versions;
use capi_machinepool_rollout::skew::{MinorVersion, SkewRule, VersionAt, check};
use serde::Serialize;

/// A step of the order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "step", rename_all = "camelCase")]
pub enum Step {
    /// Pools that must move before the control plane's next minor.
    #[serde(rename_all = "camelCase")]
    Pools {
        /// `MachinePool ns/name`, in the order read.
        pools: Vec<String>,
        /// The minor to move them to.
        to: String,
        /// The control-plane minor they would otherwise block.
        before: String,
    },
    /// The control plane moves one minor.
    #[serde(rename_all = "camelCase")]
    ControlPlane {
        /// The minor.
        to: String,
    },
}

/// A pool the requested version refuses, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Blocking {
    /// `MachinePool ns/name`.
    pub pool: String,
    /// The skew verdict against the requested version.
    pub reason: String,
}

/// The answer to `--to`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Order {
    /// The requested version, as given.
    pub to: String,
    /// The control plane's oldest running minor (`None`: no version known).
    pub control_plane: Option<String>,
    /// Pools the skew policy refuses against the requested version today.
    pub blocking: Vec<Blocking>,
    /// The safe order (empty: nothing to do, or the control plane's version is unknown).
    pub steps: Vec<Step>,
}

impl Order {
    /// The requested version can be set on the control plane now: it is one minor at most
    /// ahead and no pool blocks it.
    #[must_use]
    pub fn can_upgrade_now(&self) -> bool {
        self.blocking.is_empty()
            && self
                .steps
                .iter()
                .filter(|s| matches!(s, Step::ControlPlane { .. }))
                .count()
                <= 1
    }
}

/// The pools' errors against one kube-apiserver version.
fn refused(pools: &[(String, Vec<VersionAt>)], at: &VersionAt) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (name, kubelets) in pools {
        for f in check(std::slice::from_ref(at), kubelets) {
            if f.severity == Some(Severity::Error) && f.rule != SkewRule::NotChecked {
                out.push((name.clone(), f.to_string()));
            }
        }
    }
    out
}

/// The order for `to` (already parsed as a version) from `control_plane_versions` (the
/// running kube-apiserver versions) and the validated `pools`.
#[must_use]
pub fn order(to: &str, control_plane_versions: &[String], pools: &[PoolReport]) -> Order {
    let pools: Vec<(String, Vec<VersionAt>)> = pools
        .iter()
        .filter_map(|p| {
            let mp = p.machine_pool.as_ref()?;
            Some((format!("MachinePool {}", p.name), kubelet_versions(mp)))
        })
        .collect();
    let target_at = VersionAt::new(to, "--to");
    let blocking = refused(&pools, &target_at)
        .into_iter()
        .map(|(pool, reason)| Blocking { pool, reason })
        .collect();
    let now = control_plane_versions
        .iter()
        .filter_map(|v| MinorVersion::api_server(v).ok())
        .min();
    let mut steps = Vec::new();
    if let (Some(now), Ok(target)) = (now, MinorVersion::api_server(to))
        && now.major == target.major
    {
        for minor in now.minor + 1..=target.minor {
            let step = MinorVersion {
                major: target.major,
                minor,
            };
            let at = VersionAt::new(format!("v{step}.0"), "--to");
            let mut first: Vec<String> = Vec::new();
            for (pool, _) in refused(&pools, &at) {
                if !first.contains(&pool) {
                    first.push(pool);
                }
            }
            if !first.is_empty() {
                steps.push(Step::Pools {
                    pools: first,
                    to: format!("{}.{}", step.major, minor - 1),
                    before: step.to_string(),
                });
            }
            steps.push(Step::ControlPlane {
                to: step.to_string(),
            });
        }
    }
    Order {
        to: to.to_owned(),
        control_plane: now.map(|v| v.to_string()),
        blocking,
        steps,
    }
}

/// The text of an order.
#[must_use]
pub fn text(order: &Order) -> String {
    let mut out = String::new();
    let now = order.control_plane.as_deref().unwrap_or("unknown");
    let _ = writeln!(
        out,
        "upgrade to {} (control plane now {now}):",
        capi_diagnostics::excerpt::printable(&order.to)
    );
    if order.blocking.is_empty() {
        out.push_str("  no MachinePool blocks it\n");
    }
    for b in &order.blocking {
        let _ = writeln!(
            out,
            "  blocks  {}: {}",
            b.pool,
            capi_diagnostics::excerpt::printable(&b.reason)
        );
    }
    if order.control_plane.is_none() {
        out.push_str("  order   unknown: no running control plane version was read\n");
    } else if order.steps.is_empty() {
        let older = MinorVersion::api_server(&order.to)
            .ok()
            .zip(
                order
                    .control_plane
                    .as_deref()
                    .and_then(|v| MinorVersion::api_server(v).ok()),
            )
            .is_some_and(|(to, now)| to < now);
        if older {
            out.push_str("  order   none: the control plane runs a newer minor (Kubernetes does not support downgrades)\n");
        } else {
            out.push_str("  order   nothing to do: the control plane runs that minor already\n");
        }
    }
    for (i, s) in order.steps.iter().enumerate() {
        let line = match s {
            Step::Pools { pools, to, before } => format!(
                "upgrade {} to {to} (before the control plane moves to {before})",
                pools.join(", ")
            ),
            Step::ControlPlane { to } => format!("control plane to {to}"),
        };
        let _ = writeln!(out, "  {}. {line}", i + 1);
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// A validated pool at `version` (its `spec.template.spec.version`).
    fn pool(name: &str, version: &str) -> PoolReport {
        let value = serde_json::json!({
            "apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"clusterName": "c", "template": {"spec": {"clusterName": "c", "version": version,
                "bootstrap": {"dataSecretName": "b"},
                "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DockerMachinePool", "name": name}}}}});
        PoolReport {
            source: "test".to_owned(),
            name: format!("default/{name}"),
            api_version: "cluster.x-k8s.io/v1beta2".to_owned(),
            machine_pool: Some(serde_json::from_value(value).unwrap()),
            findings: Vec::new(),
        }
    }

    #[test]
    fn a_pool_four_minors_behind_blocks_and_moves_before_the_last_step() {
        let pools = [pool("new", "v1.34.2"), pool("old", "v1.33.5")];
        let o = order("v1.37.0", &["v1.34.2".to_owned()], &pools);
        assert_eq!(o.control_plane.as_deref(), Some("1.34"));
        assert_eq!(o.blocking.len(), 1);
        assert_eq!(o.blocking[0].pool, "MachinePool default/old");
        assert_eq!(
            o.steps,
            [
                Step::ControlPlane { to: "1.35".into() },
                Step::ControlPlane { to: "1.36".into() },
                Step::Pools {
                    pools: vec!["MachinePool default/old".into()],
                    to: "1.36".into(),
                    before: "1.37".into()
                },
                Step::ControlPlane { to: "1.37".into() },
            ]
        );
        assert!(!o.can_upgrade_now());
    }

    #[test]
    fn the_next_minor_with_pools_in_the_window_can_be_set_now() {
        let o = order("v1.35.0", &["v1.34.2".to_owned()], &[pool("a", "v1.33.0")]);
        assert!(o.blocking.is_empty());
        assert_eq!(o.steps, [Step::ControlPlane { to: "1.35".into() }]);
        assert!(o.can_upgrade_now());
    }

    #[test]
    fn an_older_version_is_no_order() {
        let o = order("v1.33.0", &["v1.34.2".to_owned()], &[pool("a", "v1.33.0")]);
        assert!(o.steps.is_empty());
        assert!(
            text(&o).contains("Kubernetes does not support downgrades"),
            "{}",
            text(&o)
        );
    }
}
