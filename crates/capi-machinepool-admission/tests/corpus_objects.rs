//! Every MachinePool in the corpus validates clean; broken variants report the expected field
//! paths.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_machinepool_admission::{
    FeatureGates, FieldErrorType, default_machine_pool, validate_machine_pool,
};
use capi_machinepool_api::v1beta2;
use capi_test_support::{corpus_machine_pools, merge};
use serde_json::{Value, json};

#[test]
fn corpus_machine_pools_validate_clean() {
    for doc in corpus_machine_pools() {
        let mut mp: v1beta2::MachinePool = serde_json::from_value(doc).unwrap();
        default_machine_pool(&mut mp, None).unwrap();
        let errs = validate_machine_pool(&mp, None, &FeatureGates::default());
        // The template's version is `${KUBERNETES_VERSION}`, which is not semver until substituted.
        let errs: Vec<_> = errs
            .into_iter()
            .filter(|e| {
                !e.value
                    .as_ref()
                    .and_then(|v| v.as_str())
                    .is_some_and(|v| v.contains("${"))
            })
            .collect();
        assert!(errs.is_empty(), "{errs:?}");
    }
}

#[test]
fn broken_variants_report_field_paths() {
    let base = corpus_machine_pools().remove(0);
    type Case = (&'static str, Value, Vec<(FieldErrorType, &'static str)>);
    let cases: Vec<Case> = vec![
        (
            "no bootstrap",
            json!({"spec": {"template": {"spec": {"bootstrap": null}}}}),
            vec![(FieldErrorType::Required, "spec.template.spec.bootstrap")],
        ),
        (
            "cluster name mismatch",
            json!({"spec": {"template": {"spec": {"clusterName": "other"}}}}),
            vec![(FieldErrorType::Invalid, "spec.clusterName")],
        ),
        (
            "bad version",
            json!({"spec": {"template": {"spec": {"version": "v1"}}}}),
            vec![(FieldErrorType::Invalid, "spec.template.spec.version")],
        ),
        (
            "taints",
            json!({"spec": {"template": {"spec": {"taints": [{"key": "k", "effect": "NoSchedule", "propagation": "Always"}]}}}}),
            vec![
                (FieldErrorType::Forbidden, "spec.taints"),
                (FieldErrorType::Forbidden, "spec.taints"),
            ],
        ),
        (
            "bad template label",
            json!({"spec": {"template": {"metadata": {"labels": {"-bad": "ok"}}}}}),
            vec![(FieldErrorType::Invalid, "spec.template.metadata.labels")],
        ),
    ];
    for (name, patch, expected) in cases {
        let mut doc = base.clone();
        merge(&mut doc, &patch);
        let mut mp: v1beta2::MachinePool = serde_json::from_value(doc).unwrap();
        default_machine_pool(&mut mp, None).unwrap();
        let got: Vec<_> = validate_machine_pool(&mp, None, &FeatureGates::default())
            .into_iter()
            .map(|e| (e.type_, e.field))
            .collect();
        let expected: Vec<_> = expected
            .into_iter()
            .map(|(t, f)| (t, f.to_owned()))
            .collect();
        assert_eq!(got, expected, "{name}");
    }
}
