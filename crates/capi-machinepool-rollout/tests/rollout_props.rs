//! For random control planes asked to upgrade and random kubelets, the skew verdict is derived
//! by simulating what the control plane does, independently of the code's outlook
//! (`apiservers::ControlPlaneVersionSet::outlook`, which lists the versions up front):
//!
//! * KubeadmControlPlane (and any control plane read by the contract): three machines at the
//!   reported version; every machine whose version differs from `spec.version` is replaced,
//!   one at a time (controlplane/kubeadm/pkg/filters.go lines 140-147 at ae7ff047), so the
//!   states are {m}, {m, d}, {d}.
//! * AWSManagedControlPlane: CAPA asks EKS for the running version plus one minor
//!   (pkg/cloud/services/eks/cluster.go reconcileClusterVersion), not undone once asked; the
//!   states reachable without a further request are {m}, {m, m+1}, {m+1}; later steps are a
//!   plan (notes only).
//!
//! Each state is judged by the policy's own wording (as in `skew_props.rs`): a kubelet is
//! supported when every kube-apiserver instance of every state supports it.
#![allow(clippy::unwrap_used, clippy::panic)]

mod policy;

use std::collections::BTreeSet;

use capi_diagnostics::Severity;
use capi_machinepool_rollout::apiservers::check_outlook;
use capi_machinepool_rollout::control_plane::ControlPlaneVersionSet;
use capi_machinepool_rollout::skew::{SkewRule, VersionAt};
use policy::kubelet_verdict;
use proptest::prelude::*;

/// The kube-apiserver states a control plane of `kind` passes through, from machines at
/// minor `m` asked for minor `d`, without anything asked of it beyond what it was.
fn states(kind: &str, m: u64, d: u64) -> Vec<Vec<u64>> {
    if d == m {
        return vec![vec![m, m, m]];
    }
    if kind == "AWSManagedControlPlane" {
        if d < m {
            return vec![vec![m]];
        }
        return vec![vec![m], vec![m, m + 1], vec![m + 1]];
    }
    // One machine replaced at a time.
    (0..=3)
        .map(|replaced| {
            let mut machines = vec![m; 3 - replaced];
            machines.extend(std::iter::repeat_n(d, replaced));
            machines
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(capi_test_support::proptest_cases(4096)))]

    #[test]
    fn verdict_follows_the_simulated_rollout(
        kind in prop::sample::select(vec!["KubeadmControlPlane", "RKE2ControlPlane", "AWSManagedControlPlane"]),
        running in 26u64..40,
        ahead in 0u64..=3,
        kubelet in 20u64..42,
    ) {
        // KubeadmControlPlane's webhook refuses an upgrade of more than one minor; EKS steps.
        let ahead = if kind == "AWSManagedControlPlane" { ahead } else { ahead.min(1) };
        let desired = running + ahead;
        let eks = kind == "AWSManagedControlPlane";
        let status = if eks { format!("1.{running}") } else { format!("v1.{running}.3") };
        let spec = if eks { format!("v1.{desired}") } else { format!("v1.{desired}.0") };
        let set = ControlPlaneVersionSet::from_value(kind, &serde_json::json!({
            "metadata": {"name": "cp", "namespace": "ns"},
            "spec": {"version": spec}, "status": {"version": status}}));
        let found = check_outlook(&set.outlook(), &[VersionAt::new(format!("v1.{kubelet}.2"), "pool")]);
        let got: BTreeSet<(SkewRule, Severity)> = found.iter().filter_map(|f| Some((f.rule, f.severity?))).collect();

        let states = states(kind, running, desired);
        let instances: Vec<u64> = states.iter().flatten().copied().collect();
        // A kubelet is supported when every kube-apiserver of every state supports it.
        let expected: BTreeSet<(SkewRule, Severity)> = kubelet_verdict(&instances, kubelet).into_iter().collect();
        prop_assert_eq!(got, expected, "{} at 1.{} asked for 1.{}, kubelet 1.{}", kind, running, desired, kubelet);
    }
}
