//! The step upstream's topology controller takes next, held to its running code (issue 61):
//! the Go oracle (`tests/go/oracle`, `topology-next-versions`) runs Cluster API v1.14.2's own
//! `desiredstate.ComputeUpgradePlan` and, through the test-only re-export
//! `tests/go/oracle/reexport/desiredstate.go.txt`, its unexported `computeControlPlaneVersion`,
//! `computeMachineDeploymentVersion` and `computeMachinePoolVersion` in topology order
//! (`desired_state.go` lines 121-221).
//!
//! The generated differential covers these families, each a dimension of the generator:
//! one-minor and chained plans (the ClusterClass's `kubernetesVersions`, sometimes two
//! versions per minor), topology versions up to three minors ahead (more than one without
//! ClusterClass versions: upstream's error), owned MachinePools and MachineDeployments,
//! pools the topology does not own, kubelets before 1.25, workers up to five minors behind
//! (the nil workers' plan of `upgrade_plan.go` lines 221-226), `defer-upgrade` and
//! `hold-upgrade-sequence` annotations, `upgrade-concurrency`, workers upgrading (Nodes or
//! Machines at another version), and a control plane stable, upgrading, provisioning or
//! reporting only `status.version`. Required:
//!
//! 1. our model's versions ([`upgrade_plan::next_versions`]) are upstream's: the control
//!    plane's next version, both plans, every owned worker's next version, or upstream's
//!    error;
//! 2. on the whole cluster as a stream (the pools admitted, upgrading read from Nodes and
//!    Machines), every pool gets an `upstream-breaks-pool` error exactly when the skew policy
//!    rejects its kubelet against upstream's next control plane step (a pool the topology
//!    owns is not judged while the workers' plan holds the control plane for it, and is judged
//!    by its spec version); the policy is applied here from its text, independently of the
//!    crate: "kubelet may be up to three minor versions older than kube-apiserver (kubelet <
//!    1.25 may only be up to two minor versions older)".
//!
//! The whole-cluster fixtures of the issue's wrong answers are asserted below, with the
//! upstream lines that make each.
#![cfg(feature = "validation")]
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_diagnostics::Severity;
use capi_machinepool_admission::Admission;
use capi_machinepool_rollout::skew::SkewRule;
use capi_machinepool_rollout::upgrade_plan::{
    ControlPlaneFacts, TopologyState, Worker, WorkerTopology, next_versions,
};
use capi_machinepool_rollout::{PoolFinding, Validation, ValidationReport};
use capi_test_support::oracle::{Answer, oracle};
use proptest::prelude::*;
use serde_json::{Value, json};

fn validate_docs(name: &str, docs: &[Value]) -> ValidationReport {
    let admission = Admission::new().unwrap();
    let mut v = Validation::new(&admission);
    for (i, doc) in docs.iter().enumerate() {
        v.add(format!("{name}#{i}"), doc);
    }
    v.finish()
}

fn fixture(name: &str) -> ValidationReport {
    validate_docs(
        name,
        &capi_test_support::yaml_docs(&format!("clusters/{name}")),
    )
}

/// Per pool: (name, the `upstream-breaks-pool` errors' kubelet versions, valid).
fn breaks(report: &ValidationReport) -> Vec<(String, Vec<String>, bool)> {
    report
        .pools
        .iter()
        .map(|p| {
            let kubelets = p
                .findings
                .iter()
                .filter_map(|f| match f {
                    PoolFinding::Skew(s) if s.rule == SkewRule::UpstreamBreaksPool => {
                        assert_eq!(s.severity, Some(Severity::Error));
                        Some(s.kubelet.as_ref().unwrap().version.clone())
                    }
                    _ => None,
                })
                .collect();
            (p.name.clone(), kubelets, p.is_valid())
        })
        .collect()
}

fn b(name: &str, kubelets: &[&str], valid: bool) -> (String, Vec<String>, bool) {
    (
        name.to_owned(),
        kubelets.iter().map(|k| (*k).to_owned()).collect(),
        valid,
    )
}

