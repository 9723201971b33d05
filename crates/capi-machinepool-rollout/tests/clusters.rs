//! Skew verdicts on whole clusters (issue 29): every pool of a cluster dump judged against the
//! control plane its Cluster names, for three control-plane kinds (kubeadm with
//! `status.versions`, a managed one with `status.version` behind `spec.version`, one reporting
//! only `status.versions`) and pools at both API versions. Fixtures in
//! `tests/fixtures/clusters/`; each file's header cites its source.
//!
//! The control-plane contract (`docs/book/src/developer/providers/contracts/control-plane.md`
//! at ae7ff047): "`status.versions` is the preferred source of truth for surfacing control
//! plane versions" (line 413); "`status.version` can be used as an alternative or as a fallback
//! mechanism" (line 433); `spec.version` is the desired version, required only of providers
//! "which allow control of the version" (line 391).
#![cfg(feature = "validation")]
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_diagnostics::Severity;
use capi_machinepool_admission::Admission;
use capi_machinepool_rollout::skew::SkewRule;
use capi_machinepool_rollout::{PoolFinding, Validation, ValidationReport};

fn validate(name: &str) -> ValidationReport {
    let admission = Admission::new().unwrap();
    let mut v = Validation::new(&admission);
    for (i, doc) in capi_test_support::yaml_docs(&format!("clusters/{name}"))
        .iter()
        .enumerate()
    {
        v.add(format!("{name}#{i}"), doc);
    }
    v.finish()
}

/// Per pool: name, API version, valid, and its skew findings as (rule, severity).
type Verdict = (String, String, bool, Vec<(SkewRule, Option<Severity>)>);

fn verdicts(report: &ValidationReport) -> Vec<Verdict> {
    report
        .pools
        .iter()
        .map(|p| {
            let skew = p
                .findings
                .iter()
                .filter_map(|f| match f {
                    PoolFinding::Skew(s) => Some((s.rule, s.severity)),
                    _ => None,
                })
                .collect();
            (p.name.clone(), p.api_version.clone(), p.is_valid(), skew)
        })
        .collect()
}

fn v(name: &str, api: &str, valid: bool, skew: &[(SkewRule, Option<Severity>)]) -> Verdict {
    (name.into(), api.into(), valid, skew.to_vec())
}

const V1B1: &str = "cluster.x-k8s.io/v1beta1";
const V1B2: &str = "cluster.x-k8s.io/v1beta2";

/// kubeadm: KubeadmControlPlane status.versions [v1.34.2]; pools at v1.34.2 (v1beta2) and
/// v1.33.5 (v1beta1): both within the policy, nothing to say.
#[test]
fn aws_kubeadm_both_pools_ok() {
    assert_eq!(
        verdicts(&validate("aws-kubeadm.yaml")),
        [
            v("default/prod-mp-a", V1B2, true, &[]),
            v("default/prod-mp-b", V1B1, true, &[]),
        ]
    );
}

/// EKS mid-upgrade: spec.version v1.33, status.version 1.31. CAPA's reconcileClusterVersion
/// (kubernetes-sigs/cluster-api-provider-aws pkg/cloud/services/eks/cluster.go) asks EKS for the
/// running version plus one minor ("you can only upgrade increments of minor versions"): 1.31
/// runs, 1.32 is requested (runs next), 1.33 is a plan. The pool at v1.31.2 fits 1.31 and 1.32
/// (issue 29: "today: exit 1 on a healthy pool at 1.31.2"); the pool at v1.29.1 fits them too,
/// at the edge against 1.32 (a warning: the next step leaves it behind), and 1.33 would not fit
/// (a note). Both exit 0 (issue 49: "a multi-minor EKS step where the pool fits every step on
/// the way stays exit 0").
#[test]
fn eks_desired_ahead_of_running_is_an_upgrade_in_progress() {
    let report = validate("eks-managed.yaml");
    assert_eq!(
        verdicts(&report),
        [
            v(
                "team-a/eks-mp-a",
                V1B1,
                true,
                &[(SkewRule::ControlPlaneUpgrading, None)]
            ),
            v(
                "team-a/eks-mp-b",
                V1B2,
                true,
                &[
                    (SkewRule::AtTheEdgeOfTheWindow, Some(Severity::Warning)),
                    (SkewRule::ControlPlaneUpgrading, None),
                    (SkewRule::DesiredNarrowsWindow, None)
                ]
            ),
        ]
    );
    let text = report.to_string();
    assert!(
        text.contains("kube-apiserver v1.32 (AWSManagedControlPlane team-a/eks-cp spec.version: the step CAPA has requested from EKS, running 1.31 + 1 minor)"),
        "{text}"
    );
    assert!(
        text.contains("an upgrade of the pool to 1.30 .. 1.31 fits both the running and the desired kube-apiserver"),
        "{text}"
    );
    assert!(!text.contains("apiservers-too-far-apart"), "{text}");
}

