//! Why `spec.topology.version` is a plan and not a running kube-apiserver, held to upstream's
//! running code through the Go oracle (`tests/go/oracle`, Cluster API v1.14.2).
//!
//! For a generated ClusterClass cluster — a KubeadmControlPlane at some version, the topology
//! asking for a later one, MachinePools at older ones — the oracle answers which version the
//! topology controller writes into the control plane next: upstream's own `ComputeUpgradePlan`
//! (`exp/topology/desiredstate/upgrade_plan.go`), with the ClusterClass's versions or one minor
//! at a time, then `computeControlPlaneVersion`'s hold (`desired_state.go` lines 625-644 at
//! v1.14.2: the control plane waits while the workers' plan starts at its current version).
//!
//! Property: a cluster whose pools our whole-cluster verdict all passes before that step still
//! passes after it (the control plane object then asks for the next version, rolling). So a Cluster whose
//! control plane object is not in the input is rightly "not judged", not failed against the
//! topology version: the controller never moves the control plane past what the pools allow.
//!
//! Only clusters that pass before are held to it: a pool already more than three minors behind
//! does not hold upstream's control plane (its workers' plan needs a version for a minor the
//! control plane has passed, which is missing from the versions it knows; the error wrapped
//! there is nil, so `DefaultAndValidateUpgradePlans` returns no plan and nothing holds), and the
//! control plane then moves past the other pools too (the second test below); our verdict
//! already fails that pool. Where the two differ (a kubelet older than 1.25, whose
//! window the skew policy keeps at two minors while upstream plans three for every version) is
//! its own test below.
#![cfg(feature = "validation")]
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_diagnostics::Severity;
use capi_machinepool_admission::Admission;
use capi_machinepool_rollout::{PoolFinding, Validation, ValidationReport};
use capi_test_support::oracle::{Answer, oracle};
use proptest::prelude::*;
use serde_json::{Value, json};

fn cluster(topology: &str) -> Value {
    json!({
        "apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
        "metadata": {"name": "c", "namespace": "default"},
        "spec": {
            "controlPlaneRef": {"apiGroup": "controlplane.cluster.x-k8s.io",
                "kind": "KubeadmControlPlane", "name": "cp"},
            "topology": {"classRef": {"name": "quick-start"}, "version": topology}
        }
    })
}

fn control_plane(desired: &str, running: &str) -> Value {
    json!({
        "apiVersion": "controlplane.cluster.x-k8s.io/v1beta2", "kind": "KubeadmControlPlane",
        "metadata": {"name": "cp", "namespace": "default"},
        "spec": {"replicas": 3, "version": desired},
        "status": {"replicas": 3, "version": running}
    })
}

fn pool(i: usize, version: &str) -> Value {
    json!({
        "apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
        "metadata": {"name": format!("pool-{i}"), "namespace": "default",
            "labels": {"cluster.x-k8s.io/cluster-name": "c",
                "topology.cluster.x-k8s.io/owned": "",
                "topology.cluster.x-k8s.io/pool-name": format!("pool-{i}")}},
        "spec": {"clusterName": "c", "replicas": 1, "template": {"spec": {
            "clusterName": "c", "version": version,
            "bootstrap": {"dataSecretName": "boot"},
            "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io",
                "kind": "DockerMachinePool", "name": format!("pool-{i}")}}}}
    })
}

fn validate(docs: &[Value]) -> ValidationReport {
    let admission = Admission::new().unwrap();
    let mut v = Validation::new(&admission);
    for (i, doc) in docs.iter().enumerate() {
        v.add(format!("generated#{i}"), doc);
    }
    v.finish()
}

/// Per pool (in input order): whether the skew verdict has an error.
fn skew_errors(report: &ValidationReport) -> Vec<bool> {
    report
        .pools
        .iter()
        .map(|p| {
            p.findings
                .iter()
                .any(|f| matches!(f, PoolFinding::Skew(s) if s.severity == Some(Severity::Error)))
        })
        .collect()
}

/// The whole cluster: the control plane asking for `desired` with `running` reported.
fn whole(topology: &str, desired: &str, running: &str, pools: &[String]) -> Vec<Value> {
    let mut docs = vec![cluster(topology), control_plane(desired, running)];
    docs.extend(pools.iter().enumerate().map(|(i, v)| pool(i, v)));
    docs
}

/// Upstream's next control plane version (`None` without a Go toolchain where Go is not
/// required).
fn upstream_next(
    topology: &str,
    control_plane: &str,
    pools: &[String],
    class_versions: &[String],
) -> Option<Value> {
    let answer = oracle()?.call(&json!({
        "op": "topology-next-control-plane-version",
        "topologyVersion": topology,
        "controlPlaneVersion": control_plane,
        "machinePoolVersions": pools,
        "clusterClassVersions": class_versions,
    }));
    match answer {
        Answer::Ok { value, .. } => Some(value),
        Answer::Err(e) => panic!("upstream refused the generated cluster: {e}"),
    }
}