/// Issue 61, first case: topology v1.35.1, KubeadmControlPlane and owned pools at v1.34.3, a
/// pool without the `topology.cluster.x-k8s.io/owned` label at v1.31.9. Upstream lists only
/// owned pools (`core/reconcilers/topology/cluster/current_state.go` lines 323-330) and plans
/// from the oldest of them (`exp/topology/desiredstate/upgrade_plan.go` lines 87-97): the
/// workers' plan is [v1.35.1], not the control plane's version, so nothing holds and the
/// control plane goes to v1.35.1 (`desired_state.go` lines 629-699). Exit 1 for the unowned
/// pool (was exit 0 with "upgrade the pool before the control plane's next minor upgrade").
#[test]
fn an_unowned_pool_is_judged_against_upstreams_next_step() {
    let report = fixture("topology-unowned-pool.yaml");
    assert_eq!(
        breaks(&report),
        [
            b("default/quick-mp-0-9m2wz", &[], true),
            b("default/quick-mp-1-k2x8d", &[], true),
            b("default/quick-legacy-mp", &["v1.31.9"], false),
        ]
    );
    let text = report.to_string();
    assert!(text.contains("kube-apiserver v1.35.1 (Cluster default/quick spec.topology.version: the step the topology controller sets in KubeadmControlPlane default/quick-cp spec.version this reconcile)"), "{text}");
    assert!(text.contains("current_state.go lines 323-330"), "{text}");
    assert!(
        text.contains("MachinePool quick-legacy-mp is not owned by the topology"),
        "{text}"
    );
}

/// Issue 61, the chained plan: ClusterClass `kubernetesVersions` up to v1.35.1, control
/// plane v1.33.7, owned workers at v1.33.7, an unowned pool at v1.30.14. Upstream's control
/// plane plan is [v1.34.3, v1.35.1] (`upgrade_plan.go` `GetUpgradePlanFromClusterClassVersions`,
/// lines 356-430), so the next step is v1.34.3: four minors ahead of the unowned pool.
#[test]
fn a_chained_plan_breaks_an_unowned_pool_at_its_first_step() {
    let report = fixture("topology-chained-unowned-pool.yaml");
    assert_eq!(
        breaks(&report),
        [
            b("default/chain-mp-0-r4kzt", &[], true),
            b("default/chain-legacy-mp", &["v1.30.14"], false),
        ]
    );
    let text = report.to_string();
    assert!(
        text.contains(
            r#"control plane plan ["v1.34.3", "v1.35.1"] (the ClusterClass's kubernetesVersions)"#
        ),
        "{text}"
    );
    assert!(
        text.contains("kubelet 1.30 is 4 minor versions older than kube-apiserver 1.34"),
        "{text}"
    );
}

/// Issue 61, upstream's known gap (a): control plane v1.25.16, topology v1.26.15, an owned
/// pool at v1.23.17. Upstream adds a workers' step only every third minor
/// (`upgrade_plan.go` lines 216-229), so its workers' plan is [v1.26.15], nothing holds, and
/// v1.26.15 leaves the pool three minors behind; the skew policy: "kubelet < 1.25 may only be
/// up to two minor versions older than kube-apiserver". Exit 1 (was a warning).
#[test]
fn a_pre_1_25_pool_is_broken_by_upstreams_next_step() {
    let report = fixture("topology-pre-1-25.yaml");
    assert_eq!(
        breaks(&report),
        [b("default/legacy-mp-0-5hx2c", &["v1.23.17"], false)]
    );
    let text = report.to_string();
    assert!(text.contains("upgrade_plan.go lines 216-229"), "{text}");
    assert!(
        text.contains("a pre-1.25 kubelet may be at most 2 older"),
        "{text}"
    );
}

/// Issue 61, upstream's known gap (b): control plane v1.34.4, topology v1.35.1, owned pools at
/// v1.30.10 (beyond the window) and v1.31.13. The workers' plan needs a version for minor 1.33,
/// which is not known; upstream returns `Wrapf` of a nil error: no plan, no error
/// (`upgrade_plan.go` lines 221-226), nothing holds (`desired_state.go` lines 629-636), and
/// the control plane goes to v1.35.1, past the pool at v1.31.13 too. Exit 1 for both pools,
/// each with the upstream error.
#[test]
fn the_nil_workers_plan_breaks_every_pool_behind() {
    let report = fixture("topology-beyond-window.yaml");
    assert_eq!(
        breaks(&report),
        [
            b("default/stale-mp-0-q8v2n", &["v1.30.10"], false),
            b("default/stale-mp-1-w3m9p", &["v1.31.13"], false),
        ]
    );
    let text = report.to_string();
    assert!(
        text.contains("upstream finds no version for minor 1.33, returns no workers' plan and no error (upgrade_plan.go lines 221-226)"),
        "{text}"
    );
}

// ---- the generated differential ----

/// A generated cluster: the state upstream reads, and the pools it does not own.
#[derive(Clone, Debug)]
struct Generated {
    state: TopologyState,
    unowned: Vec<String>,
}

fn version(minor: u64, patch: u64) -> String {
    format!("v1.{minor}.{patch}")
}

