//! The generated CRD is structurally equal to upstream's controller-gen output.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use capi_machinepool_api::machine_pool_crd_value;
use capi_test_support::yaml_docs;
use common::schema_diff;
use serde_json::Value;

fn upstream() -> Value {
    yaml_docs("corpus/upstream-capi/cluster.x-k8s.io_machinepools.yaml").remove(0)
}

#[test]
fn crd_spec_matches_upstream_structurally() {
    let ours = machine_pool_crd_value();
    let theirs = upstream();
    let mut diffs = Vec::new();
    schema_diff("spec", &ours["spec"], &theirs["spec"], &mut diffs);
    assert!(
        diffs.is_empty(),
        "{} differences:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
    assert_eq!(ours["metadata"]["name"], theirs["metadata"]["name"]);
}

#[test]
fn typed_crd_parses_and_round_trips() {
    let crd = capi_machinepool_api::machine_pool_crd();
    assert_eq!(
        crd.spec.names.short_names.as_deref(),
        Some(&["mp".to_owned()][..])
    );
    let v1beta1 = &crd.spec.versions[0];
    assert_eq!(
        (
            v1beta1.name.as_str(),
            v1beta1.served,
            v1beta1.storage,
            v1beta1.deprecated
        ),
        ("v1beta1", true, false, Some(true))
    );
    let v1beta2 = &crd.spec.versions[1];
    assert_eq!(
        (v1beta2.name.as_str(), v1beta2.served, v1beta2.storage),
        ("v1beta2", true, true)
    );
}
