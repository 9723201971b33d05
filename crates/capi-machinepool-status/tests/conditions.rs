//! MachinePool v1beta2 conditions, rule by rule, on realistic inputs (the corpus MachinePool,
//! InfraMachinePools shaped like the corpus providers' CRDs).
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_conditions::{get, new_condition};
use capi_contract::Contract;
use capi_machinepool_api::v1beta2::MachinePool;
use capi_machinepool_api::views::Machine;
use capi_machinepool_status::conditions::{
    self as machine_pool, External, Inputs, MachinePoolMachines, replica_counters,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;
use kube_core::DynamicObject;
use serde_json::{Value, json};

fn t(secs: i64) -> Time {
    Time(Timestamp::from_second(secs).unwrap())
}

const NOW: i64 = 1_800_000_000;

fn corpus_pool() -> MachinePool {
    let doc = capi_test_support::yaml_docs("corpus/objects/machine-pool.yaml")
        .into_iter()
        .find(|d| d["kind"] == "MachinePool")
        .unwrap();
    serde_json::from_value(doc).unwrap()
}

/// An object as `kube::Api::<DynamicObject>` returns it.
fn dynamic(v: Value) -> DynamicObject {
    serde_json::from_value(v).unwrap()
}

fn infra(provisioned: Option<bool>, ready: Option<(&str, &str, &str)>) -> DynamicObject {
    let mut v = json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "DockerMachinePool",
        "metadata": {"name": "worker-dmp-0", "namespace": "default"}, "status": {"replicas": 2}});
    if let Some(p) = provisioned {
        v["status"]["initialization"] = json!({"provisioned": p});
    }
    if let Some((s, r, m)) = ready {
        v["status"]["conditions"] = json!([{"type": "Ready", "status": s, "reason": r, "message": m, "lastTransitionTime": "2026-11-30T10:00:00Z"}]);
    }
    dynamic(v)
}

fn bootstrap(ready: bool) -> DynamicObject {
    dynamic(
        json!({"apiVersion": "bootstrap.cluster.x-k8s.io/v1beta2", "kind": "KubeadmConfig", "metadata": {"name": "worker-mp-0-config"},
        "status": {"initialization": {"dataSecretCreated": ready}, "conditions": [
            {"type": "Ready", "status": if ready { "True" } else { "False" }, "reason": if ready { "Ready" } else { "WaitingForControlPlane" },
             "message": if ready { "" } else { "Waiting for the control plane to be initialized" }, "lastTransitionTime": "2026-11-30T09:00:00Z"}]}}),
    )
}

fn inputs<'a>(
    infra: External<'a>,
    boot: External<'a>,
    machines: MachinePoolMachines<'a>,
    now: &'a Time,
) -> Inputs<'a> {
    Inputs {
        infra,
        infra_contract: Contract::V1Beta2,
        bootstrap: boot,
        machines,
        cluster_paused: false,
        now,
    }
}

fn summary(c: &Condition) -> (&str, &str, &str) {
    (c.status.as_str(), c.reason.as_str(), c.message.as_str())
}

/// A Machine as `kube::Api::<views::Machine>` lists it.
fn machine(name: &str, conditions: &[(&str, &str, &str, &str)]) -> Machine {
    let mut m = Machine::default();
    m.metadata.name = Some(name.into());
    m.metadata.creation_timestamp = Some(t(NOW - 3600));
    m.status.conditions = Some(
        conditions
            .iter()
            .map(|(ty, s, r, m)| new_condition(ty, s, r, m))
            .collect(),
    );
    m
}