/// Workers a few minors behind the control plane (never ahead of it).
fn workers(
    prefix: &'static str,
    cp_minor: u64,
    cp_patch: u64,
    count: std::ops::Range<usize>,
) -> impl Strategy<Value = Vec<(Worker, WorkerTopology)>> {
    let one = (
        cp_minor.saturating_sub(5).max(20)..=cp_minor,
        0u64..3,
        prop::bool::weighted(0.15),
        prop::bool::weighted(0.15),
        prop::bool::weighted(0.08),
    );
    prop::collection::vec(one, count).prop_map(move |ws| {
        ws.into_iter()
            .enumerate()
            .map(|(i, (minor, patch, upgrading, defer, hold))| {
                let patch = if minor == cp_minor {
                    patch.min(cp_patch)
                } else {
                    patch
                };
                let name = format!("{prefix}-{i}");
                (
                    Worker {
                        name: format!("c-{name}"),
                        topology_name: name.clone(),
                        version: version(minor, patch),
                        upgrading,
                    },
                    WorkerTopology {
                        name,
                        defer_upgrade: defer,
                        hold_upgrade_sequence: hold,
                    },
                )
            })
            .collect()
    })
}

fn generated() -> impl Strategy<Value = Generated> {
    (22u64..34, 0u64..3, 0u64..=3, 0u64..3, 0u8..4, 0u8..4)
        .prop_flat_map(|(cp_minor, cp_patch, ahead, top_patch, chain, cp_state)| {
            let cp = version(cp_minor, cp_patch);
            let top_minor = cp_minor + ahead;
            let top_patch = if ahead == 0 {
                top_patch.max(cp_patch)
            } else {
                top_patch
            };
            let topology = version(top_minor, top_patch);
            // 0: one minor at a time; else the ClusterClass's versions (2: two per minor).
            let class_versions: Vec<String> = if chain == 0 {
                Vec::new()
            } else {
                let mut vs = Vec::new();
                for m in cp_minor.saturating_sub(1)..=top_minor {
                    if m == top_minor {
                        if chain == 2 && top_patch > 0 && m != cp_minor {
                            vs.push(version(m, 0));
                        }
                        vs.push(topology.clone());
                    } else if m == cp_minor {
                        vs.push(cp.clone());
                    } else {
                        vs.push(version(m, 0));
                        if chain == 2 {
                            vs.push(version(m, 4));
                        }
                    }
                }
                vs
            };
            let control_plane = match cp_state {
                0 => ControlPlaneFacts {
                    spec_version: cp.clone(),
                    status_versions: vec![cp.clone()],
                    status_version: Some(cp.clone()),
                },
                1 => ControlPlaneFacts {
                    spec_version: cp.clone(),
                    status_versions: vec![version(cp_minor - 1, 2), cp.clone()],
                    status_version: Some(version(cp_minor - 1, 2)),
                },
                2 => ControlPlaneFacts {
                    spec_version: cp.clone(),
                    ..ControlPlaneFacts::default()
                },
                _ => ControlPlaneFacts {
                    spec_version: cp.clone(),
                    status_versions: Vec::new(),
                    status_version: Some(cp.clone()),
                },
            };
            let unowned = prop::collection::vec(
                (cp_minor.saturating_sub(5).max(20)..=cp_minor, 0u64..3).prop_map(move |(m, p)| {
                    version(m, if m == cp_minor { p.min(cp_patch) } else { p })
                }),
                0..3,
            );
            (
                Just((topology, class_versions, control_plane)),
                workers("mp", cp_minor, cp_patch, 0..4),
                workers("md", cp_minor, cp_patch, 0..3),
                unowned,
                1usize..3,
            )
        })
        .prop_map(
            |((topology, class_versions, control_plane), mps, mds, unowned, concurrency)| {
                let (machine_pools, machine_pool_topologies) = mps.into_iter().unzip();
                let (machine_deployments, machine_deployment_topologies) = mds.into_iter().unzip();
                Generated {
                    state: TopologyState {
                        topology_version: topology,
                        class_versions,
                        control_plane,
                        machine_deployments,
                        machine_pools,
                        machine_deployment_topologies,
                        machine_pool_topologies,
                        upgrade_concurrency: concurrency,
                    },
                    unowned,
                }
            },
        )
}

fn workers_json(workers: &[Worker]) -> Value {
    workers
        .iter()
        .map(|w| json!({"name": w.name, "topologyName": w.topology_name, "version": w.version, "upgrading": w.upgrading}))
        .collect()
}

