//! Hand-made mutations of a real CRD (CAPI's DevMachinePool) each fail the specific rule.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_contract_check::{CheckOptions, CrdInput, Outcome, check_crds};
use capi_test_support::yaml;
use serde_json::{Value, json};

fn dev_machine_pool() -> Value {
    let mut crd = yaml(
        "provider-trees/capi-dev/config/crd/bases/infrastructure.cluster.x-k8s.io_devmachinepools.yaml",
    );
    // A correct label, so that every failure below comes from the mutation alone.
    crd["metadata"]["labels"] = json!({"cluster.x-k8s.io/v1beta2": "v1beta2"});
    crd
}

fn failures(crd: Value) -> Vec<&'static str> {
    let report = check_crds(&[CrdInput::from(crd)], &CheckOptions::default());
    let mut v: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.outcome == Outcome::Fail)
        .map(|f| f.rule.id)
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
            // The API server refuses it too: `metadata.name` must be spec.names.plural+"."+
            // spec.group (apiextensions validation.go, ValidateCustomResourceDefinition).
            &["crd-valid", "crd-name"],
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
    let report = check_crds(&[CrdInput::from(crd)], &CheckOptions::default());
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

/// What the API server stores, not what a generator printed: kube-derive leaves out
/// `spec.names.listKind` (defaulted to `<Kind>List`) and the root `apiVersion`, `kind` and
/// `metadata` properties (implicit in every CRD schema). Neither fails; both leave an INFO
/// hint. Present but wrong, they still fail.
#[test]
fn kube_derive_shaped_crds_pass_with_hints() {
    let mut crd = dev_machine_pool();
    crd["spec"]["names"]
        .as_object_mut()
        .unwrap()
        .remove("listKind");
    let root = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]
        .as_object_mut()
        .unwrap();
    for field in ["apiVersion", "kind", "metadata"] {
        root.remove(field);
    }
    let report = check_crds(&[CrdInput::from(crd.clone())], &CheckOptions::default());
    assert!(!report.has_failures(), "{report}");
    for rule in ["list-kind", "type-and-object-meta"] {
        let outcomes: Vec<Outcome> = report
            .findings
            .iter()
            .filter(|f| f.rule.id == rule)
            .map(|f| f.outcome)
            .collect();
        assert!(outcomes.contains(&Outcome::Pass), "{rule}: {outcomes:?}");
        assert!(outcomes.contains(&Outcome::Info), "{rule}: {outcomes:?}");
    }
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["kind"] =
        json!({"type": "integer"});
    // The API server refuses a root `kind` that is not a string
    // (pkg/apiserver/schema/validation.go, validateStructuralInvariants: "must be string").
    assert_eq!(failures(crd), ["crd-valid", "type-and-object-meta"]);
}

/// A CRD merged from two kube-derive versions, labelled for one: the other served version is
/// reported (core never uses it; its schema is not checked), an unserved one is not.
#[test]
fn a_served_version_no_label_lists_is_reported() {
    let mut crd = dev_machine_pool();
    let mut second = crd["spec"]["versions"][0].clone();
    second["name"] = json!("v1beta3");
    second["storage"] = json!(false);
    crd["spec"]["versions"].as_array_mut().unwrap().push(second);
    let report = check_crds(&[CrdInput::from(crd.clone())], &CheckOptions::default());
    let unlabelled: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.rule.id == "served-version-unlabelled")
        .map(|f| (f.path.as_str(), f.outcome))
        .collect();
    assert_eq!(
        unlabelled,
        [
            ("spec.versions[v1beta2]", Outcome::Pass),
            // INFO: no contract sentence requires labelling every served version
            // (infra-machinepool.md: "Each value MUST point to an available version in your
            // CRD Spec" constrains the label values only).
            ("spec.versions[v1beta3]", Outcome::Info)
        ]
    );
    assert!(!report.has_failures());
    crd["spec"]["versions"][1]["served"] = json!(false);
    let report = check_crds(&[CrdInput::from(crd)], &CheckOptions::default());
    assert!(
        report
            .findings
            .iter()
            .all(|f| f.rule.id != "served-version-unlabelled" || f.outcome == Outcome::Pass)
    );
}

/// The InfraMachine CRD of MachinePool Machines (CAPZ's AzureMachinePoolMachine) is checked,
/// not skipped: the MachinePool controller reads its `spec.providerID` as a string
/// (`createOrUpdateMachines`).
#[test]
fn an_infra_machine_crd_without_a_provider_id_string_fails() {
    let mut crd = capi_test_support::yaml(
        "provider-trees/capz/config/crd/bases/infrastructure.cluster.x-k8s.io_azuremachinepoolmachines.yaml",
    );
    crd["metadata"]["labels"] = json!({"cluster.x-k8s.io/v1beta1": "v1beta1"});
    // Alone, without its InfraMachinePool CRD, the input also fails `inframachinepool-crd`
    // (nothing checked is never a pass); that rule is not what this test is about.
    let machine_crd_failures = |crd: Value| -> Vec<&'static str> {
        failures(crd)
            .into_iter()
            .filter(|id| *id != "inframachinepool-crd")
            .collect()
    };
    assert_eq!(failures(crd.clone()), ["inframachinepool-crd"]);
    assert_eq!(machine_crd_failures(crd.clone()), Vec::<&str>::new());
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["providerID"] =
        json!({"type": "integer"});
    assert_eq!(machine_crd_failures(crd), ["machine-pool-machine-crd"]);
}

