//! The example provider passes the contract check, converts through the generic handler, and
//! computes its Ready condition.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_conditions::{new_condition, set};
use capi_contract_check::{CheckOptions, CrdInput, Outcome, check, check_crds};
use capi_machinepool_conversion::{StaticResolver, review};
use foo_provider::{converter, node_report, ready_condition, skew_gate, status_update, v1beta1};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use serde_json::{Value, json};

#[test]
fn own_crds_pass_the_contract_check() {
    // What a provider writes in its own unit tests: the typed CRDs through the library API.
    let crds = foo_provider::try_crds().unwrap();
    let labels = |i: usize| crds[i].metadata.labels.clone().unwrap_or_default();
    assert_eq!(
        labels(0)["cluster.x-k8s.io/v1beta1"],
        "v1alpha1",
        "added after merge_crds"
    );
    assert_eq!(labels(0)["cluster.x-k8s.io/v1beta2"], "v1beta1");
    assert_eq!(
        labels(1)["cluster.x-k8s.io/v1beta2"],
        "v1beta1",
        "#[kube(label)]"
    );
    let report = check(&crds);
    assert!(report.passes(), "{report}");
    for opts in [
        CheckOptions::default(),
        CheckOptions {
            v1beta1_compat: false,
            ..CheckOptions::default()
        },
    ] {
        let inputs: Vec<CrdInput> = crds.iter().map(CrdInput::from).collect();
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

fn review(desired: &str, object: &Value) -> Value {
    let converter = converter(StaticResolver::new());
    let body = serde_json::to_vec(
        &json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "request": {"uid": "u", "desiredAPIVersion": desired, "objects": [object]}}),
    )
    .unwrap();
    let out: Value = serde_json::from_slice(&review::handle_bytes(&converter, &body).body).unwrap();
    assert_eq!(out["response"]["result"]["status"], "Success", "{out}");
    out["response"]["convertedObjects"][0].clone()
}

/// What the API server does with a stored v1beta1 object read as v1alpha1 and written back:
/// nothing v1alpha1 lacks is lost.
#[test]
fn a_hub_converts_down_and_back_through_the_webhook_equal() {
    let hub = json!({"apiVersion": "infrastructure.foo.example.com/v1beta1", "kind": "FooMachinePool",
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {"providerIDList": ["foo://1"], "instanceType": "large", "additionalTags": {"team": "a"}},
        "status": {"initialization": {"provisioned": false}, "replicas": 1,
            "conditions": [{"type": "Ready", "status": "False", "lastTransitionTime": "2026-01-02T03:04:05Z", "reason": "NotReady", "message": "waiting"}],
            "deprecated": {"v1beta1": {"conditions": [{"type": "Ready", "status": "False", "severity": "Info", "lastTransitionTime": "2026-01-02T03:04:05Z", "reason": "NotReady"}]}}}});
    let spoke = review("infrastructure.foo.example.com/v1alpha1", &hub);
    assert_eq!(spoke["status"]["ready"], false);
    assert_eq!(spoke["status"]["conditions"][0]["severity"], "Info");
    assert!(
        spoke["metadata"]["annotations"]["cluster.x-k8s.io/conversion-data"]
            .as_str()
            .unwrap()
            .contains("\"additionalTags\":{\"team\":\"a\"}")
    );
    assert_eq!(
        review("infrastructure.foo.example.com/v1beta1", &spoke),
        hub
    );
}

