//! Issue 30: verdicts that must hold on providers no one here has seen, on real CRDs of
//! `tests/fixtures/providers/` (CAPD at Cluster API v1.11.0, rendered with kubectl kustomize;
//! see its SOURCE.txt) and objects shaped as CAPD's controllers write them. Each test quotes
//! the contract sentence (infra-machinepool.md at Cluster API ae7ff047) it enforces.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_contract::Contract;
use capi_contract_check::{CheckOptions, Checker, Finding, Outcome, Report};
use capi_test_support::yaml_docs;
use serde_json::{Value, json};

const CAPD: &str = "providers/capd-v1.11.0/crds.yaml";

fn check(crds: &[Value], objects: &[Value]) -> Report {
    let mut checker = Checker::new(CheckOptions::default());
    for crd in crds {
        checker.add_crd(&crd.clone().into());
    }
    for o in objects {
        checker.add_object(o, None);
    }
    checker.finish()
}

fn of_rule<'a>(report: &'a Report, rule: &str) -> Vec<&'a Finding> {
    report.findings_of(rule)
}

/// A DockerMachinePool as CAPD's controller leaves it (v1beta2, labelled and owned as core's
/// `reconcileExternal` sets them), with `status.infrastructureMachineKind` when `kind` is given.
fn pool(kind: Option<&str>) -> Value {
    let mut p = json!({
        "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2",
        "kind": "DockerMachinePool",
        "metadata": {"name": "mp-0", "namespace": "default",
            "labels": {"cluster.x-k8s.io/cluster-name": "c1"},
            "ownerReferences": [{"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
                "name": "mp-0", "uid": "u1", "controller": true}]},
        "spec": {"providerIDList": ["docker:////c1-mp-0-a"]},
        "status": {"ready": true, "replicas": 1}
    });
    if let Some(kind) = kind {
        p["status"]["infrastructureMachineKind"] = json!(kind);
    }
    p
}

/// A DockerMachine of that pool, owned by it, with the selector labels core looks for.
fn machine(api_version: &str) -> Value {
    json!({
        "apiVersion": api_version,
        "kind": "DockerMachine",
        "metadata": {"name": "c1-mp-0-a", "namespace": "default",
            "labels": {"cluster.x-k8s.io/cluster-name": "c1", "cluster.x-k8s.io/pool-name": "mp-0"},
            "ownerReferences": [{"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2",
                "kind": "DockerMachinePool", "name": "mp-0", "uid": "u2"}]},
        "spec": {"providerID": "docker:////c1-mp-0-a"}
    })
}

/// "If you want to adopt MPM then you MUST have an `status.infrastructureMachineKind` field and
/// the fields value must be set to the resource kind that represents the replicas in the pool"
/// (line 251): with DockerMachine it passes; naming the pool's own kind fails.
#[test]
fn infrastructure_machine_kind_must_name_an_infra_machine() {
    let crds = yaml_docs(CAPD);
    let good = check(
        &crds,
        &[
            pool(Some("DockerMachine")),
            machine("infrastructure.cluster.x-k8s.io/v1beta2"),
        ],
    );
    let f = of_rule(&good, "machine-pool-machine-crd");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].outcome, Outcome::Pass, "{}", f[0].message);
    let own = check(&crds, &[pool(Some("DockerMachinePool"))]);
    let f = of_rule(&own, "machine-pool-machine-crd");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].outcome, Outcome::Fail);
    assert!(
        f[0].message.contains("an InfraMachinePool kind"),
        "{}",
        f[0].message
    );
    assert!(
        own.capabilities[0]
            .machine_pool_machines
            .to_string()
            .starts_with("no (")
    );
}

/// The InfraMachine the kind names must be one: upstream's Machine controller matches it to a
/// Node by `spec.providerID` and waits for its provisioned/ready status. A CRD without
/// `spec.providerID` (the DockerMachine CRD with that field removed) fails.
#[test]
fn the_named_kind_needs_provider_id_and_provisioned_status() {
    let mut crds = yaml_docs(CAPD);
    for crd in crds
        .iter_mut()
        .filter(|c| c["spec"]["names"]["kind"] == "DockerMachine")
    {
        for v in crd["spec"]["versions"].as_array_mut().unwrap() {
            let spec = &mut v["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"];
            assert!(spec.as_object_mut().unwrap().remove("providerID").is_some());
            let status = &mut v["schema"]["openAPIV3Schema"]["properties"]["status"]["properties"];
            status.as_object_mut().unwrap().remove("ready");
            status.as_object_mut().unwrap().remove("initialization");
        }
    }
    let r = check(&crds, &[pool(Some("DockerMachine"))]);
    let f = of_rule(&r, "machine-pool-machine-crd");
    assert_eq!(f[0].outcome, Outcome::Fail);
    assert!(
        f[0].message.contains("no spec.providerID"),
        "{}",
        f[0].message
    );
    assert!(
        f[0].message
            .contains("neither status.initialization.provisioned nor status.ready"),
        "{}",
        f[0].message
    );
}

