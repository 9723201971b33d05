//! Node matching (cluster-api#10541, #8258, #8856) against upstream's MachinePool controller at
//! HEAD of kubernetes-sigs/cluster-api:
//! * `core/reconcilers/machinepool/machinepool_controller_phases.go` `getNodeRefMap`: every Node
//!   keyed by its exact `spec.providerID`, Nodes without one skipped, the last Node of a shared
//!   ID kept (a Go map assignment);
//! * `machinepool_controller_noderef.go` `getNodeReferences`: for each non-empty
//!   `providerIDList` entry with a Node, one Node reference appended and the Node counted in
//!   ready (`noderefutil.IsNodeReady`: `Ready` condition True) — once per occurrence;
//!   `reconcileNodeRefs` then marks the pool's replicas ready when `status.replicas` equals that
//!   count and the number of references;
//! * `patchNodes`: the `node.cluster.x-k8s.io/uninitialized` taint (`NodeUninitializedTaint`,
//!   `api/core/v1beta2/common_types.go`) is dropped only from referenced Nodes.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_contract::provider_ids::{
    Difference, ListedMoreThanOnce, Matched, NearMiss, NodeId, NodesError, SharedByNodes,
    Uninitialized, UpstreamView, match_node_objects, nodes_from_value,
};
use k8s_openapi::api::core::v1::Node;
use serde_json::{Value, json};

fn fixture(name: &str) -> Vec<Value> {
    let path = format!("{}/tests/fixtures/nodes/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_saphyr::from_multiple(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn node_id(name: &str, provider_id: &str) -> NodeId {
    NodeId {
        name: name.into(),
        provider_id: provider_id.into(),
    }
}

const A1: &str = "aws:///us-east-1a/i-0a1b2c3d4e5f60001";
const A2: &str = "aws:///us-east-1a/i-0a1b2c3d4e5f60002";
const B3: &str = "aws:///us-east-1b/i-0a1b2c3d4e5f60003";

#[test]
fn kubectl_node_list_against_the_pool() {
    let pool = &fixture("pool.yaml")[0];
    let list: Vec<String> = serde_json::from_value(pool["spec"]["providerIDList"].clone()).unwrap();
    let nodes = nodes_from_value(&fixture("nodes.yaml")[0]).unwrap();
    assert_eq!(nodes.len(), 5);
    let r = match_node_objects(&list, &nodes);
    assert_eq!(
        r.matched,
        [
            Matched {
                provider_id: A1.into(),
                node: "ip-10-0-1-11.ec2.internal".into(),
                ready: true
            },
            Matched {
                provider_id: B3.into(),
                node: "ip-10-0-2-13.ec2.internal".into(),
                ready: true
            },
        ]
    );
    assert_eq!(r.ids_without_node, [A2]);
    let twelve = node_id(
        "ip-10-0-1-12.ec2.internal",
        "aws://us-east-1a/i-0a1b2c3d4e5f60002",
    );
    assert_eq!(
        r.nodes_not_listed,
        [
            twelve.clone(),
            node_id(
                "ip-10-0-3-14.ec2.internal",
                "aws:///us-east-1c/i-0a1b2c3d4e5f60009"
            )
        ]
    );
    assert_eq!(r.nodes_without_provider_id, ["ip-10-0-3-15.ec2.internal"]);
    assert_eq!(
        r.near_misses,
        [NearMiss {
            listed: A2.into(),
            node: twelve.clone(),
            differences: vec![Difference::Slashes]
        }]
    );
    // Neither tainted Node matches, so upstream's patchNodes never drops the taint (#10541).
    assert_eq!(
        r.uninitialized,
        [
            Uninitialized {
                node: twelve,
                matched: false
            },
            Uninitialized {
                node: node_id("ip-10-0-3-15.ec2.internal", ""),
                matched: false
            },
        ]
    );
    assert_eq!(
        r.listed_more_than_once,
        [ListedMoreThanOnce {
            provider_id: B3.into(),
            occurrences: 2,
            node: Some("ip-10-0-2-13.ec2.internal".into())
        }]
    );
    assert!(r.shared_by_nodes.is_empty());
    // A1 once, B3 twice: three references to two Nodes, three "ready replicas".
    assert_eq!(
        r.upstream,
        UpstreamView {
            node_refs: 3,
            distinct_nodes: 2,
            ready_replicas: 3
        }
    );
    assert!(!r.is_clean());
}

fn node(name: &str, provider_id: Option<&str>, ready: Option<&str>) -> Node {
    let mut v = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, "spec": {}});
    if let Some(p) = provider_id {
        v["spec"]["providerID"] = json!(p);
    }
    if let Some(s) = ready {
        v["status"] = json!({"conditions": [{"type": "Ready", "status": s}]});
    }
    serde_json::from_value(v).unwrap()
}

