//! Upgrade progress (cluster-api#10059): the table of states of docs/conditions.md, section
//! "Upgrade progress", one row per fixture under `tests/fixtures/upgrade/` (MachinePools derived
//! from the corpus `machine-pool.yaml`, statuses as upstream's controller writes them; see
//! `tests/fixtures/upgrade/SOURCE.md`).
//!
//! Sources of the expected values:
//! * upstream `core/reconcilers/machinepool/machinepool_controller_status.go` `setReplicas`:
//!   without MachinePool Machines ready = available = `status.replicas`, up-to-date =
//!   `spec.replicas` (the bug: every replica "up to date" right after a version bump), and
//!   `status.versions` from the Nodes' kubelet versions (`versionsFromNodeRefs`); with them,
//!   Machines with Ready / Available / UpToDate True;
//! * `machinepool_controller_scope.go` `hasMachinePoolMachines`: Machines are supported when the
//!   InfraMachinePool sets `status.infrastructureMachineKind`;
//! * `machinepool_controller.go` `setMachinesUptoDate`: every Machine not being deleted gets
//!   `UpToDate` True, whatever its version; `machinepool_controller_phases.go` `getNewMachine`:
//!   a Machine's `spec.version` is its Node's kubelet version;
//! * `docs/proposals/20240916-improve-status-in-CAPI-resources.md`, "MachinePool
//!   (New)Conditions": `RollingOut` "True if there is at least one machine not up to date",
//!   `MachinesUpToDate` "surfaces details of controlled machines not up to date", and
//!   `upToDateReplicas` counts replicas whose UpToDate is true;
//! * PR #13929 (open): supported / not supported / unknown, 10 s grace for new Machines,
//!   existing Machines prove support when the InfraMachinePool cannot be read.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_conditions::{Condition, get};
use capi_contract::Contract;
use capi_machinepool_api::v1beta2::MachinePool;
use capi_machinepool_api::views::Machine;
use capi_machinepool_status::conditions::{
    self as machine_pool, External, Inputs, MachinePoolMachines, ReplicaCounters, replica_counters,
};
use capi_machinepool_status::typed::verdict_with_nodes_of;
use capi_machinepool_status::upgrade::{
    Counter, Pending, UpgradeVerdict, upgrade_verdict, upgrade_verdict_with_nodes,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use kube_core::DynamicObject;
use serde_json::Value;

/// 2026-12-01T00:00:00Z, a day after the fixtures' transition times.
const NOW: i64 = 1_796_083_200;

/// One fixture: the pool, its InfraMachinePool when present, its Machines.
struct Fixture {
    pool: MachinePool,
    infra: Option<DynamicObject>,
    machines: Vec<Machine>,
}

fn load(name: &str) -> Fixture {
    let path = format!(
        "{}/tests/fixtures/upgrade/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let docs: Vec<Value> =
        serde_saphyr::from_multiple(&std::fs::read_to_string(path).unwrap()).unwrap();
    let pool: MachinePool = docs
        .iter()
        .find(|d| d["kind"] == "MachinePool")
        .map(|d| serde_json::from_value(d.clone()).unwrap())
        .unwrap();
    let infra_kind = pool.spec.template.spec.infrastructure_ref.kind.clone();
    let infra = docs
        .iter()
        .find(|d| d["kind"] == infra_kind.as_str())
        .map(|d| serde_json::from_value(d.clone()).unwrap());
    let machines = docs
        .iter()
        .filter(|d| d["kind"] == "Machine")
        .map(|d| serde_json::from_value(d.clone()).unwrap())
        .collect();
    Fixture {
        pool,
        infra,
        machines,
    }
}

fn summary(c: &Condition) -> (String, String, String) {
    (c.status.clone(), c.reason.clone(), c.message.clone())
}

fn cond(s: &str, r: &str, m: &str) -> (String, String, String) {
    (s.into(), r.into(), m.into())
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Support {
    Supported,
    NotSupported,
    Unknown,
}

/// One row of the table of states.
struct Row {
    fixture: &'static str,
    support: Support,
    /// (ready, available, upToDate) computed.
    counters: (i32, i32, i32),
    machines_ready: (String, String, String),
    machines_up_to_date: (String, String, String),
    rolling_out: (String, String, String),
    /// The verdict on the pool as upstream wrote it.
    upstream_verdict: Vec<Pending>,
    /// The verdict once `machine_pool::apply` wrote our conditions and counters.
    verdict: Vec<Pending>,
}

fn behind(v: &str, n: i32) -> Pending {
    Pending::VersionsBehind {
        desired: "v1.35.0".into(),
        behind: vec![(v.into(), n)],
    }
}

fn counter(counter: Counter, value: i32, desired: i32) -> Pending {
    Pending::Counter {
        counter,
        value: Some(value),
        desired,
    }
}

fn rolling(n: i32) -> (String, String, String) {
    cond(
        "True",
        "RollingOut",
        &format!("Rolling out {n} not up-to-date replicas\n* Version v1.35.0 required"),
    )
}

fn rolling_pending(n: i32) -> Pending {
    let (status, _, message) = rolling(n);
    Pending::RollingOut { status, message }
}

fn not_rolling() -> (String, String, String) {
    cond("False", "NotRollingOut", "")
}

fn rows() -> Vec<Row> {
    use Counter::UpToDate;
    vec![
        // cluster-api#10059 reproduced: upstream says upToDateReplicas 3 while all three
        // kubelets run v1.34.2.
        Row {
            fixture: "not-supported-upgrade-started.yaml",
            support: Support::NotSupported,
            counters: (3, 3, 0),
            machines_ready: cond("True", "Ready", ""),
            machines_up_to_date: cond(
                "False",
                "NotUpToDate",
                "* Version v1.35.0 required, 3 of 3 replicas not at it (3 on v1.34.2)",
            ),
            rolling_out: rolling(3),
            upstream_verdict: vec![behind("v1.34.2", 3)],
            verdict: vec![
                rolling_pending(3),
                behind("v1.34.2", 3),
                counter(UpToDate, 0, 3),
            ],
        },
        Row {
            fixture: "not-supported-upgrade-halfway.yaml",
            support: Support::NotSupported,
            counters: (3, 3, 1),
            machines_ready: cond("True", "Ready", ""),
            machines_up_to_date: cond(
                "False",
                "NotUpToDate",
                "* Version v1.35.0 required, 2 of 3 replicas not at it (2 on v1.34.2)",
            ),
            rolling_out: rolling(2),
            upstream_verdict: vec![behind("v1.34.2", 2)],
            verdict: vec![
                rolling_pending(2),
                behind("v1.34.2", 2),
                counter(UpToDate, 1, 3),
            ],
        },
        // A replica whose Node never joined has no version: not up to date, not rolling out
        // either (unknown), and the gate stays closed.
        Row {
            fixture: "not-supported-node-joining.yaml",
            support: Support::NotSupported,
            counters: (3, 3, 2),
            machines_ready: cond("False", "NotReady", "2 of 3 replicas have a Ready Node"),
            machines_up_to_date: cond(
                "Unknown",
                "UpToDateUnknown",
                "status.versions reports 2 of 3 replicas at version v1.35.0, the others report no version yet",
            ),
            rolling_out: not_rolling(),
            upstream_verdict: vec![Pending::VersionsIncomplete {
                reported: 2,
                desired: 3,
            }],
            verdict: vec![
                Pending::VersionsIncomplete {
                    reported: 2,
                    desired: 3,
                },
                counter(UpToDate, 2, 3),
            ],
        },
        // Issue 29: the pool exactly as upstream's controller writes it after the upgrade (every
        // status.versions entry at the target, counters equal, no RollingOut condition) opens
        // the gate: upstream's own answer, IsMachinePoolUpgrading
        // (internal/topology/check/upgrade.go line 71 at ae7ff047), compares the Nodes' kubelet
        // versions with the template version and nothing else.
        Row {
            fixture: "not-supported-upgraded.yaml",
            support: Support::NotSupported,
            counters: (3, 3, 3),
            machines_ready: cond("True", "Ready", ""),
            machines_up_to_date: cond("True", "UpToDate", ""),
            rolling_out: not_rolling(),
            upstream_verdict: vec![],
            verdict: vec![],
        },
        Row {
            fixture: "not-supported-vendor-suffix.yaml",
            support: Support::NotSupported,
            counters: (2, 2, 2),
            machines_ready: cond("True", "Ready", ""),
            machines_up_to_date: cond("True", "UpToDate", ""),
            rolling_out: not_rolling(),
            upstream_verdict: vec![],
            verdict: vec![],
        },
        // The only state in which NoReplicas is right: no replica at all.
        Row {
            fixture: "not-supported-scaled-to-zero.yaml",
            support: Support::NotSupported,
            counters: (0, 0, 0),
            machines_ready: cond("True", "NoReplicas", ""),
            machines_up_to_date: cond("True", "NoReplicas", ""),
            rolling_out: not_rolling(),
            upstream_verdict: vec![],
            verdict: vec![],
        },
        // InfraMachinePool unreadable: ready/available keep their values (PR #13929),
        // up-to-date and RollingOut still come from status.versions.
        Row {
            fixture: "support-unknown.yaml",
            support: Support::Unknown,
            counters: (3, 3, 0),
            machines_ready: cond(
                "Unknown",
                "ReadyUnknown",
                "Cannot tell whether AzureManagedMachinePool provides MachinePool Machines",
            ),
            machines_up_to_date: cond(
                "False",
                "NotUpToDate",
                "* Version v1.35.0 required, 3 of 3 replicas not at it (3 on v1.34.2)",
            ),
            rolling_out: rolling(3),
            upstream_verdict: vec![behind("v1.34.2", 3)],
            verdict: vec![
                rolling_pending(3),
                behind("v1.34.2", 3),
                counter(UpToDate, 0, 3),
            ],
        },
        // The same bug with MachinePool Machines: setMachinesUptoDate says UpToDate True on
        // Machines still running v1.34.2.
        Row {
            fixture: "supported-upgrade-started.yaml",
            support: Support::Supported,
            counters: (2, 2, 0),
            machines_ready: cond("True", "Ready", ""),
            machines_up_to_date: cond(
                "False",
                "NotUpToDate",
                "* Machines worker-mp-0-q9m4t, worker-mp-0-x7k2p:\n  * Version v1.35.0 required",
            ),
            rolling_out: rolling(2),
            upstream_verdict: vec![behind("v1.34.2", 2)],
            verdict: vec![
                rolling_pending(2),
                behind("v1.34.2", 2),
                counter(UpToDate, 0, 2),
            ],
        },
        Row {
            fixture: "supported-no-machines-yet.yaml",
            support: Support::Supported,
            counters: (0, 0, 0),
            machines_ready: cond("Unknown", "ReadyUnknown", "2 replicas have no Machine yet"),
            machines_up_to_date: cond(
                "Unknown",
                "UpToDateUnknown",
                "Waiting for Machines to report UpToDate",
            ),
            rolling_out: not_rolling(),
            // Upstream counts Machines here too: none. Its upToDateReplicas is not judged
            // (no RollingOut condition: upstream's counter says nothing, see upgrade.rs rule 4).
            upstream_verdict: vec![
                Pending::VersionsIncomplete {
                    reported: 0,
                    desired: 2,
                },
                counter(Counter::Ready, 0, 2),
                counter(Counter::Available, 0, 2),
            ],
            verdict: vec![
                Pending::VersionsIncomplete {
                    reported: 0,
                    desired: 2,
                },
                counter(Counter::UpToDate, 0, 2),
                counter(Counter::Ready, 0, 2),
                counter(Counter::Available, 0, 2),
            ],
        },
    ]
}

fn verdict_list(v: &UpgradeVerdict) -> Vec<Pending> {
    v.pending().to_vec()
}

#[test]
fn table_of_states() {
    let now = Time(Timestamp::from_second(NOW).unwrap());
    for row in rows() {
        let f = load(row.fixture);
        let infra = f.infra.as_ref().map_or(External::NotFound, External::Found);
        let machines = MachinePoolMachines::detect(infra, Some(&f.machines));
        let support = match machines {
            MachinePoolMachines::Supported(_) => Support::Supported,
            MachinePoolMachines::NotSupported => Support::NotSupported,
            MachinePoolMachines::Unknown => Support::Unknown,
        };
        assert_eq!(support, row.support, "{}", row.fixture);
        let inputs = Inputs {
            infra,
            infra_contract: Contract::V1Beta2,
            bootstrap: External::NotFound,
            machines,
            cluster_paused: false,
            now: &now,
        };
        let mp = &f.pool;
        let (r, a, u) = row.counters;
        assert_eq!(
            replica_counters(mp, &inputs),
            ReplicaCounters {
                ready_replicas: Some(r),
                available_replicas: Some(a),
                up_to_date_replicas: Some(u)
            },
            "{}",
            row.fixture
        );
        let got = (
            summary(&machine_pool::machines_ready(mp, &inputs)),
            summary(&machine_pool::machines_up_to_date(mp, &inputs)),
            summary(&machine_pool::rolling_out(mp, &inputs)),
        );
        assert_eq!(
            got,
            (row.machines_ready, row.machines_up_to_date, row.rolling_out),
            "{}",
            row.fixture
        );
        assert_eq!(
            verdict_list(&upgrade_verdict(mp)),
            row.upstream_verdict,
            "{} as upstream wrote it",
            row.fixture
        );
        let mut applied = f.pool.clone();
        machine_pool::apply(&mut applied, &inputs);
        assert_eq!(
            verdict_list(&upgrade_verdict(&applied)),
            row.verdict,
            "{} after apply",
            row.fixture
        );
        assert_eq!(
            upgrade_verdict(&applied).is_complete(),
            row.verdict.is_empty()
        );
    }
}

/// Counters and RollingOut agree in every row: RollingOut is True exactly when some replica is
/// known not to be up to date, and up-to-date + not-up-to-date never exceeds the replicas.
#[test]
fn counters_consistent_with_rolling_out() {
    let now = Time(Timestamp::from_second(NOW).unwrap());
    for row in rows() {
        let f = load(row.fixture);
        let infra = f.infra.as_ref().map_or(External::NotFound, External::Found);
        let inputs = Inputs {
            infra,
            infra_contract: Contract::V1Beta2,
            bootstrap: External::NotFound,
            machines: MachinePoolMachines::detect(infra, Some(&f.machines)),
            cluster_paused: false,
            now: &now,
        };
        let mut mp = f.pool.clone();
        machine_pool::apply(&mut mp, &inputs);
        let rolling = get(&mp, "RollingOut").unwrap();
        let up_to_date = mp.status.up_to_date_replicas.unwrap();
        let replicas = mp.status.replicas.unwrap();
        // Replicas known to run another version: from the fixture's own status.versions, or
        // its Machines' spec.version (independently of the code under test).
        let stale: i32 = if f.machines.is_empty() {
            mp.status
                .versions
                .iter()
                .flatten()
                .filter(|v| !v.version.starts_with("v1.35.0"))
                .map(|v| v.replicas)
                .sum()
        } else {
            f.machines
                .iter()
                .filter(|m| m.spec.version != "v1.35.0")
                .count() as i32
        };
        assert_eq!(rolling.status == "True", stale > 0, "{}", row.fixture);
        assert!(up_to_date + stale <= replicas, "{}", row.fixture);
        if rolling.status == "True" {
            assert!(up_to_date < replicas, "{}", row.fixture);
        }
    }
}

/// Existing Machines prove support when the InfraMachinePool cannot be read (PR #13929); a
/// failed Machine list makes a supporting pool Unknown.
#[test]
fn detect_support() {
    let f = load("supported-upgrade-started.yaml");
    let infra = External::Found(f.infra.as_ref().unwrap());
    assert!(matches!(
        MachinePoolMachines::detect(External::ReadError, Some(&f.machines)),
        MachinePoolMachines::Supported(m) if m.len() == 2
    ));
    assert_eq!(
        MachinePoolMachines::detect(infra, None),
        MachinePoolMachines::Unknown
    );
    assert_eq!(
        MachinePoolMachines::detect(External::ReadError, Some(&[])),
        MachinePoolMachines::Unknown
    );
}

/// Every pending reason prints a sentence a client can log.
#[test]
fn pending_reasons_print() {
    let f = load("not-supported-node-joining.yaml");
    let mut mp = f.pool;
    mp.metadata.generation = Some(4);
    let lines: Vec<String> = upgrade_verdict(&mp)
        .pending()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        lines,
        [
            "status.observedGeneration 3 is behind metadata.generation 4",
            "status.versions accounts for 2 of 3 replicas",
        ]
    );
}

mod props {
    use super::*;
    use capi_machinepool_api::v1beta2::StatusVersion;
    use proptest::prelude::*;

    /// Kubelet versions around the target v1.35.0, with whether each runs it, decided here by
    /// hand (v1.35.0 itself and its EKS build do; other releases and the rc do not).
    const KUBELETS: [(&str, bool); 5] = [
        ("v1.34.2", false),
        ("v1.35.0", true),
        ("v1.35.0-eks-3025e55", true),
        ("v1.35.0-rc.1", false),
        ("v1.36.0", false),
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(capi_test_support::proptest_cases(256)))]

        /// Without MachinePool Machines, for any status.versions (distinct versions, as the
        /// list-map requires) and any status.replicas: upToDateReplicas is the replicas at
        /// v1.35.0, RollingOut is True exactly when some replica is on another version,
        /// MachinesUpToDate is NoReplicas only at zero replicas, and the gate is Complete only
        /// when everything matches.
        #[test]
        fn counters_rolling_out_and_gate_agree(
            counts in proptest::collection::vec(0_i32..4, KUBELETS.len()),
            extra in 0_i32..3,
        ) {
            let mut mp = load("not-supported-upgraded.yaml").pool;
            let versions: Vec<StatusVersion> = KUBELETS
                .iter()
                .zip(&counts)
                .filter(|(_, n)| **n > 0)
                .map(|((v, _), n)| StatusVersion { version: (*v).into(), replicas: *n })
                .collect();
            let at: i32 = KUBELETS.iter().zip(&counts).filter(|((_, ok), _)| *ok).map(|(_, n)| n).sum();
            let behind: i32 = KUBELETS.iter().zip(&counts).filter(|((_, ok), _)| !*ok).map(|(_, n)| n).sum();
            let replicas = at + behind + extra;
            mp.spec.replicas = Some(replicas);
            mp.status.replicas = Some(replicas);
            mp.status.versions = (!versions.is_empty()).then_some(versions);
            let now = Time(Timestamp::from_second(NOW).unwrap());
            let inputs = Inputs {
                infra: External::NotFound,
                infra_contract: Contract::V1Beta2,
                bootstrap: External::NotFound,
                machines: MachinePoolMachines::NotSupported,
                cluster_paused: false,
                now: &now,
            };
            prop_assert_eq!(replica_counters(&mp, &inputs).up_to_date_replicas, Some(at));
            let rolling = machine_pool::rolling_out(&mp, &inputs);
            prop_assert_eq!(rolling.status == "True", behind > 0);
            let up_to_date = machine_pool::machines_up_to_date(&mp, &inputs);
            prop_assert_eq!(up_to_date.reason == "NoReplicas", replicas == 0);
            prop_assert_eq!(up_to_date.status == "True", behind == 0 && extra == 0);
            machine_pool::apply(&mut mp, &inputs);
            prop_assert_eq!(
                upgrade_verdict(&mp).is_complete(),
                behind == 0 && extra == 0
            );
        }
    }
}