fn topologies_json(ts: &[WorkerTopology]) -> Value {
    ts.iter()
        .map(|t| json!({"name": t.name, "deferUpgrade": t.defer_upgrade, "holdUpgradeSequence": t.hold_upgrade_sequence}))
        .collect()
}

/// Upstream's answer for the state (`None` without a Go toolchain where Go is not required).
fn upstream(state: &TopologyState) -> Option<Value> {
    let cp = &state.control_plane;
    let answer = oracle()?.call(&json!({
        "op": "topology-next-versions",
        "topologyVersion": state.topology_version,
        "classVersions": state.class_versions,
        "controlPlane": {"specVersion": cp.spec_version, "statusVersions": cp.status_versions,
                         "statusVersion": cp.status_version},
        "machineDeployments": workers_json(&state.machine_deployments),
        "machinePools": workers_json(&state.machine_pools),
        "machineDeploymentTopologies": topologies_json(&state.machine_deployment_topologies),
        "machinePoolTopologies": topologies_json(&state.machine_pool_topologies),
        "upgradeConcurrency": state.upgrade_concurrency,
    }));
    match answer {
        Answer::Ok { value, .. } => Some(value),
        Answer::Err(e) => panic!("the oracle refused the request: {e}"),
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| a.iter().map(|s| s.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default()
}

fn next_of(v: &Value) -> Vec<(String, String)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["name"].as_str().unwrap().to_owned(),
                w["version"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The cluster as a stream: Cluster, ClusterClass, KubeadmControlPlane, the owned workers
/// (upgrading ones with a Node or Machine at an older version), the unowned pools.
fn stream(g: &Generated) -> Vec<Value> {
    let s = &g.state;
    let topo = |ts: &[WorkerTopology]| -> Vec<Value> {
        ts.iter()
            .map(|t| {
                let mut a = serde_json::Map::new();
                if t.defer_upgrade {
                    a.insert("topology.cluster.x-k8s.io/defer-upgrade".into(), "".into());
                }
                if t.hold_upgrade_sequence {
                    a.insert(
                        "topology.cluster.x-k8s.io/hold-upgrade-sequence".into(),
                        "".into(),
                    );
                }
                json!({"class": "default-worker", "name": t.name, "metadata": {"annotations": a}})
            })
            .collect()
    };
    let mut docs = vec![
        json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
            "metadata": {"name": "c", "namespace": "default",
                "annotations": {"topology.cluster.x-k8s.io/upgrade-concurrency": s.upgrade_concurrency.to_string()}},
            "spec": {"controlPlaneRef": {"apiGroup": "controlplane.cluster.x-k8s.io", "kind": "KubeadmControlPlane", "name": "cp"},
                "topology": {"classRef": {"name": "quick-start"}, "version": s.topology_version,
                    "workers": {"machineDeployments": topo(&s.machine_deployment_topologies),
                                "machinePools": topo(&s.machine_pool_topologies)}}}}),
        json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "ClusterClass",
            "metadata": {"name": "quick-start", "namespace": "default"},
            "spec": {"kubernetesVersions": s.class_versions}}),
    ];
    let cp = &s.control_plane;
    let mut status = serde_json::Map::new();
    if !cp.status_versions.is_empty() {
        status.insert(
            "versions".into(),
            cp.status_versions
                .iter()
                .map(|v| json!({"version": v}))
                .collect(),
        );
    }
    if let Some(v) = &cp.status_version {
        status.insert("version".into(), v.clone().into());
    }
    docs.push(
        json!({"apiVersion": "controlplane.cluster.x-k8s.io/v1beta2", "kind": "KubeadmControlPlane",
        "metadata": {"name": "cp", "namespace": "default"},
        "spec": {"replicas": 3, "version": cp.spec_version}, "status": status}),
    );
    let pool = |name: &str, version: &str, owned: Option<&str>, node: Option<&str>| {
        let mut labels = json!({"cluster.x-k8s.io/cluster-name": "c"});
        if let Some(t) = owned {
            labels["topology.cluster.x-k8s.io/owned"] = "".into();
            labels["topology.cluster.x-k8s.io/pool-name"] = t.into();
        }
        let status = node.map_or(
            Value::Null,
            |n| json!({"nodeRefs": [{"apiVersion": "v1", "kind": "Node", "name": n}]}),
        );
        json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
            "metadata": {"name": name, "namespace": "default", "labels": labels},
            "spec": {"clusterName": "c", "replicas": 1, "template": {"spec": {"clusterName": "c", "version": version,
                "bootstrap": {"dataSecretName": "boot"},
                "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DockerMachinePool", "name": name}}}},
            "status": status})
    };
    for w in &s.machine_pools {
        let node = format!("{}-node", w.name);
        docs.push(pool(
            &w.name,
            &w.version,
            Some(&w.topology_name),
            w.upgrading.then_some(node.as_str()),
        ));
        if w.upgrading {
            docs.push(
                json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": node},
                "status": {"nodeInfo": {"kubeletVersion": "v1.19.0"}}}),
            );
        }
    }
    for w in &s.machine_deployments {
        docs.push(json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachineDeployment",
            "metadata": {"name": w.name, "namespace": "default", "labels": {"cluster.x-k8s.io/cluster-name": "c",
                "topology.cluster.x-k8s.io/owned": "", "topology.cluster.x-k8s.io/deployment-name": w.topology_name}},
            "spec": {"clusterName": "c", "template": {"spec": {"clusterName": "c", "version": w.version}}}}));
        let machine_version = if w.upgrading {
            "v1.19.0"
        } else {
            w.version.as_str()
        };
        docs.push(
            json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Machine",
            "metadata": {"name": format!("{}-m", w.name), "namespace": "default",
                "labels": {"cluster.x-k8s.io/deployment-name": w.name}},
            "spec": {"clusterName": "c", "version": machine_version}}),
        );
    }
    for (i, v) in g.unowned.iter().enumerate() {
        docs.push(pool(&format!("unowned-{i}"), v, None, None));
    }
    docs
}

