//! The Node part of the upgrade gate (`upgrade_verdict_with_nodes`, and `verdict_with_nodes_of`
//! on a v1beta1 pool) against upstream's own upgrade check of a MachinePool, run by the Go
//! oracle (`tests/go/oracle`, Cluster API v1.14.2): `exp/topology/scope`
//! `MachinePoolState.IsUpgrading`, which calls `internal/topology/check`
//! `IsMachinePoolUpgrading` (lines 68-90 at ae7ff047) with the Nodes behind a fake client.
//!
//! Upstream walks `status.nodeRefs` in order and stops at the first Node that is missing (an
//! error) or whose `status.nodeInfo.kubeletVersion` differs from
//! `spec.template.spec.version` (upgrading); a pool without a template version is never
//! upgrading. Ours lists every such Node, in the same order: its first Node finding must be
//! upstream's answer (`NodeNotFound` for the error, `NodeBehind` for upgrading, none for not
//! upgrading).
//!
//! Two differences are chosen, documented in `docs/rollout-safety.md` ("The upgrade gate on
//! MachinePool Machines"), and derived here from the generator, not from the code: upstream
//! compares the strings, so a kubelet reporting its release with a vendor build suffix
//! (`v1.33.4-eks-5e0fdde`, as EKS nodes do) or without the leading `v` would keep the pool
//! upgrading forever. The expectation is upstream's answer on the Nodes with the generated
//! suffix and prefix taken off (the generator knows which it added); a Kubernetes pre-release
//! (`-rc.1`) is another version and is kept.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_machinepool_api::v1beta2::MachinePool;
use capi_machinepool_conversion::StaticResolver;
use capi_machinepool_conversion::machine_pool::from_hub;
use capi_machinepool_status::typed::verdict_with_nodes_of;
use capi_machinepool_status::upgrade::{Pending, UpgradeVerdict, upgrade_verdict_with_nodes};
use capi_test_support::oracle::{Answer, oracle};
use k8s_openapi::api::core::v1::Node;
use proptest::prelude::*;
use serde_json::{Value, json};

/// How a generated kubelet version relates to the pool's template version.
#[derive(Clone, Copy, Debug)]
enum Kubelet {
    /// The template version, as written.
    Same,
    /// The template version without its leading `v`.
    WithoutV,
    /// The template version with a vendor build suffix.
    Vendor(&'static str),
    /// The template version as a Kubernetes pre-release: another version.
    PreRelease,
    /// Another release (one patch or minor away).
    Other(u8, u8),
    /// No kubelet version reported.
    Empty,
}

impl Kubelet {
    /// The version the Node reports, for a template version `desired` (`vMAJOR.MINOR.PATCH`).
    fn reported(self, desired: &str) -> String {
        match self {
            Self::Same => desired.to_owned(),
            Self::WithoutV => desired.trim_start_matches('v').to_owned(),
            Self::Vendor(suffix) => format!("{desired}-{suffix}"),
            Self::PreRelease => format!("{desired}-rc.1"),
            Self::Other(minor, patch) => format!("v1.{minor}.{patch}"),
            Self::Empty => String::new(),
        }
    }

    /// The version upstream is asked about: what we read the Node as running, written as the
    /// pool writes its version.
    fn normalised(self, desired: &str) -> String {
        match self {
            Self::WithoutV | Self::Vendor(_) => desired.to_owned(),
            other => other.reported(desired),
        }
    }
}

fn kubelet() -> impl Strategy<Value = Kubelet> {
    prop_oneof![
        3 => Just(Kubelet::Same),
        1 => Just(Kubelet::WithoutV),
        1 => prop::sample::select(vec!["eks-5e0fdde", "gke.1589018"]).prop_map(Kubelet::Vendor),
        1 => Just(Kubelet::PreRelease),
        1 => (30u8..34, 0u8..3).prop_map(|(m, p)| Kubelet::Other(m, p)),
        1 => Just(Kubelet::Empty),
    ]
}

/// One Node reference of the pool: the Node's kubelet, or `None` when the Node is not among
/// the Nodes given.
fn node_ref() -> impl Strategy<Value = Option<Kubelet>> {
    prop_oneof![6 => kubelet().prop_map(Some), 1 => Just(None)]
}

fn pool(desired: &str, refs: usize) -> MachinePool {
    let node_refs: Vec<Value> = (0..refs)
        .map(|i| json!({"kind": "Node", "name": format!("node-{i}")}))
        .collect();
    serde_json::from_value(json!({
        "apiVersion": "cluster.x-k8s.io/v1beta2",
        "kind": "MachinePool",
        "metadata": {"name": "pool", "namespace": "default", "generation": 1},
        "spec": {"clusterName": "c", "replicas": refs, "template": {"spec": {
            "clusterName": "c", "version": desired,
            "bootstrap": {"dataSecretName": "boot"},
            "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io",
                "kind": "DevMachinePool", "name": "pool"}}}},
        "status": {"observedGeneration": 1, "nodeRefs": node_refs}
    }))
    .unwrap()
}