#[test]
fn healthy_pool_without_machine_pool_machines() {
    let mut mp = corpus_pool();
    mp.status.replicas = Some(2);
    mp.status.initialization.infrastructure_provisioned = Some(true);
    mp.status.initialization.bootstrap_data_secret_created = Some(true);
    // What upstream's controller writes once both Nodes joined: status.versions from their
    // kubelets (`versionsFromNodeRefs`) and the Ready Nodes in the deprecated counter
    // (`getNodeReferences`).
    mp.status.versions = Some(vec![capi_machinepool_api::v1beta2::StatusVersion {
        version: "v1.37.0-rc.1".into(),
        replicas: 2,
    }]);
    mp.status.deprecated =
        serde_json::from_value(json!({"v1beta1": {"readyReplicas": 2}})).unwrap();
    let (i, b) = (
        infra(Some(true), Some(("True", "Ready", ""))),
        bootstrap(true),
    );
    let now = t(NOW);
    let inp = inputs(
        External::Found(&i),
        External::Found(&b),
        MachinePoolMachines::NotSupported,
        &now,
    );
    let all = machine_pool::conditions(&mp, &inp);
    let types: Vec<&str> = all.iter().map(|c| c.type_.as_str()).collect();
    assert_eq!(
        types,
        [
            "Available",
            "BootstrapConfigReady",
            "InfrastructureReady",
            "RollingOut",
            "Remediating",
            "ScalingDown",
            "ScalingUp",
            "MachinesReady",
            "MachinesUpToDate",
            "Paused",
            "Deleting"
        ]
    );
    let by = |ty: &str| all.iter().find(|c| c.type_ == ty).unwrap();
    assert_eq!(summary(by("Available")), ("True", "Available", ""));
    assert_eq!(summary(by("InfrastructureReady")), ("True", "Ready", ""));
    assert_eq!(summary(by("BootstrapConfigReady")), ("True", "Ready", ""));
    assert_eq!(summary(by("ScalingUp")), ("False", "NotScalingUp", ""));
    assert_eq!(summary(by("ScalingDown")), ("False", "NotScalingDown", ""));
    assert_eq!(summary(by("RollingOut")), ("False", "NotRollingOut", ""));
    assert_eq!(summary(by("Paused")), ("False", "NotPaused", ""));
    assert_eq!(summary(by("Deleting")), ("False", "NotDeleting", ""));
    // Replicas exist: never NoReplicas (docs/conditions.md, "Upgrade progress").
    assert_eq!(summary(by("MachinesReady")), ("True", "Ready", ""));
    assert_eq!(summary(by("MachinesUpToDate")), ("True", "UpToDate", ""));
    let counters = replica_counters(&mp, &inp);
    assert_eq!(
        (
            counters.ready_replicas,
            counters.available_replicas,
            counters.up_to_date_replicas
        ),
        (Some(2), Some(2), Some(2))
    );
}

#[test]
fn provisioning_pool_reports_why() {
    let mut mp = corpus_pool();
    mp.status.replicas = Some(0);
    let (i, b) = (infra(Some(false), None), bootstrap(false));
    let now = t(NOW);
    let inp = inputs(
        External::Found(&i),
        External::Found(&b),
        MachinePoolMachines::NotSupported,
        &now,
    );
    let infra_ready = machine_pool::infrastructure_ready(&mp, &inp);
    assert_eq!(
        summary(&infra_ready),
        (
            "False",
            "NotReady",
            "DockerMachinePool status.initialization.provisioned is false"
        )
    );
    assert_eq!(
        summary(&machine_pool::bootstrap_config_ready(&mp, &inp)),
        (
            "False",
            "WaitingForControlPlane",
            "Waiting for the control plane to be initialized"
        )
    );
    let counters = replica_counters(&mp, &inp);
    assert_eq!(
        summary(&machine_pool::available(&mp, &counters, &infra_ready)),
        (
            "False",
            "NotAvailable",
            "* InfrastructureReady: DockerMachinePool status.initialization.provisioned is false"
        )
    );
    assert_eq!(
        summary(&machine_pool::scaling_up(&mp, &inp)),
        ("True", "ScalingUp", "Scaling up from 0 to 2 replicas")
    );
}