/// A duplicated entry makes a pool with an instance that never joined look ready: three
/// replicas, two Nodes, upstream counts three ready replicas and three references
/// (`reconcileNodeRefs` then marks ReplicasReady).
#[test]
fn duplicate_entry_makes_the_pool_look_ready() {
    let nodes = [
        node("n1", Some("p://1"), Some("True")),
        node("n2", Some("p://2"), Some("True")),
    ];
    let r = match_node_objects(&["p://1", "p://2", "p://2"], &nodes);
    let replicas = 3;
    assert_eq!(r.upstream.ready_replicas, replicas);
    assert_eq!(r.upstream.node_refs, replicas);
    assert_eq!(r.upstream.distinct_nodes, 2);
    assert_eq!(r.listed_more_than_once[0].occurrences, 2);
}

/// "Last one wins" holds for two Nodes sharing one provider ID (`getNodeRefMap`), not for a
/// duplicated list entry.
#[test]
fn nodes_sharing_an_id_keep_the_last() {
    let nodes = [
        node("old", Some("p://1"), Some("False")),
        node("new", Some("p://1"), Some("True")),
    ];
    let r = match_node_objects(&["p://1"], &nodes);
    assert_eq!(
        r.shared_by_nodes,
        [SharedByNodes {
            provider_id: "p://1".into(),
            nodes: vec!["old".into(), "new".into()],
            kept: "new".into()
        }]
    );
    assert_eq!(r.matched[0].node, "new");
    assert_eq!(r.upstream.ready_replicas, 1);
}

/// Table of upstream's skip and readiness rules.
#[test]
fn upstream_rules() {
    // (list, nodes, expected upstream view)
    let cases: Vec<(Vec<&str>, Vec<Node>, UpstreamView)> = vec![
        // getNodeReferences skips empty entries.
        (
            vec!["", "p://1"],
            vec![node("n1", Some("p://1"), Some("True"))],
            UpstreamView {
                node_refs: 1,
                distinct_nodes: 1,
                ready_replicas: 1,
            },
        ),
        // getNodeRefMap skips Nodes without providerID: nothing matches "".
        (
            vec!["p://1"],
            vec![node("n1", None, Some("True"))],
            UpstreamView::default(),
        ),
        // IsNodeReady: Ready False, or no Ready condition, is not ready; still referenced.
        (
            vec!["p://1", "p://2"],
            vec![
                node("n1", Some("p://1"), Some("False")),
                node("n2", Some("p://2"), None),
            ],
            UpstreamView {
                node_refs: 2,
                distinct_nodes: 2,
                ready_replicas: 0,
            },
        ),
        // Exact match only: case differs, no reference.
        (
            vec!["p://Node-1"],
            vec![node("n1", Some("p://node-1"), Some("True"))],
            UpstreamView::default(),
        ),
    ];
    for (list, nodes, want) in cases {
        assert_eq!(match_node_objects(&list, &nodes).upstream, want, "{list:?}");
    }
}

#[test]
fn documents_with_nodes() {
    let one = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}});
    assert_eq!(nodes_from_value(&one).unwrap().len(), 1);
    let list =
        json!({"apiVersion": "v1", "kind": "NodeList", "items": [{"metadata": {"name": "n1"}}]});
    assert_eq!(nodes_from_value(&list).unwrap().len(), 1);
    let pod = json!({"apiVersion": "v1", "kind": "List", "items": [{"kind": "Pod"}]});
    assert!(matches!(
        nodes_from_value(&pod),
        Err(NodesError::NotANode { index: 0, .. })
    ));
    let other = json!({"kind": "MachinePool"});
    assert_eq!(
        nodes_from_value(&other).unwrap_err().to_string(),
        r#"expected a Node, a NodeList or a List of Nodes, found kind "MachinePool""#
    );
}
