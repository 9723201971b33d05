//! The skew policy's own wording, for the property tests to derive their expectations from:
//!
//! > kube-apiserver is at 1.xx; kubelet is supported at 1.xx, 1.(xx-1), 1.(xx-2), and 1.(xx-3)
//! > (kubelet < 1.25 may only be up to two minor versions older than kube-apiserver).
//!
//! (kubernetes/website `content/en/releases/version-skew-policy.md`, "kubelet".)

use std::collections::BTreeSet;

use capi_diagnostics::Severity;
use capi_machinepool_rollout::skew::SkewRule;

/// The minors a kubelet of minor `kubelet_minor` may run at under one kube-apiserver at minor
/// `a`, written out as the policy's example lists them.
pub fn supported_under(a: u64, kubelet_minor: u64) -> BTreeSet<u64> {
    let older_allowed = if kubelet_minor < 25 { 2 } else { 3 };
    (0..=older_allowed)
        .filter_map(|d| a.checked_sub(d))
        .collect()
}

/// The kubelet's verdict under kube-apiserver instances at these minors (all that run at one
/// time or another): newer than one of them, else unsupported by one of them (too old), else
/// the oldest an instance supports (at the edge); nothing when within every window.
pub fn kubelet_verdict(instances: &[u64], kubelet: u64) -> Option<(SkewRule, Severity)> {
    let newer_than_some = instances.iter().any(|a| kubelet > *a);
    let supported = instances
        .iter()
        .all(|a| supported_under(*a, kubelet).contains(&kubelet));
    let at_edge = instances
        .iter()
        .any(|a| supported_under(*a, kubelet).iter().min() == Some(&kubelet) && kubelet < *a);
    if newer_than_some {
        Some((SkewRule::KubeletNewerThanApiServer, Severity::Error))
    } else if !supported {
        Some((SkewRule::KubeletTooOld, Severity::Error))
    } else if at_edge {
        Some((SkewRule::AtTheEdgeOfTheWindow, Severity::Warning))
    } else {
        None
    }
}
