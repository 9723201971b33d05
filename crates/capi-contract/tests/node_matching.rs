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
    UpstreamView, match_node_objects, match_pools, nodes_from_value,
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
    // ip-10-0-3-14 (us-east-1c) is in no list and shares no prefix with a listed ID: no pool's
    // business (getNodeReferences only looks up listed IDs). ip-10-0-1-12 is in no list but
    // looks like this pool's (us-east-1a): information, and the near miss below.
    assert_eq!(r.lookalikes, std::slice::from_ref(&twelve));
    assert_eq!(
        r.near_misses,
        [NearMiss {
            listed: A2.into(),
            node: twelve.clone(),
            differences: vec![Difference::Slashes]
        }]
    );
    // Neither tainted Node matches: the uninitialized warning is only for matched Nodes (the
    // unmatched one is reported through its listed ID without Node and the near miss).
    assert!(r.uninitialized.is_empty());
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

/// Two Nodes sharing one provider ID: `getNodeRefMap` keeps one of them, which one depends on
/// the order of the cached Node list (`r.Client.List` in `getNodeRefMap`, no sort), so the
/// report names both and does not say which one.
#[test]
fn nodes_sharing_an_id_one_of_them() {
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
        }]
    );
    assert!(["old", "new"].contains(&r.matched[0].node.as_str()));
    assert_eq!(r.upstream.node_refs, 1);
    assert!(!r.is_clean());
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

/// (test file line, providerIDList, expected references, expected ready, upstream error)
type UpstreamCase = (
    u32,
    &'static [&'static str],
    &'static [&'static str],
    usize,
    bool,
);

