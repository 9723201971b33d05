//! The skew policy's own wording, for the property tests to derive their expectations from:
//!
//! > kube-apiserver is at 1.xx; kubelet is supported at 1.xx, 1.(xx-1), 1.(xx-2), and 1.(xx-3)
//! > (kubelet < 1.25 may only be up to two minor versions older than kube-apiserver).
//!
//! (kubernetes/website `content/en/releases/version-skew-policy.md`, "kubelet".)

use std::collections::BTreeSet;

/// The minors a kubelet of minor `kubelet_minor` may run at under one kube-apiserver at minor
/// `a`, written out as the policy's example lists them.
pub fn supported_under(a: u64, kubelet_minor: u64) -> BTreeSet<u64> {
    let older_allowed = if kubelet_minor < 25 { 2 } else { 3 };
    (0..=older_allowed)
        .filter_map(|d| a.checked_sub(d))
        .collect()
}