#[test]
fn v1beta1_contract_provider_uses_status_ready_fallback() {
    let mp = corpus_pool();
    let i = dynamic(json!({"kind": "GCPMachinePool", "status": {"ready": true, "replicas": 2}}));
    let now = t(NOW);
    let mut inp = inputs(
        External::Found(&i),
        External::NotFound,
        MachinePoolMachines::NotSupported,
        &now,
    );
    inp.infra_contract = Contract::V1Beta1;
    assert_eq!(
        summary(&machine_pool::infrastructure_ready(&mp, &inp)),
        ("True", "Ready", "")
    );
    let wrong = dynamic(json!({"status": {"ready": "yes"}}));
    inp.infra = External::Found(&wrong);
    assert_eq!(
        machine_pool::infrastructure_ready(&mp, &inp).reason,
        "InvalidConditionReported"
    );
}

#[test]
fn missing_references() {
    let mut mp = corpus_pool();
    let now = t(NOW);
    let inp = inputs(
        External::NotFound,
        External::NotFound,
        MachinePoolMachines::NotSupported,
        &now,
    );
    assert_eq!(
        summary(&machine_pool::infrastructure_ready(&mp, &inp)),
        (
            "False",
            "InfrastructureDoesNotExist",
            "DockerMachinePool does not exist"
        )
    );
    assert_eq!(
        summary(&machine_pool::bootstrap_config_ready(&mp, &inp)),
        (
            "False",
            "BootstrapConfigDoesNotExist",
            "KubeadmConfig does not exist"
        )
    );
    assert_eq!(
        summary(&machine_pool::scaling_up(&mp, &inp)),
        (
            "True",
            "ScalingUp",
            "Scaling up from 0 to 2 replicas is blocked because KubeadmConfig and DockerMachinePool do not exist"
        )
    );
    mp.status.initialization.infrastructure_provisioned = Some(true);
    mp.status.replicas = Some(2);
    let inp = inputs(
        External::NotFound,
        External::ReadError,
        MachinePoolMachines::NotSupported,
        &now,
    );
    assert_eq!(
        summary(&machine_pool::infrastructure_ready(&mp, &inp)),
        (
            "False",
            "InfrastructureDeleted",
            "DockerMachinePool has been deleted while the MachinePool still exists"
        )
    );
    assert_eq!(
        summary(&machine_pool::bootstrap_config_ready(&mp, &inp)),
        (
            "Unknown",
            "InternalError",
            "Please check controller logs for errors"
        )
    );
    assert_eq!(
        summary(&machine_pool::scaling_up(&mp, &inp)),
        (
            "False",
            "NotScalingUp",
            "Scaling up would be blocked because DockerMachinePool does not exist"
        )
    );
}

#[test]
fn data_secret_name_only() {
    let mut mp = corpus_pool();
    mp.spec.template.spec.bootstrap.config_ref = Default::default();
    mp.spec.template.spec.bootstrap.data_secret_name = Some("s".into());
    let now = t(NOW);
    let inp = inputs(
        External::NotFound,
        External::NotFound,
        MachinePoolMachines::NotSupported,
        &now,
    );
    assert_eq!(
        summary(&machine_pool::bootstrap_config_ready(&mp, &inp)),
        ("True", "DataSecretProvided", "")
    );
}

