//! The example provider passes the contract check, converts through the generic handler, and
//! computes its Ready condition.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_machinepool::check::{CheckOptions, CrdInput, Outcome, check, check_crds};
use capi_machinepool::conditions::{new_condition, set};
use capi_machinepool::conversion::{StaticResolver, review};
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

/// The skew gate against the control plane a real Cluster names (`tests/fixtures/clusters/
/// aws-kubeadm.yaml`: KubeadmControlPlane `status.versions` [v1.34.2]), read as a
/// `DynamicObject`: "kubelet must not be newer than kube-apiserver" (Kubernetes version skew
/// policy). A control plane the Cluster does not name is an error, never judged against.
#[test]
fn skew_gate_refuses_a_kubelet_newer_than_the_control_plane() {
    use capi_machinepool::api::views::Cluster;
    use capi_machinepool::diagnostics::Severity;
    use kube::core::DynamicObject;
    let docs = capi_test_support::yaml_docs("clusters/aws-kubeadm.yaml");
    let doc = |kind: &str| docs.iter().find(|d| d["kind"] == kind).unwrap().clone();
    let cluster: Cluster = serde_json::from_value(doc("Cluster")).unwrap();
    let kcp: DynamicObject = serde_json::from_value(doc("KubeadmControlPlane")).unwrap();
    let pool = v1beta1::FooMachinePool::new("pool", Default::default());
    let found = skew_gate(&pool, &cluster, &kcp, "v1.35.0").unwrap();
    let errors: Vec<_> = found
        .iter()
        .filter(|f| f.severity == Some(Severity::Error))
        .collect();
    assert_eq!(errors.len(), 1, "{found:?}");
    assert!(
        skew_gate(&pool, &cluster, &kcp, "v1.34.2")
            .unwrap()
            .is_empty()
    );

    let mut other = kcp.clone();
    other.metadata.name = Some("other-cp".into());
    let err = skew_gate(&pool, &cluster, &other, "v1.34.2").unwrap_err();
    assert!(
        err.to_string()
            .contains("is not the control plane of Cluster default/prod"),
        "{err}"
    );
}

/// The upgrade gate on the MachinePool owning a FooMachinePool (no MachinePool Machines),
/// right after a version bump as upstream's controller writes it (cluster-api#10059:
/// `observedGeneration` current, `upToDateReplicas = spec.replicas` while every kubelet is
/// still on the old version): pending at both API versions; complete once `status.versions`
/// reports every replica at the new version. The pool is the corpus MachinePool
/// (`corpus/objects/machine-pool.yaml`, from upstream's
/// `test/infrastructure/docker/examples/machine-pool.yaml`) with the FooMachinePool as its
/// infrastructure, a managed pool's `dataSecretName: ""`, and that status.
#[test]
fn upgrade_gate_waits_for_every_kubelet() {
    use capi_machinepool::api::v1beta2::MachinePool;
    use capi_machinepool::conversion::machine_pool::from_hub;
    use capi_machinepool::status::upgrade::{Counter, Pending};
    use foo_provider::upgrade_gate;
    let mut doc = capi_test_support::yaml_docs("corpus/objects/machine-pool.yaml")
        .into_iter()
        .find(|d| d["kind"] == "MachinePool")
        .unwrap();
    doc["metadata"]["generation"] = json!(2);
    let spec = &mut doc["spec"]["template"]["spec"];
    spec["version"] = json!("v1.35.0");
    spec["bootstrap"] = json!({"dataSecretName": ""});
    spec["infrastructureRef"] =
        json!({"apiGroup": foo_provider::GROUP, "kind": "FooMachinePool", "name": "pool"});
    doc["status"] = json!({"observedGeneration": 2, "replicas": 2, "readyReplicas": 2,
        "availableReplicas": 2, "upToDateReplicas": 2,
        "versions": [{"version": "v1.34.2", "replicas": 2}]});
    let started: MachinePool = serde_json::from_value(doc.clone()).unwrap();

    let mut infra = v1beta1::FooMachinePool::new("pool", Default::default());
    infra.metadata.namespace = Some("default".into());
    infra.spec.provider_id_list = vec!["foo://a".into(), "foo://b".into()];
    infra.status = Some(v1beta1::FooMachinePoolStatus {
        initialization: v1beta1::Initialization {
            provisioned: Some(true),
        },
        replicas: 2,
        ..Default::default()
    });
    let now = Time(Timestamp::from_second(1_800_000_000).unwrap());

    // As upstream wrote it, every counter claims the upgrade done; only status.versions says
    // otherwise.
    let upstream = capi_machinepool::status::upgrade_verdict(&started);
    assert!(
        !upstream
            .pending()
            .iter()
            .any(|p| matches!(p, Pending::Counter { .. })),
        "{upstream:?}"
    );
    let verdict = upgrade_gate(&started, &infra, false, &now).unwrap();
    assert!(
        verdict.pending().contains(&Pending::Counter {
            counter: Counter::UpToDate,
            value: Some(0),
            desired: 2
        }),
        "{verdict:?}"
    );
    let resolver = StaticResolver::new().with(
        foo_provider::GROUP,
        "FooMachinePool",
        &format!("{}/v1beta1", foo_provider::GROUP),
    );
    let at_v1beta1 = from_hub(&started, &resolver).unwrap();
    assert_eq!(
        upgrade_gate(&at_v1beta1, &infra, false, &now).unwrap(),
        verdict
    );

    doc["status"]["versions"] = json!([{"version": "v1.35.0", "replicas": 2}]);
    let done: MachinePool = serde_json::from_value(doc).unwrap();
    assert!(
        upgrade_gate(&done, &infra, false, &now)
            .unwrap()
            .is_complete()
    );
    let at_v1beta1 = from_hub(&done, &resolver).unwrap();
    assert!(
        upgrade_gate(&at_v1beta1, &infra, false, &now)
            .unwrap()
            .is_complete()
    );
}