fn cluster_nodes(name: &str) -> Vec<Node> {
    let path = format!(
        "{}/../../tests/fixtures/clusters/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let docs: Vec<Value> =
        serde_saphyr::from_multiple(&std::fs::read_to_string(path).unwrap()).unwrap();
    docs.iter()
        .flat_map(|d| nodes_from_value(d).unwrap())
        .collect()
}

/// Upstream's own table (`TestMachinePoolGetNodeReference`,
/// `core/reconcilers/machinepool/machinepool_controller_noderef_test.go` at ae7ff047): every
/// case looks its list up in a map holding all seven Nodes, most of which the list does not
/// have, and expects no error for them. `getNodeReferences` (`machinepool_controller_noderef.go`
/// line 200) only walks the listed IDs; it fails (`errNoAvailableNodes`, line 228) only when
/// a non-empty list finds no Node at all.
#[test]
fn upstream_noderef_table_unlisted_nodes_are_no_error() {
    let nodes = cluster_nodes("upstream-noderef.yaml");
    assert_eq!(nodes.len(), 7);
    // (test file line, providerIDList, expected references, expected ready, upstream error)
    let cases: [UpstreamCase; 10] = [
        (153, &["aws://us-east-1/id-node-1"], &["node-1"], 1, false),
        (164, &["aws://us-west-2/id-node-2"], &["node-2"], 1, false),
        (175, &["aws://us-west-2/id-node-3"], &["node-3"], 0, false),
        (
            186,
            &["gce://us-central1/gce-id-node-2"],
            &["gce-node-2"],
            1,
            false,
        ),
        (
            197,
            &["azure://westus2/id-node-4"],
            &["azure-node-4"],
            1,
            false,
        ),
        (
            208,
            &["aws://us-east-1/id-node-1", "azure://westus2/id-node-4"],
            &["node-1", "azure-node-4"],
            2,
            false,
        ),
        (220, &["aws:///id-node-100"], &[], 0, true),
        (226, &[], &[], 0, false),
        (
            235,
            &["azure://westus2/id-nodepool1/0"],
            &["azure-nodepool1-0"],
            1,
            false,
        ),
        (
            246,
            &[
                "azure://westus2/id-nodepool1/0",
                "azure://westus2/id-nodepool2/0",
            ],
            &["azure-nodepool1-0", "azure-nodepool2-0"],
            2,
            false,
        ),
    ];
    for (line, list, refs, ready, upstream_error) in cases {
        let r = match_node_objects(list, &nodes);
        assert_eq!(r.upstream.node_refs, refs.len(), "line {line}");
        assert_eq!(r.upstream.ready_replicas, ready, "line {line}");
        let mut names: Vec<&str> = r.matched.iter().map(|m| m.node.as_str()).collect();
        let mut want = refs.to_vec();
        names.sort_unstable();
        want.sort_unstable();
        assert_eq!(names, want, "line {line}");
        // Upstream errs only for the list whose ID has no Node; the other Nodes are no error.
        assert_eq!(r.is_clean(), !upstream_error, "line {line}: {r:?}");
        assert_eq!(
            r.ids_without_node.is_empty(),
            !upstream_error,
            "line {line}"
        );
    }
}

/// The same table as one cluster: every case's list a pool of its own. Each pool's verdict is
/// the one it gets alone, and the Nodes no pool lists are counted, not blamed.
#[test]
fn upstream_noderef_table_as_one_cluster() {
    let nodes = cluster_nodes("upstream-noderef.yaml");
    let lists: [&[&str]; 3] = [
        &["aws://us-east-1/id-node-1"],      // line 153
        &["azure://westus2/id-nodepool1/0"], // line 235
        &["aws:///id-node-100"],             // line 220
    ];
    let cluster = match_pools(&lists, &nodes);
    for (i, list) in lists.iter().enumerate() {
        let alone = match_node_objects(list, &nodes);
        assert_eq!(cluster.pools[i].is_clean(), alone.is_clean(), "pool {i}");
        assert_eq!(cluster.pools[i].matched, alone.matched, "pool {i}");
        assert_eq!(cluster.pools[i].upstream, alone.upstream, "pool {i}");
    }
    assert!(cluster.pools[0].is_clean() && cluster.pools[1].is_clean());
    assert!(!cluster.pools[2].is_clean());
    // 7 Nodes, 2 listed.
    assert_eq!(cluster.unlisted, 5);
    // Prefixes of the listed IDs: aws:us-east-1/, azure:westus2/id-nodepool1/ and aws: (no
    // zone). azure-nodepool2-0 (azure:westus2/id-nodepool2/), node-2 and node-3
    // (aws:us-west-2/) share none: nothing looks like a given pool's.
    assert_eq!(cluster.lookalikes, []);
}

/// A Node whose ID differs from a listed one only by a trailing slash is a near miss
/// (issue 29: "A trailing-slash near miss gets no hint").
#[test]
fn trailing_slash_near_miss() {
    let nodes = [node("n1", Some("aws:///us-east-1a/i-1/"), Some("True"))];
    let r = match_node_objects(&["aws:///us-east-1a/i-1"], &nodes);
    assert_eq!(
        r.near_misses,
        [NearMiss {
            listed: "aws:///us-east-1a/i-1".into(),
            node: node_id("n1", "aws:///us-east-1a/i-1/"),
            differences: vec![Difference::TrailingSlash]
        }]
    );
    assert_eq!(r.lookalikes, [node_id("n1", "aws:///us-east-1a/i-1/")]);
}

/// A matched Node still tainted uninitialized is a warning: upstream's `patchNodes`
/// (`machinepool_controller_noderef.go`) removes the taint from the Nodes it references on the
/// next reconcile. It does not make the pool unclean.
#[test]
fn matched_uninitialized_is_a_warning() {
    let mut n: Value = json!({"metadata": {"name": "n1"},
        "spec": {"providerID": "p://z/1", "taints": [{"key": "node.cluster.x-k8s.io/uninitialized", "effect": "NoSchedule"}]}});
    let tainted: Node = serde_json::from_value(n.take()).unwrap();
    let r = match_node_objects(&["p://z/1"], &[tainted]);
    assert_eq!(r.uninitialized.len(), 1);
    assert!(r.is_clean());
}

/// 10k listed IDs against 10k Nodes written with a different number of slashes (issue 31:
/// "10k IDs x 10k Nodes differing only in slashes take 18-30 s"): the keys are built once.
#[test]
fn ten_thousand_near_misses_well_under_a_second() {
    let list: Vec<String> = (0..10_000)
        .map(|i| format!("aws:///us-east-1a/i-{i:017}"))
        .collect();
    let nodes: Vec<Node> = (0..10_000)
        .map(|i| {
            let id = format!("aws://us-east-1a/i-{i:017}");
            node(&format!("n{i}"), Some(&id), Some("True"))
        })
        .collect();
    let start = std::time::Instant::now();
    let r = match_node_objects(&list, &nodes);
    let took = start.elapsed();
    assert_eq!(r.near_misses.len(), 10_000);
    assert!(
        r.near_misses
            .iter()
            .all(|m| m.differences == [Difference::Slashes])
    );
    // Debug builds are several times slower than release; still well under a second.
    assert!(took < std::time::Duration::from_secs(1), "{took:?}");
}
