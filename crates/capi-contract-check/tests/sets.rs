//! CRDs and objects judged together, on cluster-api-provider-azure's real `config/crd` tree
//! and objects written as CAPZ's controllers write them (`tests/fixtures/capz-sets`, see its
//! SOURCE.md): MachinePool Machines (upstream `core/reconcilers/machinepool/
//! machinepool_controller_phases.go`, `reconcileMachines`), ClusterClass MachinePoolClasses
//! (`api/core/v1beta2/clusterclass_types.go`), Cluster topologies and the capability report.
//! Each mutation breaks one rule and is flagged by it.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_contract::Contract;
use capi_contract_check::capabilities::{
    Behaviour, ClusterClassSupport, ContractSupport, MachinePoolMachines,
};
use capi_contract_check::{CheckOptions, Checker, Finding, Outcome, Report};
use capi_manifests::{Limits, load::load};
use capi_test_support::{fixture, yaml_docs};
use serde_json::{Value, json};

const CAPZ: &str = "provider-trees/capz/config/crd";
/// The MachinePool's name (70 characters) is not a label value: upstream's
/// `format.MustFormatValue` hashes it. Computed outside this crate (SOURCE.md).
const HASHED_POOL_NAME: &str = "hash_-aIfEg_z";

fn objects() -> Vec<Value> {
    let mut v = yaml_docs("capz-sets/machinepool-machines.yaml");
    v.extend(yaml_docs("capz-sets/aks-clusterclass.yaml"));
    v
}

/// Checks the CAPZ tree (without the CRDs `drop` names) and `objects`.
fn check_with(drop: &[&str], objects: &[Value]) -> Report {
    static TREE: std::sync::OnceLock<capi_manifests::load::Loaded> = std::sync::OnceLock::new();
    let loaded = TREE
        .get_or_init(|| load(&[fixture(CAPZ)], Limits::default()).unwrap())
        .clone();
    let mut checker = Checker::new(CheckOptions::default());
    checker.add_notes(&loaded.notes);
    checker.add_documents(
        loaded
            .documents
            .into_iter()
            .filter(|d| !drop.iter().any(|k| d.value["spec"]["names"]["kind"] == *k))
            .collect(),
    );
    for o in objects {
        checker.add_object(o, None);
    }
    checker.finish()
}

fn of_rule<'a>(report: &'a Report, rule: &str) -> Vec<&'a Finding> {
    report.findings_of(rule)
}

fn by_name<'a>(objects: &'a mut [Value], kind: &str, name: &str) -> &'a mut Value {
    objects
        .iter_mut()
        .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
        .unwrap()
}

/// Findings of `rule` with `outcome`.
fn with_outcome<'a>(report: &'a Report, rule: &str, outcome: Outcome) -> Vec<&'a Finding> {
    of_rule(report, rule)
        .into_iter()
        .filter(|f| f.outcome == outcome)
        .collect()
}

/// Findings of `rule` about objects (not CRDs).
fn on_objects<'a>(report: &'a Report, rule: &str) -> Vec<&'a Finding> {
    of_rule(report, rule)
        .into_iter()
        .filter(|f| matches!(f.subject.target, capi_contract_check::Target::Object { .. }))
        .collect()
}

#[test]
fn correctly_labelled_infra_machines_pass() {
    let r = check_with(&[], &objects());
    assert!(r.passes(), "{r}");
    for rule in [
        "machine-pool-machine-crd",
        "machine-pool-machine-labels",
        "machine-pool-machine-owner",
        "machine-pool-machine-provider-id",
        "clusterclass-infrastructure-template",
        "clusterclass-bootstrap-template",
        "cluster-topology-machine-pool-class",
    ] {
        let findings = of_rule(&r, rule);
        assert!(!findings.is_empty(), "{rule} not checked");
        assert!(
            findings.iter().all(|f| f.outcome == Outcome::Pass),
            "{rule}: {findings:?}"
        );
    }
    // Two InfraMachines: labels checked on each, with the hashed pool name.
    let labels = of_rule(&r, "machine-pool-machine-labels");
    assert_eq!(labels.len(), 2);
    assert!(
        labels[0].message.contains(HASHED_POOL_NAME),
        "{}",
        labels[0].message
    );
}