/// The Nodes of a fixture (its `kind: Node` documents).
fn nodes(name: &str) -> Vec<k8s_openapi::api::core::v1::Node> {
    let path = format!(
        "{}/tests/fixtures/upgrade/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let docs: Vec<Value> =
        serde_saphyr::from_multiple(&std::fs::read_to_string(path).unwrap()).unwrap();
    docs.iter()
        .filter(|d| d["kind"] == "Node")
        .map(|d| serde_json::from_value(d.clone()).unwrap())
        .collect()
}

/// A pool with MachinePool Machines (DevMachinePool) after its upgrade, as a release without
/// `setMachinesUptoDate` writes it: `upToDateReplicas` 0 forever (issue 49). `setReplicas`
/// counts Machines whose UpToDate is True (core/reconcilers/machinepool/
/// machinepool_controller_status.go lines 61-77 at ae7ff047), and the Machine controller sets
/// UpToDate only on Machines of a MachineSet of a MachineDeployment
/// (core/reconcilers/machine/machine_controller_status.go lines 658-673). Upstream's own check,
/// `IsMachinePoolUpgrading` (internal/topology/check/upgrade.go lines 68-91), compares the
/// kubelet of each `status.nodeRefs` Node with the template version. The gate opens when every
/// Node runs it, and stays shut while one does not.
#[test]
fn machine_pool_machines_gate_opens_on_the_nodes_kubelets() {
    let name = "supported-upgraded-zero-up-to-date.yaml";
    let f = load(name);
    assert_eq!(f.pool.status.up_to_date_replicas, Some(0));
    // The pool alone: upstream's counter is not judged, the versions are at the target.
    assert_eq!(verdict_list(&upgrade_verdict(&f.pool)), []);
    let nodes = nodes(name);
    assert_eq!(nodes.len(), 2);
    assert!(upgrade_verdict_with_nodes(&f.pool, &nodes).is_complete());
    // One Node still runs the old kubelet: pending, naming it.
    let mut behind = nodes.clone();
    behind[1]
        .status
        .as_mut()
        .unwrap()
        .node_info
        .as_mut()
        .unwrap()
        .kubelet_version = "v1.34.2".into();
    assert_eq!(
        verdict_list(&upgrade_verdict_with_nodes(&f.pool, &behind)),
        [Pending::NodeBehind {
            node: "worker-mp-0-k3v9z".into(),
            kubelet: "v1.34.2".into(),
            desired: "v1.35.0".into(),
        }]
    );
    assert_eq!(
        upgrade_verdict_with_nodes(&f.pool, &behind).pending()[0].to_string(),
        "Node worker-mp-0-k3v9z runs kubelet v1.34.2, not v1.35.0"
    );
    // A referenced Node that is gone: pending (upstream's check fails on it too).
    assert_eq!(
        verdict_list(&upgrade_verdict_with_nodes(&f.pool, &nodes[..1])),
        [Pending::NodeNotFound {
            node: "worker-mp-0-k3v9z".into()
        }]
    );
    // The same pool at v1beta1 (both API versions, converted as upstream converts it): the
    // same verdicts.
    let mut resolver = capi_machinepool_conversion::StaticResolver::new();
    resolver.insert(
        "infrastructure.cluster.x-k8s.io",
        "DevMachinePool",
        "infrastructure.cluster.x-k8s.io/v1beta2",
    );
    resolver.insert(
        "bootstrap.cluster.x-k8s.io",
        "KubeadmConfig",
        "bootstrap.cluster.x-k8s.io/v1beta2",
    );
    let old = capi_machinepool_conversion::machine_pool::from_hub(&f.pool, &resolver).unwrap();
    assert!(verdict_with_nodes_of(&old, &nodes).unwrap().is_complete());
    assert_eq!(
        verdict_list(&verdict_with_nodes_of(&old, &behind).unwrap()),
        verdict_list(&upgrade_verdict_with_nodes(&f.pool, &behind))
    );
}
