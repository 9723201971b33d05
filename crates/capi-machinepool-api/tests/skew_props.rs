//! For random version pairs, the skew verdict is the policy table read directly
//! (`docs/rollout-safety.md`): newer kubelet minor or another major is an error, three minors
//! older is a warning, more is an error, anything else is allowed; patch, pre-release, build
//! metadata and the `v` prefix never matter.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_machinepool_api::skew::{Severity, SkewRule, VersionAt, check};
use proptest::prelude::*;

fn version() -> impl Strategy<Value = (u64, u64, String)> {
    (
        prop_oneof![9 => Just(1u64), 1 => 0u64..3],
        0u64..40,
        0u64..20,
        any::<bool>(),
        prop_oneof![
            Just(String::new()),
            Just("-rc.1".to_owned()),
            Just("-alpha.0".to_owned())
        ],
        prop_oneof![Just(String::new()), Just("+build.7".to_owned())],
    )
        .prop_map(|(major, minor, patch, v, pre, build)| {
            let prefix = if v { "v" } else { "" };
            (
                major,
                minor,
                format!("{prefix}{major}.{minor}.{patch}{pre}{build}"),
            )
        })
}

fn table(cp: (u64, u64), kubelet: (u64, u64)) -> Option<(SkewRule, Severity)> {
    if cp.0 != kubelet.0 {
        Some((SkewRule::MajorVersionDiffers, Severity::Error))
    } else if kubelet.1 > cp.1 {
        Some((SkewRule::KubeletNewerThanApiServer, Severity::Error))
    } else if cp.1 - kubelet.1 > 3 {
        Some((SkewRule::KubeletTooOld, Severity::Error))
    } else if cp.1 - kubelet.1 == 3 {
        Some((SkewRule::AtTheEdgeOfTheWindow, Severity::Warning))
    } else {
        None
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(capi_test_support::proptest_cases(2048)))]

    #[test]
    fn verdict_is_the_policy_table((cp_major, cp_minor, cp) in version(), (k_major, k_minor, kubelet) in version()) {
        let found = check(&[VersionAt::new(&cp, "cp")], &[VersionAt::new(&kubelet, "pool")]);
        let got = found.first().map(|f| (f.rule, f.severity));
        prop_assert!(found.len() <= 1);
        prop_assert_eq!(got, table((cp_major, cp_minor), (k_major, k_minor)), "{} vs {}", cp, kubelet);
    }
}