#[test]
fn an_infra_machine_without_the_formatted_pool_name_is_flagged_with_the_expected_value() {
    for label in [
        None,
        Some("prod-eastus2-workers-general-purpose-standard-d4s-v5-spot-instances-01"),
    ] {
        let mut objs = objects();
        let machine = by_name(&mut objs, "AzureMachinePoolMachine", "prod-workers-d4s-1");
        let labels = machine["metadata"]["labels"].as_object_mut().unwrap();
        match label {
            None => labels.remove("cluster.x-k8s.io/pool-name"),
            // The raw name (what a selector without formatting expects) is wrong too.
            Some(raw) => labels.insert("cluster.x-k8s.io/pool-name".into(), json!(raw)),
        };
        let r = check_with(&[], &objs);
        let failed: Vec<_> = with_outcome(&r, "machine-pool-machine-labels", Outcome::Fail);
        assert_eq!(failed.len(), 1, "{r}");
        let f = failed[0];
        assert_eq!(
            f.subject.to_string(),
            "AzureMachinePoolMachine default/prod-workers-d4s-1"
        );
        assert!(
            f.message
                .contains(&format!("expected \"{HASHED_POOL_NAME}\"")),
            "{}",
            f.message
        );
        assert!(
            f.message.contains("Cluster API will never see"),
            "{}",
            f.message
        );
        assert!(
            f.fix
                .contains(&format!("cluster.x-k8s.io/pool-name={HASHED_POOL_NAME}"))
        );
    }
}

#[test]
fn a_missing_infra_machine_crd_is_flagged() {
    let r = check_with(&["AzureMachinePoolMachine"], &objects());
    let f = on_objects(&r, "machine-pool-machine-crd");
    assert_eq!(f.len(), 1, "{r}");
    assert_eq!(f[0].outcome, Outcome::Fail);
    assert!(
        f[0].message.contains(
            "no CRD of kind AzureMachinePoolMachine in group infrastructure.cluster.x-k8s.io"
        ),
        "{}",
        f[0].message
    );
}

#[test]
fn an_infra_machine_crd_not_serving_the_pools_version_is_flagged() {
    let mut objs = objects();
    // The pool at a version the AzureMachinePoolMachine CRD does not serve: the list call
    // `AzureMachinePoolMachineList` is made at the pool's apiVersion.
    by_name(&mut objs, "AzureMachinePool", "prod-workers-d4s")["apiVersion"] =
        json!("infrastructure.cluster.x-k8s.io/v1beta2");
    let r = check_with(&[], &objs);
    let f = on_objects(&r, "machine-pool-machine-crd");
    assert_eq!(f[0].outcome, Outcome::Fail, "{r}");
    assert!(
        f[0].message.contains("does not serve v1beta2"),
        "{}",
        f[0].message
    );
}

#[test]
fn owner_and_provider_id_mutations_warn() {
    let mut objs = objects();
    let m = by_name(&mut objs, "AzureMachinePoolMachine", "prod-workers-d4s-0");
    m["metadata"]["ownerReferences"] = json!([]);
    m["spec"]["providerID"] = json!("azure:///elsewhere/virtualMachines/9");
    let r = check_with(&[], &objs);
    assert!(r.passes());
    for rule in [
        "machine-pool-machine-owner",
        "machine-pool-machine-provider-id",
    ] {
        let warned: Vec<_> = with_outcome(&r, rule, Outcome::Warn);
        assert_eq!(warned.len(), 1, "{rule}: {r}");
        assert_eq!(
            warned[0].subject.to_string(),
            "AzureMachinePoolMachine default/prod-workers-d4s-0"
        );
    }
}