/// The policy, from its text: how many minors older than kube-apiserver a kubelet may be.
fn policy_allows(kubelet: &str, api_server: &str) -> bool {
    let minor = |v: &str| -> u64 {
        v.trim_start_matches('v')
            .split('.')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap()
    };
    let (k, a) = (minor(kubelet), minor(api_server));
    let window = if k < 25 { 2 } else { 3 };
    k <= a && a - k <= window
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(capi_test_support::proptest_cases(256)))]

    #[test]
    fn upstreams_next_versions_and_the_pools_they_break(g in generated()) {
        let Some(answer) = upstream(&g.state) else {
            return Ok(());
        };
        let ours = next_versions(&g.state);
        if let Some(error) = answer["error"].as_str() {
            prop_assert!(ours.is_err(), "upstream fails ({error}), ours: {ours:?}");
        } else {
            let ours = ours.map_err(|e| TestCaseError::fail(format!("ours fails ({e}), upstream: {answer}")))?;
            prop_assert_eq!(&ours.control_plane, answer["controlPlane"].as_str().unwrap(), "{}", answer);
            prop_assert_eq!(&ours.plan.control_plane, &strings(&answer["controlPlanePlan"]), "{}", answer);
            let workers = if g.state.machine_pools.is_empty() { &answer["mdWorkersPlan"] } else { &answer["workersPlan"] };
            prop_assert_eq!(&ours.plan.workers, &strings(workers), "{}", answer);
            let mds: Vec<(String, String)> = ours.machine_deployments.iter().map(|w| (w.name.clone(), w.version.clone())).collect();
            prop_assert_eq!(mds, next_of(&answer["machineDeployments"]), "{}", answer);
            let mps: Vec<(String, String)> = ours.machine_pools.iter().map(|w| (w.name.clone(), w.version.clone())).collect();
            prop_assert_eq!(mps, next_of(&answer["machinePools"]), "{}", answer);
        }
        // The whole cluster: each pool's upstream-breaks-pool errors follow the policy on
        // upstream's next control plane step.
        let report = validate_docs("generated", &stream(&g));
        let step = answer["controlPlanePlan"].as_array().and_then(|p| p.first()).and_then(Value::as_str);
        let workers_plan = if g.state.machine_pools.is_empty() { &answer["mdWorkersPlan"] } else { &answer["workersPlan"] };
        let holds_owned = strings(workers_plan).first() == Some(&g.state.control_plane.spec_version);
        let pools: Vec<(String, bool)> = g.state.machine_pools.iter().map(|w| (w.version.clone(), true))
            .chain(g.unowned.iter().map(|v| (v.clone(), false))).collect();
        let got = breaks(&report);
        prop_assert_eq!(got.len(), pools.len());
        for ((version, owned), (name, broken, _)) in pools.iter().zip(&got) {
            let expected: Vec<String> = match step {
                Some(step) if answer["error"].is_null() && !(*owned && holds_owned) && !policy_allows(version, step) => vec![version.clone()],
                _ => Vec::new(),
            };
            prop_assert_eq!(broken, &expected, "{} at {} (owned {}), upstream {}", name, version, owned, answer);
        }
    }
}
