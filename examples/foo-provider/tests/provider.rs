//! The example provider passes the contract check, converts through the generic handler, and
//! computes its Ready condition.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_conditions::{new_condition, set};
use capi_contract_check::{CheckOptions, CrdInput, Outcome, check, check_crds};
use capi_machinepool_conversion::{StaticResolver, review};
use foo_provider::{converter, crds, ready_condition, v1beta1};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use serde_json::{Value, json};

#[test]
fn own_crds_pass_the_contract_check() {
    // What a provider writes in its own unit tests: the typed CRDs through the library API.
    let report = check(&crds());
    assert!(report.passes(), "{report}");
    for opts in [
        CheckOptions::default(),
        CheckOptions {
            v1beta1_compat: false,
            ..CheckOptions::default()
        },
    ] {
        let inputs: Vec<CrdInput> = crds().iter().map(CrdInput::from).collect();
        let report = check_crds(&inputs, &opts);
        let problems: Vec<_> = report
            .findings
            .iter()
            .filter(|f| matches!(f.outcome, Outcome::Fail | Outcome::Warn))
            .collect();
        assert!(problems.is_empty(), "{report}");
        assert!(
            report
                .findings
                .iter()
                .any(|f| f.rule.id == "initialization-provisioned" && f.outcome == Outcome::Pass)
        );
        assert!(
            report
                .findings
                .iter()
                .any(|f| f.rule.id == "ready" && f.outcome == Outcome::Pass),
            "v1alpha1 checked against the v1beta1 contract"
        );
    }
}

#[test]
fn converts_through_the_generic_handler() {
    let converter = converter(StaticResolver::new());
    let spoke = json!({"apiVersion": "infrastructure.foo.example.com/v1alpha1", "kind": "FooMachinePool", "metadata": {"name": "p", "namespace": "default"},
        "spec": {"providerIDList": ["foo://1"], "instanceType": "large"}, "status": {"ready": true, "replicas": 1}});
    let body = serde_json::to_vec(&json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "request": {"uid": "u", "desiredAPIVersion": "infrastructure.foo.example.com/v1beta1", "objects": [spoke.clone()]}})).unwrap();
    let out: Value = serde_json::from_slice(&review::handle_bytes(&converter, &body).body).unwrap();
    let hub = &out["response"]["convertedObjects"][0];
    assert_eq!(hub["apiVersion"], "infrastructure.foo.example.com/v1beta1");
    assert_eq!(hub["status"]["initialization"]["provisioned"], true);
    let body = serde_json::to_vec(&json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "request": {"uid": "u", "desiredAPIVersion": "infrastructure.foo.example.com/v1alpha1", "objects": [hub]}})).unwrap();
    let back: Value =
        serde_json::from_slice(&review::handle_bytes(&converter, &body).body).unwrap();
    assert_eq!(back["response"]["convertedObjects"][0], spoke);
}

#[test]
fn ready_is_a_summary_of_the_provider_conditions() {
    let now = Time(Timestamp::from_second(1_800_000_000).unwrap());
    let mut pool = v1beta1::FooMachinePool::new("pool", Default::default());
    set(
        &mut pool,
        new_condition("ScalingGroupReady", "True", "Ready", ""),
        &now,
    );
    let ready = ready_condition(&pool);
    assert_eq!(
        (ready.status.as_str(), ready.message.as_str()),
        (
            "Unknown",
            "* LaunchTemplateReady: Condition not yet reported"
        )
    );
    set(
        &mut pool,
        new_condition("LaunchTemplateReady", "False", "Invalid", "image not found"),
        &now,
    );
    assert_eq!(
        ready_condition(&pool).message,
        "* LaunchTemplateReady: image not found"
    );
    set(
        &mut pool,
        new_condition("LaunchTemplateReady", "True", "Ready", ""),
        &now,
    );
    assert_eq!(ready_condition(&pool).status, "True");
}