#[test]
fn an_owned_infra_machine_of_another_cluster_label_is_not_selectable() {
    let mut objs = objects();
    by_name(&mut objs, "AzureMachinePoolMachine", "prod-workers-d4s-0")["metadata"]["labels"]["cluster.x-k8s.io/cluster-name"] =
        json!("staging");
    let r = check_with(&[], &objs);
    let f: Vec<_> = with_outcome(&r, "machine-pool-machine-labels", Outcome::Fail);
    assert_eq!(f.len(), 1);
    assert!(
        f[0].message
            .contains("cluster.x-k8s.io/cluster-name is \"staging\", expected \"prod\""),
        "{}",
        f[0].message
    );
}

#[test]
fn a_cluster_class_naming_a_template_kind_the_provider_lacks_is_flagged() {
    let mut objs = objects();
    let class = by_name(&mut objs, "ClusterClass", "aks-class");
    // CAPZ has no AzureMachinePoolTemplate (AzureMachinePool cannot be used in a ClusterClass).
    class["spec"]["workers"]["machinePools"][1]["template"]["infrastructure"]["ref"]["kind"] =
        json!("AzureMachinePoolTemplate");
    let r = check_with(&[], &objs);
    let failed: Vec<_> = with_outcome(&r, "clusterclass-infrastructure-template", Outcome::Fail);
    assert_eq!(failed.len(), 1, "{r}");
    assert_eq!(
        failed[0].path,
        "spec.workers.machinePools[1].template.infrastructure.ref"
    );
    assert!(
        failed[0].message.contains("names AzureMachinePoolTemplate"),
        "{}",
        failed[0].message
    );
    assert!(
        failed[0]
            .message
            .contains("the provider does not define it")
    );
}

#[test]
fn a_v1beta2_cluster_class_without_bootstrap_is_flagged_and_the_rule_is_isolated() {
    let class = json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "ClusterClass",
        "metadata": {"name": "managed", "namespace": "default"},
        "spec": {"workers": {"machinePools": [{"class": "aks",
            "infrastructure": {"templateRef": {"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
                "kind": "AzureManagedMachinePoolTemplate", "name": "aks-1-pool0"}}}]}}});
    let r = check_with(&[], &[class]);
    let f = of_rule(&r, "clusterclass-bootstrap-template");
    assert_eq!(f.len(), 1);
    assert_eq!(
        f[0].outcome,
        if capi_contract_check::clusterclass::BOOTSTRAP_TEMPLATE_REQUIRED {
            Outcome::Fail
        } else {
            Outcome::Info
        }
    );
    assert_eq!(
        f[0].path,
        "spec.workers.machinePools[0].bootstrap.templateRef"
    );
    assert!(f[0].message.contains("cluster-api#10943"));
    assert!(f[0].fix.contains("dataSecretName: \"\""));
    assert_eq!(
        of_rule(&r, "clusterclass-infrastructure-template")[0].outcome,
        Outcome::Pass
    );
}

#[test]
fn a_cluster_topology_naming_an_unknown_class_is_flagged() {
    let mut objs = objects();
    by_name(&mut objs, "Cluster", "aks-1")["spec"]["topology"]["workers"]["machinePools"][1]["class"] =
        json!("gpu-worker");
    let r = check_with(&[], &objs);
    let failed: Vec<_> = with_outcome(&r, "cluster-topology-machine-pool-class", Outcome::Fail);
    assert_eq!(failed.len(), 1);
    assert_eq!(
        failed[0].path,
        "spec.topology.workers.machinePools[1].class"
    );
    assert!(
        failed[0]
            .message
            .contains("[\"default-system\", \"default-worker\"]"),
        "{}",
        failed[0].message
    );
}

