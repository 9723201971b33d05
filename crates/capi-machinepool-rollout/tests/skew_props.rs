//! For random control planes (one or two kube-apiserver versions, as during an upgrade) and
//! random kubelets, the verdict is derived from the policy's own wording, independently of the
//! code's oldest/newest formulation:
//!
//! > kube-apiserver is at 1.xx; kubelet is supported at 1.xx, 1.(xx-1), 1.(xx-2), and 1.(xx-3)
//! > (kubelet < 1.25 may only be up to two minor versions older than kube-apiserver).
//! > If version skew exists between kube-apiserver instances in an HA cluster, this narrows
//! > the allowed kubelet versions.
//!
//! (kubernetes/website `content/en/releases/version-skew-policy.md`, "kubelet".) Here a
//! kubelet is supported when it is in the supported set of **every** kube-apiserver
//! instance (the intersection of the per-instance sets); it is "at the edge" when it is the
//! oldest member of some instance's set; the instances themselves must be within one minor
//! ("the newest and oldest kube-apiserver instances must be within one minor version").
#![allow(clippy::unwrap_used, clippy::panic)]

mod policy;

use std::collections::BTreeSet;

use capi_diagnostics::Severity;
use capi_machinepool_rollout::skew::{SkewRule, VersionAt, check};
use policy::kubelet_verdict;
use proptest::prelude::*;

fn version_text(minor: u64, patch: u64, style: u8) -> String {
    match style % 4 {
        0 => format!("v1.{minor}.{patch}"),
        1 => format!("1.{minor}.{patch}"),
        2 => format!("v1.{minor}.{patch}-rc.1"),
        _ => format!("v1.{minor}.{patch}+build.7"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(capi_test_support::proptest_cases(4096)))]

    #[test]
    fn verdict_follows_the_policy_text(
        newest in 10u64..40,
        spread in 0u64..=2,
        kubelet in 0u64..45,
        patches in (0u64..20, 0u64..20, 0u64..20),
        styles in (any::<u8>(), any::<u8>(), any::<u8>()),
    ) {
        let oldest = newest.saturating_sub(spread);
        let api_servers = [newest, oldest];
        let cp = [
            VersionAt::new(version_text(newest, patches.0, styles.0), "spec.version"),
            VersionAt::new(version_text(oldest, patches.1, styles.1), "status.version"),
        ];
        let found = check(&cp, &[VersionAt::new(version_text(kubelet, patches.2, styles.2), "pool")]);
        let got: BTreeSet<(SkewRule, Severity)> = found.iter().filter_map(|f| Some((f.rule, f.severity?))).collect();

        let mut expected = BTreeSet::new();
        if newest - oldest > 1 {
            expected.insert((SkewRule::ApiServersTooFarApart, Severity::Error));
        }
        expected.extend(kubelet_verdict(&api_servers, kubelet));
        prop_assert_eq!(got, expected, "apiservers {:?}, kubelet 1.{}", api_servers, kubelet);
    }
}
