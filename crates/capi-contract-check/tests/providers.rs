//! Verdicts on the real provider CRDs of the corpus, worked out from the contract text
//! (see docs/contract.md for the reasoning behind each verdict).
#![allow(clippy::unwrap_used, clippy::panic)]

use Outcome::{Fail, Info, Warn};
use capi_contract::Contract;
use capi_contract_check::{CheckOptions, Outcome, Report, check_documents};
use capi_manifests::{Limits, load::load};
use capi_test_support::{fixture, partial_tree};

/// A partial provider tree of the corpus (`corpus/providers/<name>`) or a whole one
/// (`provider-trees/<name>/config/crd`).
fn check(name: &str, opts: &CheckOptions) -> Report {
    let path = if name.starts_with("capi-provider-") {
        partial_tree(&format!("corpus/providers/{name}"))
    } else {
        fixture(&format!("provider-trees/{name}/config/crd"))
    };
    let loaded = load(&[path], Limits::default()).unwrap();
    check_documents(loaded.documents, &loaded.notes, opts)
}

fn is_of(f: &capi_contract_check::Finding, crd: &str) -> bool {
    let subject = f.subject.to_string();
    subject == crd || subject.starts_with(&format!("{crd}@"))
}

/// Every non-passing (rule, outcome) for one CRD (its own findings and its versions').
fn issues(report: &Report, crd: &str) -> Vec<(&'static str, Outcome)> {
    let mut v: Vec<_> = report
        .findings
        .iter()
        .filter(|f| is_of(f, crd))
        .filter(|f| f.outcome != Outcome::Pass)
        .map(|f| (f.rule.id, f.outcome))
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Rules that pass for the CRD (and never fail or warn).
fn passes(report: &Report, crd: &str) -> Vec<&'static str> {
    let bad = issues(report, crd);
    let mut v: Vec<_> = report
        .findings
        .iter()
        .filter(|f| is_of(f, crd) && f.outcome == Outcome::Pass)
        .map(|f| f.rule.id)
        .filter(|r| !bad.iter().any(|(b, _)| b == r))
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

const SUFFIX: &str = ".infrastructure.cluster.x-k8s.io";

/// `("crd-valid", Info)` in a row: the CRD carries CEL rules (`x-kubernetes-validations`)
/// using what the offline CEL model does not cover, left to the API server; `crd-valid` says
/// so instead of a pass (docs/crd-validation.md, CEL rows). CRDs whose CEL is judged (ROSA,
/// Scaleway: real CRDs the API server accepts) pass.
fn assert_crds(report: &Report, expected: &[(&str, &[(&str, Outcome)])]) {
    for (plural, want) in expected {
        let crd = format!("{plural}{SUFFIX}");
        assert_eq!(issues(report, &crd), *want, "{crd}");
    }
}

#[test]
fn capi_dev_devmachinepool() {
    let r = check("capi-dev", &CheckOptions::default());
    assert_crds(
        &r,
        &[
            (
                "devmachinepools",
                &[
                    // kustomization maps contract v1beta1 to a CRD version v1beta1 that does not exist.
                    ("contract-label-versions", Fail),
                    // v1beta2 schema reports initialization through the deprecated status.ready.
                    ("initialization-provisioned", Warn),
                    ("provider-id-list-validation", Warn),
                ],
            ),
            (
                "devmachinepooltemplates",
                &[("contract-label-versions", Fail)],
            ),
        ],
    );
    assert!(r.has_failures());
    assert_eq!(
        passes(&r, &format!("devmachinepools{SUFFIX}")),
        [
            "api-group",
            "categories",
            "conditions",
            "contract-label",
            "contract-label-served",
            "crd-name",
            // The API server accepts this upstream CRD (the e2e suite submits it).
            "crd-valid",
            "deprecated-contract",
            "instances",
            "list-kind",
            "machine-pool-machines",
            "provider-id",
            "provider-id-list",
            "replicas",
            "scope",
            "served-version-unlabelled",
            "status-subresource",
            "template-resource",
            "type-and-object-meta",
            "version-policy"
        ]
    );
}

#[test]
fn capi_dev_without_v1beta1_compat_fails_initialization() {
    let opts = CheckOptions {
        v1beta1_compat: false,
        ..CheckOptions::default()
    };
    let r = check("capi-dev", &opts);
    assert!(
        issues(&r, &format!("devmachinepools{SUFFIX}"))
            .contains(&("initialization-provisioned", Fail))
    );
}

#[test]
fn capi_dev_against_the_v1beta1_contract() {
    let opts = CheckOptions {
        only_contract: Some(Contract::V1Beta1),
        ..CheckOptions::default()
    };
    let r = check("capi-dev", &opts);
    // Only the v1beta1 label counts, and it names a missing version; the served versions are
    // then checked with the v1beta1 rules, where status.ready is the contract field.
    assert_crds(
        &r,
        &[(
            "devmachinepools",
            &[
                ("contract-label-versions", Fail),
                ("provider-id-list-validation", Warn),
            ],
        )],
    );
    assert!(passes(&r, &format!("devmachinepools{SUFFIX}")).contains(&"ready"));
}

#[test]
fn aws() {
    let r = check("capi-provider-aws", &CheckOptions::default());
    assert_crds(
        &r,
        &[
            (
                "awsmachinepools",
                &[
                    // v1beta1 is listed but not served (references resolve to v1beta2, warning).
                    ("contract-label-served", Warn),
                    // v1alpha3/v1alpha4 labels name versions that no longer exist, for
                    // contracts no current core reads (stale, info).
                    ("contract-label-versions", Info),
                    ("deprecated-contract", Warn),
                    ("provider-id-list-validation", Warn),
                    ("template-resource", Warn),
                ],
            ),
            (
                "awsmanagedmachinepools",
                &[
                    ("contract-label-served", Warn),
                    ("contract-label-versions", Info),
                    ("deprecated-contract", Warn),
                    ("machine-pool-machines", Info),
                    ("provider-id-list-validation", Warn),
                    ("template-resource", Warn),
                ],
            ),
            // ROSAMachinePool has no v1beta1 version at all: the v1beta1 label is wrong.
            (
                "rosamachinepools",
                &[
                    ("contract-label-versions", Fail),
                    ("contract-label-versions", Info),
                    ("deprecated-contract", Warn),
                    ("machine-pool-machines", Info),
                    ("provider-id-list-validation", Warn),
                    ("template-resource", Warn),
                ],
            ),
        ],
    );
    // Under the v1beta1 contract the AWS pools use status.ready and legacy conditions: both pass.
    assert!(passes(&r, &format!("awsmachinepools{SUFFIX}")).contains(&"ready"));
}

/// cluster-api-provider-azure's real `config/crd`: the contract labels come from kustomize
/// `patches:` (partial CRDs in `patches/capicontract_in_*.yaml`); applied, every pool carries
/// `cluster.x-k8s.io/v1beta1: v1beta1` and passes the label rules. (The earlier corpus copy
/// lacked the patch files and showed a false `contract-label` failure.)
#[test]
fn azure_real_tree_labels_come_from_patches() {
    let r = check("capz", &CheckOptions::default());
    assert!(!r.has_failures(), "{r}");
    assert_crds(
        &r,
        &[
            (
                "azuremachinepools",
                &[
                    ("deprecated-contract", Warn),
                    ("provider-id-list-validation", Warn),
                    ("template-resource", Warn),
                ],
            ),
            (
                "azuremanagedmachinepools",
                &[
                    ("deprecated-contract", Warn),
                    ("machine-pool-machines", Info),
                    ("provider-id-list-validation", Warn),
                ],
            ),
            (
                "azureasomanagedmachinepools",
                &[
                    ("categories", Warn),
                    ("conditions", Warn),
                    ("deprecated-contract", Warn),
                    ("machine-pool-machines", Info),
                    ("provider-id-list-validation", Warn),
                    // v1alpha1 is still served, and no contract label lists it: INFO, as no
                    // contract sentence requires labelling every served version
                    // (infra-machinepool.md: "Each value MUST point to an available version in
                    // your CRD Spec" constrains the values only).
                    ("served-version-unlabelled", Info),
                ],
            ),
            (
                "azuremanagedmachinepooltemplates",
                &[("deprecated-contract", Warn)],
            ),
            (
                "azureasomanagedmachinepooltemplates",
                &[
                    ("categories", Warn),
                    ("deprecated-contract", Warn),
                    ("served-version-unlabelled", Info),
                    // A real CAPZ bug found by the rule: the template's `Template` field has
                    // the type AzureASOManagedControlPlaneResource (api/v1beta1/
                    // azureasomanagedmachinepooltemplate_types.go at 69ec3a40), so
                    // spec.template.spec has `version`, which AzureASOManagedMachinePool's spec
                    // lacks: the API server prunes it from pools made from the template.
                    ("template-schema-compatible", Warn),
                ],
            ),
        ],
    );
    for pool in [
        "azuremachinepools",
        "azuremanagedmachinepools",
        "azureasomanagedmachinepools",
    ] {
        let passed = passes(&r, &format!("{pool}{SUFFIX}"));
        assert!(passed.contains(&"contract-label"), "{pool}: {passed:?}");
        assert!(
            passed.contains(&"contract-label-versions"),
            "{pool}: {passed:?}"
        );
    }
    // AzureMachinePoolMachine is the InfraMachine of MachinePool Machines: checked as one
    // (its spec.providerID is a string), not skipped.
    assert!(
        !r.skipped
            .iter()
            .any(|s| s.to_string().starts_with("azuremachinepoolmachines"))
    );
    assert_eq!(
        issues(&r, &format!("azuremachinepoolmachines{SUFFIX}")),
        [("deprecated-contract", Warn)]
    );
    assert!(
        passes(&r, &format!("azuremachinepoolmachines{SUFFIX}"))
            .contains(&"machine-pool-machine-crd")
    );
}

#[test]
fn gcp() {
    let r = check("capi-provider-gcp", &CheckOptions::default());
    assert_crds(
        &r,
        &[
            (
                "gcpmachinepools",
                &[
                    ("crd-valid", Info),
                    ("deprecated-contract", Warn),
                    ("machine-pool-machines", Info),
                    ("provider-id-list-validation", Warn),
                    ("template-resource", Warn),
                ],
            ),
            (
                "gcpmanagedmachinepools",
                &[
                    ("deprecated-contract", Warn),
                    ("provider-id-list-validation", Warn),
                ],
            ),
            (
                "gcpmanagedmachinepooltemplates",
                &[("deprecated-contract", Warn)],
            ),
        ],
    );
    assert!(!r.has_failures());
    let strict = check(
        "capi-provider-gcp",
        &CheckOptions {
            v1beta1_compat: false,
            ..CheckOptions::default()
        },
    );
    assert!(
        issues(&strict, &format!("gcpmachinepools{SUFFIX}"))
            .contains(&("deprecated-contract", Fail))
    );
}

#[test]
fn oci() {
    let r = check("capi-provider-oci", &CheckOptions::default());
    assert_crds(
        &r,
        &[
            (
                "ocimachinepools",
                &[
                    ("categories", Warn),
                    ("deprecated-contract", Warn),
                    ("provider-id-list-validation", Warn),
                    ("template-resource", Warn),
                ],
            ),
            (
                "ocimanagedmachinepools",
                &[
                    ("categories", Warn),
                    ("deprecated-contract", Warn),
                    ("provider-id-list-validation", Warn),
                ],
            ),
            (
                "ocimanagedmachinepooltemplates",
                &[("deprecated-contract", Warn)],
            ),
            (
                "ocivirtualmachinepools",
                &[
                    ("categories", Warn),
                    ("deprecated-contract", Warn),
                    ("provider-id-list-validation", Warn),
                    ("template-resource", Warn),
                ],
            ),
        ],
    );
    assert!(!r.has_failures());
}

#[test]
fn scaleway_implements_the_v1beta2_contract() {
    let r = check("capi-provider-scaleway", &CheckOptions::default());
    assert_crds(
        &r,
        &[(
            "scalewaymanagedmachinepools",
            &[
                // v1alpha1 (mapped to the v1beta1 contract) predates conditions and list validation.
                ("conditions", Warn),
                ("machine-pool-machines", Info),
                ("provider-id-list-validation", Warn),
                ("template-resource", Warn),
            ],
        )],
    );
    let crd = format!("scalewaymanagedmachinepools{SUFFIX}");
    let v1alpha2: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.subject.to_string() == format!("{crd}@v1alpha2"))
        .map(|f| (f.rule.id, f.outcome))
        .collect();
    assert!(v1alpha2.contains(&("initialization-provisioned", Outcome::Pass)));
    assert!(v1alpha2.contains(&("provider-id-list-validation", Outcome::Pass)));
    assert!(v1alpha2.contains(&("conditions", Outcome::Pass)));
    assert!(!r.has_failures());
}