#[test]
fn template_fields_the_pool_lacks_are_named() {
    // Real CAPZ: AzureASOManagedMachinePoolTemplate's template is typed
    // AzureASOManagedControlPlaneResource, whose `version` AzureASOManagedMachinePool lacks.
    let r = check_with(&[], &[]);
    let warned: Vec<_> = with_outcome(&r, "template-schema-compatible", Outcome::Warn);
    assert!(!warned.is_empty());
    for f in warned {
        assert!(
            f.subject
                .to_string()
                .starts_with("azureasomanagedmachinepooltemplates")
        );
        assert!(
            f.message.starts_with(
                "spec.template.spec.version has no counterpart in AzureASOManagedMachinePool spec"
            ),
            "{}",
            f.message
        );
        // The finding names the schema node of the template's version (issue 33).
        assert!(
            f.path.starts_with("spec.versions[")
                && f.path.ends_with(
                    ".properties.spec.properties.template.properties.spec.properties.version"
                ),
            "{}",
            f.path
        );
    }
}

#[test]
fn objects_are_judged_against_the_contract_their_crd_labels_map() {
    // CAPZ labels AzureMachinePool v1beta1 for the v1beta1 contract only: its legacy
    // conditions (no reason) are well formed there, not under v1beta2.
    let r = check_with(&[], &objects());
    let f = of_rule(&r, "conditions-values");
    assert_eq!(f.len(), 1);
    assert_eq!(
        (f[0].outcome, f[0].contract.as_str()),
        (Outcome::Pass, "v1beta1")
    );
    // Under v1beta1, status.ready decides provisioning: `initialization.provisioned` is not
    // read (upstream's contract page, "InfraMachinePool: initialization completed").
    let mut objs = objects();
    let pool = by_name(&mut objs, "AzureMachinePool", "prod-workers-d4s");
    pool["status"]["ready"] = json!(false);
    pool["status"]["initialization"] = json!({"provisioned": true});
    pool["status"]["replicas"] = json!(5);
    let r = check_with(&[], &objs);
    assert!(
        of_rule(&r, "replicas-consistency").is_empty(),
        "not provisioned under v1beta1"
    );
}

