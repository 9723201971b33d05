//! Hand-made mutations of a real CRD (CAPI's DevMachinePool) each fail the specific rule.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;

use capi_contract::load::read_documents;
use capi_contract::{CheckOptions, CrdInput, Outcome, check_crds};
use serde_json::{Value, json};

fn dev_machine_pool() -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/corpus/providers/capi-dev/infrastructure.cluster.x-k8s.io_devmachinepools.yaml");
    let mut crd = read_documents(&path).unwrap().remove(0).value;
    // A correct label, so that every failure below comes from the mutation alone.
    crd["metadata"]["labels"] = json!({"cluster.x-k8s.io/v1beta2": "v1beta2"});
    crd
}

fn failures(crd: Value) -> Vec<&'static str> {
    let report = check_crds(
        &[CrdInput {
            source: "mutated".into(),
            crd,
            notes: vec![],
        }],
        &CheckOptions::default(),
    );
    let mut v: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.outcome == Outcome::Fail)
        .map(|f| f.rule)
        .collect();
    v.dedup();
    v
}

fn status(crd: &mut Value) -> &mut Value {
    &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"]["properties"]
}

#[test]
fn unmutated_has_no_failure() {
    assert_eq!(failures(dev_machine_pool()), Vec::<&str>::new());
}

#[test]
fn each_mutation_fails_its_rule() {
    type Mutation = fn(&mut Value);
    let cases: [(&str, Mutation, &[&str]); 9] = [
        (
            "wrong scope",
            |c| c["spec"]["scope"] = json!("Cluster"),
            &["scope"],
        ),
        (
            "missing label",
            |c| c["metadata"]["labels"] = json!({}),
            &["contract-label"],
        ),
        (
            "label names a missing version",
            |c| c["metadata"]["labels"] = json!({"cluster.x-k8s.io/v1beta2": "v1beta3"}),
            &["contract-label-versions"],
        ),
        (
            "providerIDList of the wrong type",
            |c| {
                c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
                    ["providerIDList"] = json!({"type": "string"});
            },
            &["provider-id-list"],
        ),
        (
            "missing replicas",
            |c| {
                status(c).as_object_mut().unwrap().remove("replicas");
            },
            &["replicas"],
        ),
        (
            "missing List kind",
            |c| c["spec"]["names"]["listKind"] = json!("DevMachinePools"),
            &["list-kind"],
        ),
        (
            "wrong CRD name",
            |c| c["metadata"]["name"] = json!("devmachinepool.infrastructure.cluster.x-k8s.io"),
            &["crd-name"],
        ),
        (
            "no initialization at all",
            |c| {
                status(c).as_object_mut().unwrap().remove("ready");
            },
            &["initialization-provisioned"],
        ),
        (
            "infrastructureMachineKind of the wrong type",
            |c| status(c)["infrastructureMachineKind"] = json!({"type": "boolean"}),
            &["machine-pool-machines"],
        ),
    ];
    for (name, mutate, want) in cases {
        let mut crd = dev_machine_pool();
        mutate(&mut crd);
        assert_eq!(failures(crd), want, "{name}");
    }
}

#[test]
fn contract_example_recommendations_are_never_failures() {
    let mut crd = dev_machine_pool();
    crd["spec"]["names"]["categories"] = json!([]);
    crd["spec"]["versions"][0]["subresources"] = json!({});
    let report = check_crds(
        &[CrdInput {
            source: "m".into(),
            crd,
            notes: vec![],
        }],
        &CheckOptions::default(),
    );
    for rule in [
        "categories",
        "status-subresource",
        "provider-id-list-validation",
    ] {
        let f = report.findings.iter().find(|f| f.rule == rule).unwrap();
        assert_eq!(f.outcome, Outcome::Warn, "{rule}");
    }
    assert!(!report.has_failures());
}