/// "By opting in, the infra provider is expected to create a InfraMachine for every replica in
/// the pool" (line 253): a pool that owns DockerMachines but never sets the kind has opted out,
/// so core never creates Machines for them; that is a finding, not "skipped".
#[test]
fn a_pool_owning_infra_machines_without_the_kind_is_told() {
    let r = check(
        &yaml_docs(CAPD),
        &[
            pool(None),
            machine("infrastructure.cluster.x-k8s.io/v1beta2"),
        ],
    );
    let f = of_rule(&r, "machine-pool-machine-crd");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].outcome, Outcome::Fail);
    assert!(
        f[0].message
            .contains("Cluster API will never create Machines"),
        "{}",
        f[0].message
    );
    assert!(f[0].fix.contains("DockerMachine"), "{}", f[0].fix);
}

/// Core lists InfraMachines by the `cluster.x-k8s.io/pool-name` label (upstream
/// `reconcileMachines`); without the pool's owner reference the expected value cannot be
/// computed, but a machine with no such label at all is never found.
#[test]
fn an_infra_machine_without_pool_name_label_is_flagged_without_a_selector() {
    let mut p = pool(Some("DockerMachine"));
    p["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("ownerReferences");
    let mut m = machine("infrastructure.cluster.x-k8s.io/v1beta2");
    m["metadata"]["labels"]
        .as_object_mut()
        .unwrap()
        .remove("cluster.x-k8s.io/pool-name");
    let r = check(&yaml_docs(CAPD), &[p.clone(), m]);
    let f = of_rule(&r, "machine-pool-machine-labels");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].outcome, Outcome::Fail, "{}", f[0].message);
    // With the label (value not checkable) it stays INFO.
    let r = check(
        &yaml_docs(CAPD),
        &[p, machine("infrastructure.cluster.x-k8s.io/v1beta2")],
    );
    assert_eq!(
        of_rule(&r, "machine-pool-machine-labels")[0].outcome,
        Outcome::Info
    );
}

/// Each InfraMachine is judged by the contract of its own API version: a DockerMachine at
/// v1beta1 (listed by the CRD's `cluster.x-k8s.io/v1beta1: v1beta1` label) under a v1beta2
/// pool.
#[test]
fn each_infra_machine_has_its_own_contract() {
    let crds = yaml_docs(CAPD);
    let r = check(
        &crds,
        &[
            pool(Some("DockerMachine")),
            machine("infrastructure.cluster.x-k8s.io/v1beta1"),
        ],
    );
    let f = of_rule(&r, "machine-pool-machine-owner");
    assert_eq!(f.len(), 1);
    assert_eq!(
        f[0].contract,
        Contract::V1Beta1,
        "the machine's own version's label"
    );
    let pool_findings = of_rule(&r, "machine-pool-machine-crd");
    assert_eq!(pool_findings[0].contract, Contract::V1Beta2, "the pool's");
    let r = check(
        &crds,
        &[
            pool(Some("DockerMachine")),
            machine("infrastructure.cluster.x-k8s.io/v1beta2"),
        ],
    );
    assert_eq!(
        of_rule(&r, "machine-pool-machine-owner")[0].contract,
        Contract::V1Beta2
    );
}

/// A capability annotation this tool reads must be "true" or "false"; "yes" is a finding
/// instead of a silent "unknown".
#[test]
fn a_capability_annotation_other_than_true_or_false_is_a_finding() {
    let mut crds = yaml_docs(CAPD);
    crds[0]["metadata"]["annotations"] = json!({
        capi_contract_check::capabilities::DECLARE_REMEDIATION: "yes",
        capi_contract_check::capabilities::DECLARE_MACHINE_DELETION: "true"});
    let r = check(&crds, &[]);
    let f: Vec<_> = of_rule(&r, "capability-annotation")
        .iter()
        .map(|f| (f.outcome, f.message.contains("\"yes\"")))
        .collect();
    assert_eq!(f.len(), 2, "{f:?}");
    assert!(f.contains(&(Outcome::Warn, true)), "{f:?}");
    assert!(f.contains(&(Outcome::Pass, false)), "{f:?}");
}

/// "Replicas int32 `json:\"replicas\"`" (line 407, the contract's example): a number, never
/// null; `nullable: true` is flagged.
#[test]
fn a_nullable_status_replicas_is_flagged() {
    let mut crds = yaml_docs(CAPD);
    for v in crds[0]["spec"]["versions"].as_array_mut().unwrap() {
        v["schema"]["openAPIV3Schema"]["properties"]["status"]["properties"]["replicas"]["nullable"] =
            json!(true);
    }
    let r = check(&crds, &[]);
    let f = of_rule(&r, "replicas");
    assert!(!f.is_empty());
    assert!(
        f.iter()
            .all(|f| f.outcome == Outcome::Warn && f.message.contains("nullable"))
    );
}

