//! Property: a pool's Node verdict depends only on its own list and the Nodes carrying its
//! listed IDs (issue 29: "adding Nodes or pools that are not given never changes a given
//! pool's verdict"). Upstream's `getNodeReferences` (`core/reconcilers/machinepool/
//! machinepool_controller_noderef.go` line 200 at ae7ff047) only looks up the listed IDs.
//!
//! The expected verdict is derived from how the cluster was generated, not from the code: the
//! pool is clean exactly when every one of its instances got exactly one Node and no instance
//! was listed twice.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_contract::provider_ids::{match_node_objects, match_pools};
use k8s_openapi::api::core::v1::Node;
use proptest::prelude::*;

/// How an instance of a pool appears in the cluster.
#[derive(Clone, Copy, Debug)]
enum Instance {
    /// Listed once, one Node.
    Joined,
    /// Listed once, no Node yet.
    NotJoined,
    /// Listed twice, one Node.
    ListedTwice,
    /// Listed once, two Nodes with its ID.
    TwoNodes,
}

fn instance() -> impl Strategy<Value = Instance> {
    prop_oneof![
        6 => Just(Instance::Joined),
        1 => Just(Instance::NotJoined),
        1 => Just(Instance::ListedTwice),
        1 => Just(Instance::TwoNodes),
    ]
}

/// The ID of instance `i` of pool `p` (an Azure VMSS per pool, as CAPZ lists them).
fn id(p: usize, i: usize) -> String {
    format!(
        "azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/pool-{p}/virtualMachines/{i}"
    )
}

fn node(name: &str, provider_id: &str, control_plane: bool) -> Node {
    let mut v = serde_json::json!({"metadata": {"name": name}, "spec": {"providerID": provider_id},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]}});
    if control_plane {
        v["metadata"]["labels"] = serde_json::json!({"node-role.kubernetes.io/control-plane": ""});
    }
    serde_json::from_value(v).unwrap()
}

/// One pool's list and Nodes, from its instances.
fn pool(p: usize, instances: &[Instance]) -> (Vec<String>, Vec<Node>) {
    let mut list = Vec::new();
    let mut nodes = Vec::new();
    for (i, how) in instances.iter().enumerate() {
        let id = id(p, i);
        list.push(id.clone());
        match how {
            Instance::Joined => nodes.push(node(&format!("p{p}-{i}"), &id, false)),
            Instance::NotJoined => {}
            Instance::ListedTwice => {
                list.push(id.clone());
                nodes.push(node(&format!("p{p}-{i}"), &id, false));
            }
            Instance::TwoNodes => {
                nodes.push(node(&format!("p{p}-{i}-a"), &id, false));
                nodes.push(node(&format!("p{p}-{i}-b"), &id, false));
            }
        }
    }
    (list, nodes)
}

/// Nodes that belong to no given pool: control-plane Nodes, and near misses of pool 0's IDs
/// written with two slashes (not the same ID, so upstream does not match them).
fn unrelated(count: usize, near_misses: usize) -> Vec<Node> {
    let mut out: Vec<Node> = (0..count)
        .map(|i| node(&format!("cp-{i}"), &format!("azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/cp-{i}"), true))
        .collect();
    out.extend((0..near_misses).map(|i| {
        node(
            &format!("near-{i}"),
            &id(0, i).replacen(":///", "://", 1),
            false,
        )
    }));
    out
}

proptest! {
    #[test]
    fn other_pools_and_nodes_never_change_a_pools_verdict(
        pools in prop::collection::vec(prop::collection::vec(instance(), 0..8), 1..5),
        not_given in 0usize..4,
        extra in 0usize..4,
        near in 0usize..3,
        order_seed in any::<u64>(),
    ) {
        let built: Vec<(Vec<String>, Vec<Node>)> =
            pools.iter().enumerate().map(|(p, inst)| pool(p, inst)).collect();
        let expected_clean = pools[0].iter().all(|i| matches!(i, Instance::Joined));
        // Pool 0 alone, with only its own Nodes.
        let alone = match_node_objects(&built[0].0, &built[0].1);
        prop_assert_eq!(alone.is_clean(), expected_clean);
        // The whole cluster: every pool's Nodes, the first `not_given` pools after pool 0 not
        // given, plus control-plane Nodes and near misses, in a shuffled order.
        let mut nodes: Vec<Node> = built.iter().flat_map(|(_, n)| n.clone()).collect();
        nodes.extend(unrelated(extra, near.min(pools[0].len())));
        let len = nodes.len();
        if len > 1 {
            nodes.rotate_left(usize::try_from(order_seed % len as u64).unwrap());
        }
        let given: Vec<&[String]> = built
            .iter()
            .enumerate()
            .filter(|(p, _)| *p == 0 || *p > not_given)
            .map(|(_, (l, _))| l.as_slice())
            .collect();
        let cluster = match_pools(&given, &nodes);
        let r = &cluster.pools[0];
        prop_assert_eq!(r.is_clean(), expected_clean);
        prop_assert_eq!(&r.ids_without_node, &alone.ids_without_node);
        prop_assert_eq!(&r.listed_more_than_once, &alone.listed_more_than_once);
        prop_assert_eq!(r.upstream.node_refs, alone.upstream.node_refs);
        prop_assert_eq!(r.shared_by_nodes.len(), alone.shared_by_nodes.len());
        // Every other given pool gets its own expected verdict too.
        let given_instances = pools
            .iter()
            .enumerate()
            .filter(|(p, _)| *p == 0 || *p > not_given)
            .map(|(_, inst)| inst);
        for (k, inst) in given_instances.enumerate() {
            prop_assert_eq!(
                cluster.pools[k].is_clean(),
                inst.iter().all(|i| matches!(i, Instance::Joined))
            );
        }
        // Control-plane Nodes never look like a pool's.
        prop_assert!(cluster.lookalikes.iter().all(|l| !l.node.name.starts_with("cp-")));
    }
}