/// A v1alpha1 object a user wrote converts up and back to itself, less the conversion-data
/// annotation the down-conversion adds (upstream's FuzzTestFunc "spoke-hub-spoke" removes
/// it before comparing).
#[test]
fn a_spoke_converts_up_and_back_equal() {
    let spoke = json!({"apiVersion": "infrastructure.foo.example.com/v1alpha1", "kind": "FooMachinePool",
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {"providerIDList": ["foo://1"], "instanceType": "large"}, "status": {"ready": true, "replicas": 1}});
    let hub = review("infrastructure.foo.example.com/v1beta1", &spoke);
    assert_eq!(hub["status"]["initialization"]["provisioned"], true);
    let mut back = review("infrastructure.foo.example.com/v1alpha1", &hub);
    let annotations = back["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("annotations")
        .unwrap();
    assert_eq!(
        annotations.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["cluster.x-k8s.io/conversion-data"]
    );
    assert_eq!(back, spoke);
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

/// A reconcile's status: Paused from the pool's annotation, Ready, in an apply body that
/// holds name, namespace and status only.
#[test]
fn status_update_sets_paused_and_ready_in_an_apply_body() {
    let now = Time(Timestamp::from_second(1_800_000_000).unwrap());
    let mut pool = v1beta1::FooMachinePool::new("pool", Default::default());
    pool.metadata.namespace = Some("default".into());
    pool.metadata.generation = Some(2);
    pool.metadata.annotations =
        Some([("cluster.x-k8s.io/paused".to_owned(), String::new())].into());
    pool.spec.instance_type = "large".into();
    let update = status_update(&mut pool, false, &now);
    assert!(update.paused);
    assert_eq!(
        serde_json::to_value(&update.apply).unwrap(),
        json!({"apiVersion": "infrastructure.foo.example.com/v1beta1", "kind": "FooMachinePool",
            "metadata": {"name": "pool", "namespace": "default"},
            "status": {"replicas": 0, "conditions": [
                {"type": "Ready", "status": "Unknown", "observedGeneration": 2, "lastTransitionTime": "2027-01-15T08:00:00Z",
                 "reason": "UnknownReported", "message": "* ScalingGroupReady: Condition not yet reported\n* LaunchTemplateReady: Condition not yet reported"},
                {"type": "Paused", "status": "True", "observedGeneration": 2, "lastTransitionTime": "2027-01-15T08:00:00Z",
                 "reason": "Paused", "message": "FooMachinePool has the cluster.x-k8s.io/paused annotation"}]}})
    );
    pool.metadata.annotations = None;
    assert!(!status_update(&mut pool, false, &now).paused);
}

/// Node matching on the provider's own pool (upstream `getNodeReferences` matches Nodes by
/// exact `spec.providerID`): a near miss is named, so the provider can fix how it writes IDs.
#[test]
fn node_report_names_ids_without_nodes_and_near_misses() {
    use k8s_openapi::api::core::v1::{Node, NodeSpec};
    let mut pool = v1beta1::FooMachinePool::new("pool", Default::default());
    pool.spec.provider_id_list = vec!["foo://a".into(), "foo:///b".into()];
    let node = |name: &str, id: &str| Node {
        metadata: kube::core::ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        spec: Some(NodeSpec {
            provider_id: Some(id.into()),
            ..Default::default()
        }),
        ..Default::default()
    };
    let report = node_report(&pool, &[node("n-a", "foo://a"), node("n-b", "foo://b")]);
    assert!(!report.is_clean());
    assert_eq!(report.matched.len(), 1);
    assert_eq!(report.ids_without_node, ["foo:///b"]);
    assert_eq!(report.near_misses.len(), 1, "{report:?}");
}

/// The skew gate: "kubelet must not be newer than kube-apiserver" (Kubernetes version skew
/// policy), judged against the oldest kube-apiserver of a control plane mid-upgrade.
#[test]
fn skew_gate_refuses_a_kubelet_newer_than_the_control_plane() {
    use capi_machinepool_rollout::{Severity, skew::VersionAt};
    let pool = v1beta1::FooMachinePool::new("pool", Default::default());
    let cp = [
        VersionAt::new("v1.35.0", "KubeadmControlPlane default/cp spec.version"),
        VersionAt::new("v1.34.2", "KubeadmControlPlane default/cp status.version"),
    ];
    let found = skew_gate(&pool, &cp, "v1.35.0");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].severity, Some(Severity::Error));
    assert!(skew_gate(&pool, &cp, "v1.34.2").is_empty());
}
