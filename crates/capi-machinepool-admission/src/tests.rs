use capi_diagnostics::Severity;
use std::collections::BTreeMap;

use super::*;
use capi_machinepool_api::v1beta2::{ContractVersionedObjectReference, MachinePool};

fn pool(annotations: &[(&str, &str)], replicas: Option<i32>) -> MachinePool {
    let mut mp = MachinePool::new("mp", Default::default());
    mp.spec.cluster_name = "c1".into();
    mp.spec.replicas = replicas;
    mp.spec.template.spec.cluster_name = "c1".into();
    mp.spec.template.spec.bootstrap.config_ref = ContractVersionedObjectReference {
        api_group: "bootstrap.cluster.x-k8s.io".into(),
        kind: "KubeadmConfig".into(),
        name: "cfg".into(),
    };
    if !annotations.is_empty() {
        mp.metadata.annotations = Some(
            annotations
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect::<BTreeMap<_, _>>(),
        );
    }
    mp
}

const MIN: &str = AUTOSCALER_MIN_SIZE_ANNOTATION;
const MAX: &str = AUTOSCALER_MAX_SIZE_ANNOTATION;

#[test]
fn replicas_defaulting_table() {
    let cases: Vec<(&str, MachinePool, Option<MachinePool>, i32)> = vec![
        (
            "explicit kept",
            pool(&[(MIN, "3"), (MAX, "5")], Some(7)),
            None,
            7,
        ),
        ("no annotations", pool(&[], None), None, 1),
        ("only min", pool(&[(MIN, "3")], None), None, 1),
        (
            "create uses min",
            pool(&[(MIN, "3"), (MAX, "5")], None),
            None,
            3,
        ),
        (
            "update old unset",
            pool(&[(MIN, "3"), (MAX, "5")], None),
            Some(pool(&[], None)),
            3,
        ),
        (
            "update below min",
            pool(&[(MIN, "3"), (MAX, "5")], None),
            Some(pool(&[], Some(1))),
            3,
        ),
        (
            "update above max",
            pool(&[(MIN, "3"), (MAX, "5")], None),
            Some(pool(&[], Some(9))),
            5,
        ),
        (
            "update within",
            pool(&[(MIN, "3"), (MAX, "5")], None),
            Some(pool(&[], Some(4))),
            4,
        ),
        (
            "sign accepted",
            pool(&[(MIN, "+2"), (MAX, "5")], None),
            None,
            2,
        ),
    ];
    for (name, mp, old, want) in cases {
        assert_eq!(calculate_replicas(&mp, old.as_ref()), Ok(want), "{name}");
    }
}

#[test]
fn bad_annotation_is_an_error_not_a_panic() {
    for bad in ["", "three", " 3", "2147483648", "1.5"] {
        let mut mp = pool(&[(MIN, bad), (MAX, "5")], None);
        let err = default_machine_pool(&mut mp, None).unwrap_err();
        assert!(err.to_string().contains(MIN), "{err}");
        assert_eq!(mp.spec.replicas, None, "object unchanged on error");
    }
}

#[test]
fn defaults_label_timeout_and_version_prefix() {
    let mut mp = pool(&[], None);
    mp.spec.template.spec.version = "1.33.0".into();
    default_machine_pool(&mut mp, None).unwrap();
    assert_eq!(
        mp.metadata
            .labels
            .as_ref()
            .and_then(|l| l.get(CLUSTER_NAME_LABEL))
            .map(String::as_str),
        Some("c1")
    );
    assert_eq!(
        mp.spec.template.spec.deletion.node_deletion_timeout_seconds,
        Some(10)
    );
    assert_eq!(mp.spec.template.spec.version, "v1.33.0");
    // An explicit timeout is kept.
    let mut mp = pool(&[], None);
    mp.spec.template.spec.deletion.node_deletion_timeout_seconds = Some(0);
    default_machine_pool(&mut mp, None).unwrap();
    assert_eq!(
        mp.spec.template.spec.deletion.node_deletion_timeout_seconds,
        Some(0)
    );
}