#[test]
fn machine_pool_machines() {
    let mut mp = corpus_pool();
    mp.spec.replicas = Some(3);
    mp.status.replicas = Some(4);
    let mut deleting = machine(
        "mp-d",
        &[
            ("Ready", "True", "Ready", ""),
            (
                "UpToDate",
                "False",
                "NotUpToDate",
                "* Version v1.36.0, v1.37.0-rc.1 required",
            ),
        ],
    );
    deleting.metadata.deletion_timestamp = Some(t(NOW - 20 * 60));
    let machines = vec![
        machine(
            "mp-a",
            &[
                ("Ready", "True", "Ready", ""),
                ("Available", "True", "Available", ""),
                ("UpToDate", "True", "UpToDate", ""),
            ],
        ),
        machine(
            "mp-b",
            &[
                ("Ready", "False", "NotReady", "Node not ready"),
                (
                    "UpToDate",
                    "False",
                    "NotUpToDate",
                    "* Version v1.36.0, v1.37.0-rc.1 required",
                ),
                (
                    "HealthCheckSucceeded",
                    "False",
                    "UnhealthyNode",
                    "Node not ready for 5m",
                ),
                (
                    "OwnerRemediated",
                    "False",
                    "WaitingForRemediation",
                    "Waiting for remediation",
                ),
            ],
        ),
        machine(
            "mp-c",
            &[
                ("Ready", "False", "NotReady", "Node not ready"),
                ("UpToDate", "True", "UpToDate", ""),
            ],
        ),
        deleting,
    ];
    let (i, b) = (
        infra(Some(true), Some(("True", "Ready", ""))),
        bootstrap(true),
    );
    let now = t(NOW);
    let inp = inputs(
        External::Found(&i),
        External::Found(&b),
        MachinePoolMachines::Supported(&machines),
        &now,
    );
    let counters = replica_counters(&mp, &inp);
    assert_eq!(
        (
            counters.ready_replicas,
            counters.available_replicas,
            counters.up_to_date_replicas
        ),
        (Some(2), Some(1), Some(2))
    );
    assert_eq!(
        summary(&machine_pool::machines_ready(&mp, &inp)),
        ("False", "NotReady", "* Machines mp-b, mp-c: Node not ready")
    );
    assert_eq!(
        summary(&machine_pool::machines_up_to_date(&mp, &inp)),
        (
            "False",
            "NotUpToDate",
            "* Machines mp-b, mp-d:\n  * Version v1.36.0, v1.37.0-rc.1 required"
        )
    );
    assert_eq!(
        summary(&machine_pool::rolling_out(&mp, &inp)),
        (
            "True",
            "RollingOut",
            "Rolling out 2 not up-to-date replicas\n* Version v1.36.0, v1.37.0-rc.1 required"
        )
    );
    assert_eq!(
        summary(&machine_pool::remediating(&mp, &inp)),
        (
            "True",
            "Remediating",
            "* Machine mp-b: Waiting for remediation"
        )
    );
    assert_eq!(
        summary(&machine_pool::scaling_down(&mp, &inp)),
        (
            "True",
            "ScalingDown",
            "Scaling down from 4 to 3 replicas\n* Machine mp-d is in deletion since more than 15m"
        )
    );
    let infra_ready = machine_pool::infrastructure_ready(&mp, &inp);
    assert_eq!(
        summary(&machine_pool::available(&mp, &counters, &infra_ready)),
        (
            "False",
            "NotAvailable",
            "1 available replicas, at least 3 required"
        )
    );
}

#[test]
fn unhealthy_machines_not_to_be_remediated() {
    let mp = corpus_pool();
    let machines = vec![
        machine("m1", &[("HealthCheckSucceeded", "False", "X", "")]),
        machine("m2", &[("HealthCheckSucceeded", "False", "X", "")]),
    ];
    let now = t(NOW);
    let inp = inputs(
        External::NotFound,
        External::NotFound,
        MachinePoolMachines::Supported(&machines),
        &now,
    );
    assert_eq!(
        summary(&machine_pool::remediating(&mp, &inp)),
        (
            "False",
            "NotRemediating",
            "Machines m1, m2 are not healthy (not to be remediated by MachinePool)"
        )
    );
    let empty: Vec<Machine> = vec![];
    let inp = inputs(
        External::NotFound,
        External::NotFound,
        MachinePoolMachines::Supported(&empty),
        &now,
    );
    assert_eq!(
        summary(&machine_pool::machines_ready(&mp, &inp)),
        ("True", "NoReplicas", "")
    );
    assert_eq!(replica_counters(&mp, &inp).ready_replicas, Some(0));
}

#[test]
fn rollout_without_machine_pool_machines_from_status_versions() {
    let mut mp = corpus_pool();
    mp.status.versions = Some(vec![
        capi_machinepool_api::v1beta2::StatusVersion {
            version: "v1.36.2".into(),
            replicas: 1,
        },
        capi_machinepool_api::v1beta2::StatusVersion {
            version: "v1.37.0-rc.1".into(),
            replicas: 1,
        },
    ]);
    let now = t(NOW);
    let inp = inputs(
        External::NotFound,
        External::NotFound,
        MachinePoolMachines::NotSupported,
        &now,
    );
    assert_eq!(
        summary(&machine_pool::rolling_out(&mp, &inp)),
        (
            "True",
            "RollingOut",
            "Rolling out 1 not up-to-date replicas\n* Version v1.37.0-rc.1 required"
        )
    );
}