/// The quick-start ClusterClass of CAPD v1.11.0 ships without a namespace (objects.yaml of the
/// fixture); `kubectl apply` creates it in `default`, so a Cluster in `default` using it has
/// its topology checked, and the capability report agrees with the ClusterClass check.
#[test]
fn a_namespace_less_cluster_class_is_in_default() {
    let mut objects = yaml_docs("providers/capd-v1.11.0/objects.yaml");
    let class = objects
        .iter()
        .find(|o| o["kind"] == "ClusterClass")
        .unwrap();
    assert!(
        class["metadata"]["namespace"].is_null(),
        "shipped without a namespace"
    );
    let pool_class = class["spec"]["workers"]["machinePools"][0]["class"].clone();
    objects.push(json!({
        "apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
        "metadata": {"name": "c1", "namespace": "default"},
        "spec": {"topology": {"classRef": {"name": "quick-start"}, "version": "v1.33.0",
            "workers": {"machinePools": [{"name": "mp-0", "class": pool_class}]}}}
    }));
    let r = check(&yaml_docs(CAPD), &objects);
    let f = of_rule(&r, "cluster-topology-machine-pool-class");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].outcome, Outcome::Pass, "{}", f[0].message);
    let cc = of_rule(&r, "clusterclass-infrastructure-template");
    assert!(cc.iter().all(|f| f.outcome == Outcome::Pass));
    assert!(
        r.capabilities[0]
            .cluster_class
            .to_string()
            .starts_with("yes")
    );
}

/// A ClusterClass naming `GardenerWorkerPoolTemplate` as a MachinePoolClass's infrastructure
/// is evidence that `GardenerWorkerPool` is an InfraMachinePool (the template naming
/// convention, "The template resource MUST be name `<InfraMachinePool>Template`", line 440),
/// even with the CRD's contract label removed; the pool is then checked and its real MUST
/// failure ("Provider implementers MUST implement `status.replicas`", line 401) shows.
#[test]
fn a_cluster_class_naming_a_template_is_evidence_for_its_pool() {
    let mut crds = yaml_docs("providers/gardener-v0.2.0/crds.yaml");
    crds[0]["metadata"]["labels"]
        .as_object_mut()
        .unwrap()
        .retain(|k, _| !k.starts_with("cluster.x-k8s.io/"));
    let alone = check(&crds, &[]);
    assert_eq!(
        of_rule(&alone, "inframachinepool-crd")[0].outcome,
        Outcome::Fail
    );
    let class = json!({
        "apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "ClusterClass",
        "metadata": {"name": "gardener", "namespace": "default"},
        "spec": {"workers": {"machinePools": [{"class": "default",
            "bootstrap": {"templateRef": {"apiVersion": "bootstrap.cluster.x-k8s.io/v1beta2", "kind": "KubeadmConfigTemplate", "name": "b"}},
            "infrastructure": {"templateRef": {"apiVersion": "infrastructure.cluster.x-k8s.io/v1alpha1", "kind": "GardenerWorkerPoolTemplate", "name": "t"}}}]}}
    });
    let r = check(&crds, &[class]);
    assert!(of_rule(&r, "inframachinepool-crd").is_empty());
    assert!(
        of_rule(&r, "replicas")
            .iter()
            .any(|f| f.outcome == Outcome::Fail && f.message.contains("missing"))
    );
    assert_eq!(r.capabilities.len(), 1);
    assert_eq!(r.capabilities[0].kind, "GardenerWorkerPool");
}

/// infra-machine.md at ae7ff047: "Each InfraMachine MUST report when Machine's infrastructure
/// is fully provisioned (initialization) by setting `status.initialization.provisioned`", with
/// `status.ready` accepted under the v1beta1 contract. CAPZ v1.3.2's AzureMachinePoolMachine
/// (v1beta1, `status.ready`) passes; without any status it fails.
#[test]
fn a_machine_pool_machine_crd_needs_a_provisioned_status() {
    let crds = yaml_docs("providers/capz-v1.3.2/crds.yaml");
    let machine_crd = |crds: &[Value]| {
        crds.iter()
            .find(|c| c["spec"]["names"]["kind"] == "AzureMachinePoolMachine")
            .unwrap()
            .clone()
    };
    let status_findings = |r: &Report| -> Vec<Outcome> {
        of_rule(r, "machine-pool-machine-crd")
            .iter()
            .filter(|f| f.path.ends_with("properties.status"))
            .map(|f| f.outcome)
            .collect()
    };
    let r = check(&[machine_crd(&crds)], &[]);
    assert_eq!(status_findings(&r), [Outcome::Pass]);
    let mut bare = machine_crd(&crds);
    for v in bare["spec"]["versions"].as_array_mut().unwrap() {
        v["schema"]["openAPIV3Schema"]["properties"]
            .as_object_mut()
            .unwrap()
            .remove("status");
    }
    let r = check(&[bare], &[]);
    assert_eq!(status_findings(&r), [Outcome::Fail]);
}