#[test]
fn version_vectors() {
    for (version, errors) in [
        ("v1.23.3", 0),
        ("v1.19.0-alpha.1", 0),
        ("v1.17.2++", 1),
        ("v1", 1),
        ("1.20.0", 1),
        ("x1.2.3", 2),
    ] {
        let mut mp = pool(&[], Some(1));
        mp.spec.template.spec.version = version.into();
        let errs = validate_machine_pool(&mp, None, &FeatureGates::default());
        assert_eq!(errs.len(), errors, "{version}: {errs:?}");
        assert!(errs.iter().all(|e| e.field == "spec.template.spec.version"));
    }
}

#[test]
fn cluster_name_is_immutable() {
    let old = pool(&[], Some(1));
    let mut new = pool(&[], Some(1));
    new.spec.cluster_name = "c2".into();
    new.spec.template.spec.cluster_name = "c2".into();
    let errs = validate_machine_pool(&new, Some(&old), &FeatureGates::default());
    assert_eq!(
        errs,
        vec![FieldError::forbidden(
            "spec.clusterName",
            "field is immutable"
        )]
    );
}

#[test]
fn empty_data_secret_name_counts_as_set() {
    let mut mp = pool(&[], Some(1));
    mp.spec.template.spec.bootstrap.config_ref = Default::default();
    mp.spec.template.spec.bootstrap.data_secret_name = Some(String::new());
    assert!(validate_machine_pool(&mp, None, &FeatureGates::default()).is_empty());
}

#[test]
fn feature_gate_off_forbids_everything() {
    let gates = FeatureGates {
        machine_pool: false,
        ..FeatureGates::default()
    };
    let errs = validate_machine_pool(&pool(&[], None), None, &gates);
    assert_eq!(errs.len(), 1);
    assert_eq!(
        (errs[0].type_, errs[0].field.as_str()),
        (FieldErrorType::Forbidden, "spec")
    );
}

#[test]
fn taint_propagation_gate_removes_one_error() {
    let mut mp = pool(&[], Some(1));
    mp.spec.template.spec.taints = Some(vec![Default::default()]);
    let gates = FeatureGates {
        machine_taint_propagation: true,
        ..FeatureGates::default()
    };
    assert_eq!(validate_machine_pool(&mp, None, &gates).len(), 1);
}

/// Beyond upstream (cited on `validation_warnings`): a pool with both failure-domain fields
/// is warned that only `spec.failureDomains` is used; either one alone is not.
#[test]
fn both_failure_domain_fields_warn() {
    let mut mp = pool(&[], Some(1));
    assert!(validation_warnings(&mp).is_empty());
    mp.spec.failure_domains = Some(vec!["1".into(), "2".into()]);
    assert!(validation_warnings(&mp).is_empty());
    mp.spec.template.spec.failure_domain = "3".into();
    let w = validation_warnings(&mp);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].field, "spec.template.spec.failureDomain");
    assert!(w[0].detail_text().contains("spec.failureDomains"));
    mp.spec.failure_domains = None;
    assert!(validation_warnings(&mp).is_empty());
    // Through the pipeline: a warning, the pool stays valid.
    let mut both = pool(&[], Some(1));
    both.spec.failure_domains = Some(vec!["1".into()]);
    both.spec.template.spec.failure_domain = "2".into();
    both.spec.template.spec.infrastructure_ref = ContractVersionedObjectReference {
        api_group: "infrastructure.cluster.x-k8s.io".into(),
        kind: "AzureMachinePool".into(),
        name: "amp".into(),
    };
    let admitted = Admission::new()
        .unwrap()
        .admit(&serde_json::to_value(&both).unwrap());
    assert!(admitted.is_valid(), "{:?}", admitted.findings);
    assert!(
        admitted.findings.iter().any(
            |f| f.severity == Severity::Warning && f.path == "spec.template.spec.failureDomain"
        )
    );
}