#[test]
fn the_capability_report_shows_capz_kinds() {
    let r = check_with(&[], &objects());
    let rows: Vec<_> = r
        .capabilities
        .iter()
        .map(|c| {
            (
                c.kind.as_str(),
                &c.contract,
                &c.machine_pool_machines,
                &c.cluster_class,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (
                "AzureMachinePool",
                &ContractSupport::DeprecatedOnly(Contract::V1Beta1),
                &MachinePoolMachines::Supported {
                    kind: Some("AzureMachinePoolMachine".into()),
                    known_from: Some("objects")
                },
                &ClusterClassSupport::NoTemplate {
                    template: "AzureMachinePoolTemplate".into()
                }
            ),
            (
                "AzureManagedMachinePool",
                &ContractSupport::DeprecatedOnly(Contract::V1Beta1),
                &MachinePoolMachines::NotSupported,
                &ClusterClassSupport::Supported {
                    template: "AzureManagedMachinePoolTemplate".into()
                }
            ),
            (
                "AzureASOManagedMachinePool",
                &ContractSupport::DeprecatedOnly(Contract::V1Beta1),
                &MachinePoolMachines::NotSupported,
                &ClusterClassSupport::Supported {
                    template: "AzureASOManagedMachinePoolTemplate".into()
                }
            ),
        ]
    );
    let azure = &r.capabilities[0];
    assert!(matches!(azure.machine_deletion, Behaviour::Unknown { .. }));
    assert!(matches!(azure.remediation, Behaviour::Unknown { .. }));
    assert_eq!(r.capabilities[1].machine_deletion, Behaviour::NotApplicable);
    // Without objects the InfraMachine kind is inferred from the CRD name.
    let crds_only = check_with(&[], &[]);
    assert_eq!(
        crds_only.capabilities[0].machine_pool_machines,
        MachinePoolMachines::Supported {
            kind: Some("AzureMachinePoolMachine".into()),
            known_from: Some("crd-name")
        }
    );
}

#[test]
fn a_provider_declares_what_cannot_be_seen_statically() {
    use capi_contract_check::capabilities::{DECLARE_MACHINE_DELETION, DECLARE_REMEDIATION};
    let loaded = load(&[fixture(CAPZ)], Limits::default()).unwrap();
    let mut checker = Checker::new(CheckOptions::default());
    for mut doc in loaded.documents {
        if doc.value["spec"]["names"]["kind"] == "AzureMachinePool" {
            doc.value["metadata"]["annotations"] =
                json!({DECLARE_MACHINE_DELETION: "true", DECLARE_REMEDIATION: "false"});
        }
        checker.add_crd(&doc.into());
    }
    let r = checker.finish();
    assert_eq!(
        r.capabilities[0].machine_deletion,
        Behaviour::Declared { value: true }
    );
    assert_eq!(
        r.capabilities[0].remediation,
        Behaviour::Declared { value: false }
    );
    let table = capi_contract_check::capabilities::table(&r.capabilities);
    assert!(
        table.contains("yes (declared)") && table.contains("no (declared)"),
        "{table}"
    );
}

mod malformed {
    use super::*;
    use proptest::prelude::*;

    /// Paths the set rules read, each replaced by a value of another shape.
    const PATHS: &[&[&str]] = &[
        &["metadata"],
        &["metadata", "labels"],
        &["metadata", "ownerReferences"],
        &["metadata", "name"],
        &["apiVersion"],
        &["kind"],
        &["spec"],
        &["spec", "providerID"],
        &["spec", "providerIDList"],
        &["status"],
        &["status", "infrastructureMachineKind"],
        &["spec", "workers"],
        &["spec", "workers", "machinePools"],
        &["spec", "topology"],
        &["spec", "topology", "workers", "machinePools"],
    ];

    fn any_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<i64>().prop_map(Value::from),
            any::<bool>().prop_map(Value::from),
            ".{0,12}".prop_map(Value::from),
            Just(json!([1, "x", null, {}])),
            Just(json!({"kind": 3, "name": []})),
        ]
    }

    fn set(v: &mut Value, path: &[&str], new: Value) {
        let mut at = v;
        for (i, key) in path.iter().enumerate() {
            if !at.is_object() {
                return;
            }
            if i + 1 == path.len() {
                at[*key] = new;
                return;
            }
            at = &mut at[*key];
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(capi_test_support::proptest_cases(64)))]

        /// Malformed fields in any of the objects never stop the checker: every object read is
        /// either judged or listed as skipped, and every finding names a known rule.
        #[test]
        fn malformed_objects_are_reported_not_fatal(
            which in 0usize..16,
            path in 0usize..PATHS.len(),
            value in any_value(),
        ) {
            let mut objs = objects();
            let index = which % objs.len();
            set(&mut objs[index], PATHS[path], value);
            let r = check_with(&[], &objs);
            for f in &r.findings {
                prop_assert!(capi_contract_check::rules::by_id(f.rule.id).is_some());
            }
            prop_assert_eq!(r.capabilities.len(), 3);
            let _ = capi_contract_check::render::json(&r);
        }
    }
}

/// CAPA's real tree: AWSMachinePool declares `status.infrastructureMachineKind`; no
/// `AWSMachinePoolMachine` CRD exists, but `AWSMachine` does (the kind the contract page names
/// for AWS), so the report names it as a guess by CRD name.
#[test]
fn capa_capabilities_guess_aws_machine() {
    let loaded = load(
        &[fixture("provider-trees/capa/config/crd")],
        Limits::default(),
    )
    .unwrap();
    let r = capi_contract_check::check_documents(
        loaded.documents,
        &loaded.notes,
        &CheckOptions::default(),
    );
    let kinds: Vec<(&str, &MachinePoolMachines)> = r
        .capabilities
        .iter()
        .map(|c| (c.kind.as_str(), &c.machine_pool_machines))
        .collect();
    assert_eq!(
        kinds,
        [
            (
                "AWSMachinePool",
                &MachinePoolMachines::Supported {
                    kind: Some("AWSMachine".into()),
                    known_from: Some("crd-name")
                }
            ),
            ("AWSManagedMachinePool", &MachinePoolMachines::NotSupported),
            ("ROSAMachinePool", &MachinePoolMachines::NotSupported),
        ]
    );
}