fn node(name: &str, kubelet: &str) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name},
        "status": {"nodeInfo": {"kubeletVersion": kubelet, "architecture": "amd64",
            "bootID": "", "containerRuntimeVersion": "", "kernelVersion": "",
            "kubeProxyVersion": "", "machineID": "", "operatingSystem": "linux",
            "osImage": "", "systemUUID": ""}}
    })
}

/// What the Nodes say about a pool's upgrade.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Gate {
    /// Every referenced Node runs the template version.
    Done,
    /// A Node runs another version.
    Upgrading,
    /// A referenced Node is not among the Nodes (upstream: an error).
    NodeMissing,
}

/// Upstream's answer (`None` without a Go toolchain, where Go is not required).
fn upstream(pool: &MachinePool, nodes: &[Value]) -> Option<Gate> {
    let answer = oracle()?.call(&json!({
        "op": "machinepool-upgrading",
        "machinePool": pool,
        "nodes": nodes,
    }));
    Some(match answer {
        Answer::Ok { value, .. } if value["upgrading"] == true => Gate::Upgrading,
        Answer::Ok { .. } => Gate::Done,
        Answer::Err(e) => {
            assert!(e.contains("failed to get Node"), "unexpected error: {e}");
            Gate::NodeMissing
        }
    })
}

/// Ours, read as upstream answers: the first Node finding of the verdict.
fn ours(verdict: &UpgradeVerdict) -> Gate {
    verdict
        .pending()
        .iter()
        .find_map(|p| match p {
            Pending::NodeNotFound { .. } => Some(Gate::NodeMissing),
            Pending::NodeBehind { .. } => Some(Gate::Upgrading),
            _ => None,
        })
        .unwrap_or(Gate::Done)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(capi_test_support::proptest_cases(512)))]

    #[test]
    fn node_check_is_upstreams_on_what_the_nodes_run(
        desired in prop_oneof![4 => (30u8..34, 0u8..3).prop_map(|(m, p)| format!("v1.{m}.{p}")), 1 => Just(String::new())],
        refs in prop::collection::vec(node_ref(), 0..5),
    ) {
        if oracle().is_none() {
            return Ok(());
        }
        let pool = pool(&desired, refs.len());
        let nodes_of = |normalise: bool| -> Vec<Value> {
            refs.iter()
                .enumerate()
                .filter_map(|(i, k)| {
                    let k = (*k)?;
                    let version = if normalise { k.normalised(&desired) } else { k.reported(&desired) };
                    Some(node(&format!("node-{i}"), &version))
                })
                .collect()
        };
        let reported = nodes_of(false);
        let typed: Vec<Node> = reported.iter().map(|n| serde_json::from_value(n.clone()).unwrap()).collect();

        // Upstream on what the Nodes run (the documented differences taken off).
        let expected = upstream(&pool, &nodes_of(true));
        let verdict = upgrade_verdict_with_nodes(&pool, &typed);
        prop_assert_eq!(Some(ours(&verdict)), expected, "verdict {:?}", verdict);

        // The same pool served at v1beta1 reads the same.
        let resolver = StaticResolver::new().with(
            "infrastructure.cluster.x-k8s.io",
            "DevMachinePool",
            "infrastructure.cluster.x-k8s.io/v1beta2",
        );
        let v1beta1 = from_hub(&pool, &resolver).unwrap();
        let at_v1beta1 = verdict_with_nodes_of(&v1beta1, &typed).unwrap();
        prop_assert_eq!(ours(&at_v1beta1), ours(&verdict));

        // Where nothing was taken off, upstream's answer on the reported versions is the same.
        let exact = refs.iter().flatten().all(|k| !matches!(k, Kubelet::WithoutV | Kubelet::Vendor(_)));
        if exact {
            prop_assert_eq!(upstream(&pool, &reported), expected);
        }
    }
}

/// The difference on its own: an EKS Node reporting `v1.33.4-eks-5e0fdde` for a pool at
/// `v1.33.4` keeps upstream's check upgrading forever; ours reads it as running v1.33.4.
#[test]
fn vendor_suffix_is_where_we_differ() {
    let pool = pool("v1.33.4", 1);
    let nodes = [node("node-0", "v1.33.4-eks-5e0fdde")];
    if let Some(gate) = upstream(&pool, &nodes) {
        assert_eq!(gate, Gate::Upgrading, "upstream compares the strings");
    }
    let typed: Vec<Node> = nodes
        .iter()
        .map(|n| serde_json::from_value(n.clone()).unwrap())
        .collect();
    assert_eq!(ours(&upgrade_verdict_with_nodes(&pool, &typed)), Gate::Done);
}