#[test]
fn deleting_and_paused() {
    let mut mp = corpus_pool();
    mp.metadata.deletion_timestamp = Some(t(NOW - 10));
    mp.metadata.annotations = Some([("cluster.x-k8s.io/paused".to_owned(), String::new())].into());
    mp.status.replicas = Some(2);
    let i = infra(Some(true), None);
    let now = t(NOW);
    let mut inp = inputs(
        External::Found(&i),
        External::NotFound,
        MachinePoolMachines::NotSupported,
        &now,
    );
    inp.cluster_paused = true;
    assert_eq!(
        summary(&machine_pool::deleting_condition(&mp, &inp)),
        (
            "True",
            "Deleting",
            "Waiting for DockerMachinePool to be deleted"
        )
    );
    assert_eq!(
        summary(&machine_pool::paused(&mp, &inp)),
        (
            "True",
            "Paused",
            "Cluster spec.paused is set to true, MachinePool has the cluster.x-k8s.io/paused annotation"
        )
    );
    assert_eq!(
        summary(&machine_pool::scaling_down(&mp, &inp)),
        ("True", "ScalingDown", "Scaling down from 2 to 0 replicas")
    );
    let counters = replica_counters(&mp, &inp);
    let infra_ready = machine_pool::infrastructure_ready(&mp, &inp);
    assert_eq!(
        summary(&machine_pool::available(&mp, &counters, &infra_ready)),
        ("False", "NotAvailable", "Deletion in progress")
    );
    let inp = inputs(
        External::NotFound,
        External::NotFound,
        MachinePoolMachines::NotSupported,
        &now,
    );
    assert_eq!(
        machine_pool::deleting_condition(&mp, &inp).message,
        "Deletion completed"
    );
}

#[test]
fn unset_replicas_wait() {
    let mut mp = corpus_pool();
    mp.spec.replicas = None;
    let now = t(NOW);
    let inp = inputs(
        External::NotFound,
        External::NotFound,
        MachinePoolMachines::NotSupported,
        &now,
    );
    for c in [
        machine_pool::scaling_up(&mp, &inp),
        machine_pool::scaling_down(&mp, &inp),
    ] {
        assert_eq!(
            summary(&c),
            (
                "Unknown",
                "WaitingForReplicasSet",
                "Waiting for spec.replicas set"
            )
        );
    }
}

#[test]
fn apply_sets_conditions_and_counters_once() {
    let mut mp = corpus_pool();
    mp.metadata.generation = Some(4);
    mp.status.replicas = Some(2);
    // No copy of the pool: the inputs hold only what was read besides it.
    let (i, b) = (
        infra(Some(true), Some(("True", "Ready", ""))),
        bootstrap(true),
    );
    let now = t(NOW);
    let inp = inputs(
        External::Found(&i),
        External::Found(&b),
        MachinePoolMachines::NotSupported,
        &now,
    );
    assert!(machine_pool::apply(&mut mp, &inp));
    assert_eq!(mp.status.conditions.as_ref().map(Vec::len), Some(11));
    assert!(
        mp.status
            .conditions
            .iter()
            .flatten()
            .all(|c| c.observed_generation == Some(4))
    );
    assert_eq!(get(&mp, "Available").unwrap().last_transition_time, now);
    let later = t(NOW + 60);
    let inp = inputs(
        External::Found(&i),
        External::Found(&b),
        MachinePoolMachines::NotSupported,
        &later,
    );
    assert!(!machine_pool::apply(&mut mp, &inp), "nothing changed");
    assert_eq!(
        get(&mp, "Available").unwrap().last_transition_time,
        now,
        "transition time kept"
    );
    // The result serializes and passes the CRD's condition validation.
    let errs = capi_conditions::validate::validate_conditions(
        mp.status.conditions.as_deref().unwrap_or_default(),
        "status.conditions",
    );
    assert!(errs.is_empty(), "{errs:?}");
}