/// EKS with the step already requested (issue 49): spec.version v1.33, status.version 1.32, a
/// node group at v1.29.4. reconcileClusterVersion asks EKS for 1.32 + 1 minor = 1.33, and a
/// requested EKS update is not undone: 1.33 runs next, four minors ahead. Exit 1.
#[test]
fn eks_step_requested_is_judged_as_running_next() {
    let report = validate("eks-step-requested.yaml");
    assert_eq!(
        verdicts(&report),
        [v(
            "team-a/eks-ng-a",
            V1B1,
            false,
            &[
                (SkewRule::KubeletTooOld, Some(Severity::Error)),
                (SkewRule::ControlPlaneUpgrading, None)
            ]
        )]
    );
    let text = report.to_string();
    assert!(
        text.contains("kubelet 1.29 is 4 minor versions older than kube-apiserver 1.33"),
        "{text}"
    );
    assert!(text.contains("(EKS, one minor per step)"), "{text}");
}

/// A KubeadmControlPlane asked to upgrade (issue 49): spec.version v1.35.0, status.version
/// v1.34.0, a pool at v1.31.0. KCP marks for rollout every machine whose version is not
/// spec.version (controlplane/kubeadm/pkg/filters.go lines 140-147 at ae7ff047: "Machine version
/// %q is not equal to KCP version %q") and status.version is the lowest machine version
/// (reconcilers/kubeadmcontrolplane/status.go lines 146-154), so 1.35 may already run: the
/// kubelet is four minors behind it. Exit 1 (was exit 0 with a note).
#[test]
fn kcp_asked_to_upgrade_is_judged_against_its_desired_version() {
    let report = validate("kcp-upgrade-requested.yaml");
    assert_eq!(
        verdicts(&report),
        [v(
            "default/worker-mp-0",
            V1B2,
            false,
            &[
                (SkewRule::KubeletTooOld, Some(Severity::Error)),
                (SkewRule::ControlPlaneUpgrading, None)
            ]
        )]
    );
    let text = report.to_string();
    assert!(
        text.contains("kube-apiserver v1.35.0 (KubeadmControlPlane default/controlplane spec.version, rolled out now (KubeadmControlPlane))"),
        "{text}"
    );
    assert!(
        text.contains("controlplane/kubeadm/pkg/filters.go"),
        "{text}"
    );
}

/// A ClusterClass Cluster without its control plane object (issue 49): spec.topology.version
/// v1.35.0, a pool at v1.31.5. The topology controller holds the control plane while workers
/// must upgrade first (exp/topology/desiredstate/desired_state.go computeControlPlaneVersion at
/// ae7ff047: "If the MachineDeployments/MachinePools are required to upgrade, then do not pick
/// up the next control plane version yet"): the version is a plan, nothing known runs. Exit 0
/// with a not-checked warning (was exit 1 "too old" against the plan).
#[test]
fn a_topology_plan_alone_is_not_judged() {
    let report = validate("topology-plan-only.yaml");
    assert_eq!(
        verdicts(&report),
        [v(
            "default/quick-mp-0-9m2wz",
            V1B2,
            true,
            &[(SkewRule::NotChecked, Some(Severity::Warning))]
        )]
    );
    let text = report.to_string();
    assert!(
        text.contains("spec.topology.version v1.35.0 is the topology controller's plan, not a running kube-apiserver"),
        "{text}"
    );
}

/// Only status.versions, no spec.version: every listed version runs, so a 1.35 kubelet is newer
/// than the 1.34 apiserver still running (policy: "kubelet must not be newer than
/// kube-apiserver"); a 1.33 kubelet fits both; a pool without a version says so.
#[test]
fn versions_only_control_plane_is_checked() {
    let report = validate("versions-only.yaml");
    assert_eq!(
        verdicts(&report),
        [
            v(
                "default/foo-mp-new",
                V1B2,
                false,
                &[(SkewRule::KubeletNewerThanApiServer, Some(Severity::Error))]
            ),
            v("default/foo-mp-old", V1B1, true, &[]),
            v(
                "default/foo-mp-unversioned",
                V1B2,
                true,
                &[(SkewRule::NotChecked, None)]
            ),
        ]
    );
    let text = report.to_string();
    assert!(
        text.contains("(FooControlPlane default/foo-cp status.versions[0].version)"),
        "{text}"
    );
    assert!(
        text.contains("skew not checked: the pool has no version"),
        "{text}"
    );
}

/// Adding another cluster's objects to the stream (the EKS cluster next to the kubeadm one)
/// changes no pool's verdict: pools are judged against their own Cluster's control plane.
#[test]
fn clusters_side_by_side_keep_their_verdicts() {
    let admission = Admission::new().unwrap();
    let mut both = Validation::new(&admission);
    for name in ["aws-kubeadm.yaml", "eks-managed.yaml", "versions-only.yaml"] {
        for (i, doc) in capi_test_support::yaml_docs(&format!("clusters/{name}"))
            .iter()
            .enumerate()
        {
            both.add(format!("{name}#{i}"), doc);
        }
    }
    let mut alone: Vec<Verdict> = Vec::new();
    for name in ["aws-kubeadm.yaml", "eks-managed.yaml", "versions-only.yaml"] {
        alone.extend(verdicts(&validate(name)));
    }
    assert_eq!(verdicts(&both.finish()), alone);
}