/// A template kind's unlabelled served version (issue 51, seen on CAPZ's
/// AzureASOManagedMachinePoolTemplate, labelled `cluster.x-k8s.io/v1beta1: v1beta1`, v1alpha1
/// served): the advice is its own contract's label, never an assumed v1beta2 (which would
/// make a v1beta2 core resolve every ClusterClass reference to the deprecated v1alpha1), and
/// the message does not claim its schema goes unchecked (template-schema-compatible checks
/// it).
#[test]
fn a_template_version_no_label_lists_gets_its_own_contract_label() {
    // The tree as kustomize renders it (its `labels` transformer writes the contract labels).
    let crd = capi_test_support::yaml_docs("provider-trees/capz/rendered.yaml")
        .into_iter()
        .find(|d| {
            d["metadata"]["name"]
                == "azureasomanagedmachinepooltemplates.infrastructure.cluster.x-k8s.io"
        })
        .unwrap();
    let report = check_crds(&[CrdInput::from(crd)], &CheckOptions::default());
    let unlabelled: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.rule.id == "served-version-unlabelled" && f.outcome == Outcome::Info)
        .collect();
    assert_eq!(unlabelled.len(), 1, "{report}");
    let f = unlabelled[0];
    assert_eq!(f.path, "spec.versions[v1alpha1]");
    assert!(
        f.fix
            .contains("`cluster.x-k8s.io/v1beta1: v1beta1_v1alpha1`"),
        "{}",
        f.fix
    );
    assert!(!f.fix.contains("v1beta2"), "{}", f.fix);
    assert!(!f.message.contains("not checked"), "{}", f.message);
}

/// The CAPZ AzureASOManagedMachinePoolTemplate with its contract label removed, read before
/// or after its pool (AzureASOManagedMachinePool, labelled `cluster.x-k8s.io/v1beta1:
/// v1beta1`): the missing label is a FAIL whose advice is the pool's contract and the versions
/// both serve, whatever the order. A template has no status that tells its contract
/// (infra-machinepool.md at ae7ff047, "InfraMachinePoolTemplate": the template's
/// `spec.template.spec` is the pool's spec; contract labels are per CRD, contracts.md
/// "API version labels"), so the contract the advice names is the one its pool is labelled
/// for; the current contract (v1beta2) is never assumed.
#[test]
fn a_template_without_labels_is_advised_its_pools_contract_in_any_order() {
    let docs = capi_test_support::yaml_docs("provider-trees/capz/rendered.yaml");
    let named = |name: &str| {
        docs.iter()
            .find(|d| d["metadata"]["name"] == name)
            .cloned()
            .unwrap()
    };
    let pool = named("azureasomanagedmachinepools.infrastructure.cluster.x-k8s.io");
    let mut template = named("azureasomanagedmachinepooltemplates.infrastructure.cluster.x-k8s.io");
    template["metadata"]["labels"]
        .as_object_mut()
        .unwrap()
        .retain(|k, _| !k.starts_with("cluster.x-k8s.io/"));
    for inputs in [
        vec![template.clone(), pool.clone()],
        vec![pool.clone(), template.clone()],
    ] {
        let inputs: Vec<CrdInput> = inputs.into_iter().map(CrdInput::from).collect();
        let report = check_crds(&inputs, &CheckOptions::default());
        let label: Vec<_> = report
            .findings
            .iter()
            .filter(|f| {
                f.rule.id == "contract-label"
                    && f.subject
                        .to_string()
                        .contains("azureasomanagedmachinepooltemplates")
            })
            .collect();
        assert_eq!(label.len(), 1, "{report}");
        assert_eq!(label[0].outcome, Outcome::Fail, "{report}");
        assert_eq!(
            label[0].fix,
            "add `cluster.x-k8s.io/v1beta1: v1beta1` (its InfraMachinePool AzureASOManagedMachinePool is labelled `cluster.x-k8s.io/v1beta1: v1beta1`)",
        );
        assert!(!label[0].fix.contains("v1beta2"));
    }
    // Without its pool among the inputs, nothing is assumed.
    let report = check_crds(&[CrdInput::from(template)], &CheckOptions::default());
    let fix = &report
        .findings
        .iter()
        .find(|f| f.rule.id == "contract-label")
        .unwrap()
        .fix;
    assert!(
        fix.contains("the contract its InfraMachinePool's CRD is labelled for")
            && !fix.contains("v1beta2"),
        "{fix}"
    );
}