/// A generated cluster: control plane version, topology version, the ClusterClass's versions
/// (empty: one minor at a time), pool versions.
fn generated() -> impl Strategy<Value = (String, String, Vec<String>, Vec<String>)> {
    (25u64..34, 0u64..3, 0u64..=3, 0u64..3, any::<bool>()).prop_flat_map(
        |(minor, patch, ahead, topology_patch, one_minor)| {
            let control_plane = format!("v1.{minor}.{patch}");
            let topology_minor = minor + ahead;
            let topology_patch = if ahead == 0 {
                patch.max(topology_patch)
            } else {
                topology_patch
            };
            let topology = format!("v1.{topology_minor}.{topology_patch}");
            // The ClusterClass lists one version per minor on the way; with at most one minor to
            // go, upstream's default plan (one minor at a time) is used instead half the time.
            let class_versions: Vec<String> = if one_minor && ahead <= 1 {
                Vec::new()
            } else {
                (minor..=topology_minor)
                    .map(|m| match m {
                        m if m == topology_minor => topology.clone(),
                        m if m == minor => control_plane.clone(),
                        m => format!("v1.{m}.0"),
                    })
                    .collect()
            };
            let pool =
                (minor.saturating_sub(4).max(25)..=minor, 0u64..3).prop_map(move |(m, p)| {
                    // A pool's patch is never ahead of the control plane's at the same minor.
                    let p = if m == minor { p.min(patch) } else { p };
                    format!("v1.{m}.{p}")
                });
            (
                Just(control_plane),
                Just(topology),
                Just(class_versions),
                prop::collection::vec(pool, 1..4),
            )
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(capi_test_support::proptest_cases(256)))]

    #[test]
    fn upstreams_next_control_plane_step_keeps_every_passing_pool_passing(
        (control_plane, topology, class_versions, pools) in generated()
    ) {
        let Some(answer) = upstream_next(&topology, &control_plane, &pools, &class_versions) else {
            return Ok(());
        };
        let next = answer["next"].as_str().unwrap();
        let before = skew_errors(&validate(&whole(&topology, &control_plane, &control_plane, &pools)));
        let after = skew_errors(&validate(&whole(&topology, next, &control_plane, &pools)));
        if before.iter().all(|e| !e) {
            prop_assert!(
                after.iter().all(|e| !e),
                "every pool of {pools:?} passes at {control_plane}, not once upstream moves the control plane to {next} ({after:?}; upstream: {answer})"
            );
        }
    }
}

/// A pool at 1.24 under a control plane at 1.26 asked for 1.27 by the topology: upstream plans
/// worker steps every three minors for every version (`upgrade_plan.go`,
/// `DefaultAndValidateUpgradePlans`: "targetMinor-currentMinor > 3"), so it moves the control
/// plane to 1.27 without waiting for the pool. The version skew policy allowed a kubelet before
/// 1.25 only two minors behind kube-apiserver (kubernetes/website
/// `content/en/releases/version-skew-policy.md` before v1.28: "kubelet must not be newer than
/// kube-apiserver, and may be up to two minor versions older"), so our verdict fails the pool
/// after that step, and since issue 61 already before it: the step upstream takes next breaks
/// the pool (`upstream-breaks-pool`, error), where it was a warning at the edge of the window.
#[test]
fn a_pre_1_25_kubelet_is_where_upstream_plans_past_the_window() {
    let pools = ["v1.24.3".to_owned()];
    let Some(answer) = upstream_next("v1.27.0", "v1.26.0", &pools, &[]) else {
        return;
    };
    assert_eq!(answer["next"], "v1.27.0", "{answer}");
    let before = validate(&whole("v1.27.0", "v1.26.0", "v1.26.0", &pools));
    assert_eq!(skew_errors(&before), [true], "{before}");
    let broken = before.pools[0].findings.iter().any(|f| {
        matches!(f, PoolFinding::Skew(s) if s.rule == capi_machinepool_rollout::skew::SkewRule::UpstreamBreaksPool)
    });
    assert!(broken, "{before}");
    let after = validate(&whole("v1.27.0", "v1.27.0", "v1.26.0", &pools));
    assert_eq!(skew_errors(&after), [true], "{after}");
}

/// Upstream's hold fails open once one pool is out of the window: pools at 1.26 and 1.25 under
/// a control plane at 1.29 asked for 1.30. The workers' plan would need a 1.28 step, which is
/// not among the versions upstream knows (`DefaultAndValidateUpgradePlans`, "this should never
/// happen": it returns `Wrapf` of a nil error, that is no plan and no error), so the control
/// plane moves to 1.30 and the pool at 1.26, inside the window before, is left four minors
/// behind. Our verdict fails both pools before the step (the pool at 1.25 is too old already;
/// since issue 61 the pool at 1.26 too, as upstream's next step breaks it) and after it.
#[test]
fn one_pool_out_of_the_window_no_longer_holds_upstreams_control_plane() {
    let pools = ["v1.26.0".to_owned(), "v1.25.0".to_owned()];
    let class = ["v1.29.0".to_owned(), "v1.30.0".to_owned()];
    let Some(answer) = upstream_next("v1.30.0", "v1.29.0", &pools, &class) else {
        return;
    };
    assert_eq!(answer["next"], "v1.30.0", "{answer}");
    assert_eq!(answer["workersPlan"], Value::Null, "{answer}");
    let before = validate(&whole("v1.30.0", "v1.29.0", "v1.29.0", &pools));
    assert_eq!(skew_errors(&before), [true, true], "{before}");
    let after = validate(&whole("v1.30.0", "v1.30.0", "v1.29.0", &pools));
    assert_eq!(skew_errors(&after), [true, true], "{after}");
}
