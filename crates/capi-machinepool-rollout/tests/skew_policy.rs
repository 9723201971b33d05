//! The version skew policy, row by row, each row under the sentence of the published policy
//! it comes from (kubernetes/website `content/en/releases/version-skew-policy.md`, section
//! "Supported version skew").
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_diagnostics::Severity;
use capi_machinepool_rollout::skew::{SkewRule, VersionAt, check};

/// The verdicts for `kubelet` under kube-apiservers at `api_servers`, as (rule, severity).
fn verdict(api_servers: &[&str], kubelet: &str) -> Vec<(SkewRule, Severity)> {
    let cp: Vec<VersionAt> = api_servers
        .iter()
        .enumerate()
        .map(|(i, v)| VersionAt::new(*v, format!("apiserver {i}")))
        .collect();
    check(&cp, &[VersionAt::new(kubelet, "kubelet")])
        .into_iter()
        .filter_map(|f| Some((f.rule, f.severity?)))
        .collect()
}

const OK: &[(SkewRule, Severity)] = &[];
const NEWER: &[(SkewRule, Severity)] = &[(SkewRule::KubeletNewerThanApiServer, Severity::Error)];
const TOO_OLD: &[(SkewRule, Severity)] = &[(SkewRule::KubeletTooOld, Severity::Error)];
const EDGE: &[(SkewRule, Severity)] = &[(SkewRule::AtTheEdgeOfTheWindow, Severity::Warning)];

#[test]
fn kubelet_must_not_be_newer_than_kube_apiserver() {
    // "kubelet must not be newer than kube-apiserver."
    assert_eq!(verdict(&["v1.34.0"], "v1.35.0"), NEWER);
    assert_eq!(
        verdict(&["v1.34.0"], "v1.34.7"),
        OK,
        "same minor, newer patch"
    );
}

#[test]
fn kubelet_may_be_up_to_three_minor_versions_older() {
    // "kubelet may be up to three minor versions older than kube-apiserver"
    // Example: "kube-apiserver is at 1.xx; kubelet is supported at 1.xx, 1.(xx-1), 1.(xx-2),
    // and 1.(xx-3)"
    for (kubelet, expected) in [
        ("v1.34.0", OK),
        ("v1.33.0", OK),
        ("v1.32.0", OK),
        ("v1.31.0", EDGE),
        ("v1.30.0", TOO_OLD),
    ] {
        assert_eq!(verdict(&["v1.34.0"], kubelet), expected, "{kubelet}");
    }
}

#[test]
fn kubelets_older_than_1_25_may_only_be_two_minor_versions_older() {
    // "(kubelet < 1.25 may only be up to two minor versions older than kube-apiserver)"
    assert_eq!(
        verdict(&["v1.27.0"], "v1.24.0"),
        TOO_OLD,
        "three older, pre-1.25"
    );
    assert_eq!(
        verdict(&["v1.26.0"], "v1.24.0"),
        EDGE,
        "two older, pre-1.25: the edge"
    );
    assert_eq!(verdict(&["v1.25.0"], "v1.24.0"), OK);
    assert_eq!(
        verdict(&["v1.28.0"], "v1.25.0"),
        EDGE,
        "a 1.25 kubelet has three"
    );
}

#[test]
fn skew_between_kube_apiservers_narrows_the_allowed_kubelet_versions() {
    // "If version skew exists between kube-apiserver instances in an HA cluster, this narrows
    // the allowed kubelet versions." Example: "kube-apiserver instances are at 1.xx and
    // 1.(xx-1); kubelet is supported at 1.(xx-1), 1.(xx-2), and 1.(xx-3) (1.xx is not
    // supported because that would be newer than the kube-apiserver instance at version
    // 1.(xx-1))". A KubeadmControlPlane mid-upgrade: spec.version v1.35.0, status.version
    // v1.34.0.
    let upgrading = ["v1.35.0", "v1.34.0"];
    assert_eq!(verdict(&upgrading, "v1.35.0"), NEWER, "1.xx");
    assert_eq!(verdict(&upgrading, "v1.34.0"), OK, "1.(xx-1)");
    assert_eq!(verdict(&upgrading, "v1.33.0"), OK, "1.(xx-2)");
    assert_eq!(
        verdict(&upgrading, "v1.32.0"),
        EDGE,
        "1.(xx-3): supported, at the edge"
    );
    assert_eq!(verdict(&upgrading, "v1.31.0"), TOO_OLD, "1.(xx-4)");
}

#[test]
fn kube_apiservers_must_be_within_one_minor_version() {
    // "the newest and oldest kube-apiserver instances must be within one minor version."
    assert_eq!(
        verdict(&["v1.35.0", "v1.33.0"], "v1.33.0"),
        [(SkewRule::ApiServersTooFarApart, Severity::Error)]
    );
    assert_eq!(verdict(&["v1.35.0", "v1.34.0"], "v1.34.0"), OK);
}

#[test]
fn the_finding_names_the_instance_it_was_judged_against() {
    let cp = [
        VersionAt::new("v1.35.0", "KubeadmControlPlane ns/cp spec.version"),
        VersionAt::new("v1.34.0", "KubeadmControlPlane ns/cp status.version"),
    ];
    let newer = check(&cp, &[VersionAt::new("v1.35.0", "pool")]);
    assert_eq!(
        newer[0].api_servers[0].at, "KubeadmControlPlane ns/cp status.version",
        "oldest"
    );
    let old = check(&cp, &[VersionAt::new("v1.31.0", "pool")]);
    assert_eq!(
        old[0].api_servers[0].at, "KubeadmControlPlane ns/cp spec.version",
        "newest"
    );
    assert!(
        old[0].to_string().contains("(the newest kube-apiserver)"),
        "{}",
        old[0]
    );
}
