//! Matching a `providerIDList` with k8s-openapi `Node` objects, and what upstream's MachinePool
//! controller makes of the result (cluster-api#10541, #8258, #8856).
//!
//! Upstream (`core/reconcilers/machinepool/`):
//! * `getNodeRefMap` (`machinepool_controller_phases.go`) lists every Node of the workload
//!   cluster and keys it by its exact `spec.providerID`, skipping Nodes without one; two Nodes
//!   sharing an ID leave the one listed last.
//! * `getNodeReferences` (`machinepool_controller_noderef.go`) walks the `providerIDList`: for
//!   each non-empty entry with a Node it appends a Node reference and counts the Node in the
//!   deprecated ready (and available) replicas, once per occurrence of the entry.
//! * `patchNodes` drops the `node.cluster.x-k8s.io/uninitialized` taint only from the Nodes it
//!   referenced: a Node that never matches keeps it, and the pool never gets ready (#10541).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::Node;
use serde::Serialize;

/// The taint the kubeadm bootstrap provider puts on new Nodes and the MachinePool controller
/// drops once the Node is matched (`NodeUninitializedTaint`, `api/core/v1beta2/common_types.go`).
pub const UNINITIALIZED_TAINT: &str = "node.cluster.x-k8s.io/uninitialized";

/// A Node, by name and provider ID.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeId {
    /// `metadata.name`.
    pub name: String,
    /// `spec.providerID`.
    #[serde(rename = "providerID")]
    pub provider_id: String,
}

/// A listed ID whose Node upstream finds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Matched {
    /// The listed ID.
    #[serde(rename = "providerID")]
    pub provider_id: String,
    /// The Node upstream references (the last one listed when several share the ID).
    pub node: String,
    /// The Node's `Ready` condition is True (upstream's `noderefutil.IsNodeReady`).
    pub ready: bool,
}

/// How a near miss differs from the listed ID.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Difference {
    /// Leading or trailing whitespace.
    Whitespace,
    /// Upper and lower case.
    Case,
    /// The number of slashes after the scheme (`aws:///zone/i-1` vs `aws://zone/i-1`).
    Slashes,
}

/// A listed ID without a Node, and an unlisted Node ID that differs only in whitespace, case
/// or slashes after the scheme: probably the same instance, written differently by the
/// provider and by the cloud controller manager.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NearMiss {
    /// The listed ID.
    pub listed: String,
    /// The Node.
    pub node: NodeId,
    /// What differs.
    pub differences: Vec<Difference>,
}

/// An ID listed more than once.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListedMoreThanOnce {
    /// The ID.
    #[serde(rename = "providerID")]
    pub provider_id: String,
    /// How often it is listed.
    pub occurrences: usize,
    /// Its Node, when one has it: upstream references it `occurrences` times.
    pub node: Option<String>,
}

/// A provider ID several Nodes have.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedByNodes {
    /// The ID.
    #[serde(rename = "providerID")]
    pub provider_id: String,
    /// The Nodes, in the order given.
    pub nodes: Vec<String>,
    /// The one upstream keeps (the last).
    pub kept: String,
}

/// A Node still carrying [`UNINITIALIZED_TAINT`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Uninitialized {
    /// The Node.
    pub node: NodeId,
    /// The Node matches a listed ID (upstream should drop the taint on its next reconcile);
    /// when false, it never will (cluster-api#10541).
    pub matched: bool,
}

/// What upstream's controller computes from the list and the Nodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UpstreamView {
    /// Length of `status.nodeRefs` (one per listed occurrence with a Node).
    pub node_refs: usize,
    /// Distinct Nodes among them.
    pub distinct_nodes: usize,
    /// `status.deprecated.v1beta1.readyReplicas`: occurrences whose Node is Ready.
    pub ready_replicas: usize,
}

/// The outcome of matching a `providerIDList` with Node objects. Every list is sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeReport {
    /// Listed IDs with their Node.
    pub matched: Vec<Matched>,
    /// Listed IDs no Node has (instances not joined yet, gone, or written differently).
    pub ids_without_node: Vec<String>,
    /// Nodes with a provider ID the list does not have (the autoscaler will not scale them
    /// down).
    pub nodes_not_listed: Vec<NodeId>,
    /// Nodes without `spec.providerID` (the cloud controller manager has not set it; upstream
    /// skips them, cluster-api#9151).
    pub nodes_without_provider_id: Vec<String>,
    /// Hints pairing [`Self::ids_without_node`] with [`Self::nodes_not_listed`].
    pub near_misses: Vec<NearMiss>,
    /// Nodes still carrying [`UNINITIALIZED_TAINT`].
    pub uninitialized: Vec<Uninitialized>,
    /// IDs listed more than once.
    pub listed_more_than_once: Vec<ListedMoreThanOnce>,
    /// IDs more than one Node has.
    pub shared_by_nodes: Vec<SharedByNodes>,
    /// Upstream's counters for this list and these Nodes.
    pub upstream: UpstreamView,
}

impl NodeReport {
    /// True when every listed ID has exactly one Node, listed once, every Node with a provider
    /// ID is listed, and no Node carries the uninitialized taint.
    #[must_use]
    pub fn is_clean(&self) -> bool {
        self.ids_without_node.is_empty()
            && self.nodes_not_listed.is_empty()
            && self.uninitialized.is_empty()
            && self.listed_more_than_once.is_empty()
            && self.shared_by_nodes.is_empty()
    }
}

/// `metadata.name` of a Node.
fn node_name(node: &Node) -> &str {
    node.metadata.name.as_deref().unwrap_or_default()
}

/// `spec.providerID` of a Node (empty when unset).
fn node_provider_id(node: &Node) -> &str {
    node.spec
        .as_ref()
        .and_then(|s| s.provider_id.as_deref())
        .unwrap_or_default()
}

/// Upstream's `noderefutil.IsNodeReady`: the `Ready` condition is True.
fn node_ready(node: &Node) -> bool {
    node.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|c| c.iter().find(|c| c.type_ == "Ready"))
        .is_some_and(|c| c.status == "True")
}

fn has_uninitialized_taint(node: &Node) -> bool {
    node.spec
        .as_ref()
        .and_then(|s| s.taints.as_ref())
        .is_some_and(|t| t.iter().any(|t| t.key == UNINITIALIZED_TAINT))
}

/// Upstream's `getNodeRefMap`: Nodes keyed by exact provider ID, the last one winning.
fn node_map(nodes: &[Node]) -> BTreeMap<&str, &Node> {
    nodes
        .iter()
        .filter(|n| !node_provider_id(n).is_empty())
        .map(|n| (node_provider_id(n), n))
        .collect()
}

/// Upstream's `getNodeReferences`, counted.
fn upstream_view(list: &[&str], map: &BTreeMap<&str, &Node>) -> UpstreamView {
    let referenced: Vec<&Node> = list.iter().filter_map(|id| map.get(id).copied()).collect();
    let distinct: BTreeSet<&str> = referenced.iter().map(|n| node_name(n)).collect();
    UpstreamView {
        node_refs: referenced.len(),
        distinct_nodes: distinct.len(),
        ready_replicas: referenced.iter().filter(|n| node_ready(n)).count(),
    }
}

/// The scheme of an ID and what follows its `:` without the leading slashes.
fn split_scheme(id: &str) -> (&str, &str) {
    match id.split_once(':') {
        Some((scheme, rest)) => (scheme, rest.trim_start_matches('/')),
        None => ("", id),
    }
}

/// Number of slashes right after the scheme's `:`.
fn slashes_after_scheme(id: &str) -> usize {
    id.split_once(':').map_or(0, |(_, rest)| {
        rest.len() - rest.trim_start_matches('/').len()
    })
}

/// The key near misses share: trimmed, lower case, slashes after the scheme dropped.
fn near_miss_key(id: &str) -> String {
    let (scheme, rest) = split_scheme(id.trim());
    format!("{}:{}", scheme.to_lowercase(), rest.to_lowercase())
}

/// How two IDs with the same [`near_miss_key`] differ.
fn differences(listed: &str, node: &str) -> Vec<Difference> {
    let mut out = Vec::new();
    if listed.trim() != listed || node.trim() != node {
        out.push(Difference::Whitespace);
    }
    let (a, b) = (listed.trim(), node.trim());
    let (sa, ra) = split_scheme(a);
    let (sb, rb) = split_scheme(b);
    if sa != sb || ra != rb {
        out.push(Difference::Case);
    }
    if slashes_after_scheme(a) != slashes_after_scheme(b) {
        out.push(Difference::Slashes);
    }
    out
}

fn near_misses(without_node: &[String], not_listed: &[NodeId]) -> Vec<NearMiss> {
    let mut out = Vec::new();
    for listed in without_node {
        let key = near_miss_key(listed);
        for node in not_listed
            .iter()
            .filter(|n| near_miss_key(&n.provider_id) == key)
        {
            out.push(NearMiss {
                listed: listed.clone(),
                node: node.clone(),
                differences: differences(listed, &node.provider_id),
            });
        }
    }
    out
}

fn listed_more_than_once(list: &[&str], map: &BTreeMap<&str, &Node>) -> Vec<ListedMoreThanOnce> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for id in list {
        *counts.entry(id).or_insert(0) += 1;
    }
    counts
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(id, occurrences)| ListedMoreThanOnce {
            provider_id: id.to_owned(),
            occurrences,
            node: map.get(id).map(|n| node_name(n).to_owned()),
        })
        .collect()
}

fn shared_by_nodes(nodes: &[Node]) -> Vec<SharedByNodes> {
    let mut by_id: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for n in nodes.iter().filter(|n| !node_provider_id(n).is_empty()) {
        by_id
            .entry(node_provider_id(n))
            .or_default()
            .push(node_name(n).to_owned());
    }
    by_id
        .into_iter()
        .filter_map(|(id, nodes)| {
            let kept = nodes.last()?.clone();
            (nodes.len() > 1).then(|| SharedByNodes {
                provider_id: id.to_owned(),
                nodes,
                kept,
            })
        })
        .collect()
}

fn node_id(node: &Node) -> NodeId {
    NodeId {
        name: node_name(node).to_owned(),
        provider_id: node_provider_id(node).to_owned(),
    }
}

/// Matches a `providerIDList` with Node objects (as `kubectl get nodes -o yaml` or
/// `kube::Api::<Node>` returns them, in that order), the way upstream's MachinePool controller
/// does, and explains the result. Empty list entries are ignored, as upstream does.
///
/// ```
/// use capi_contract::provider_ids::match_node_objects;
/// use k8s_openapi::api::core::v1::Node;
/// let node: Node = serde_json::from_value(serde_json::json!({
///     "metadata": {"name": "ip-10-0-1-7"}, "spec": {"providerID": "aws:///us-east-1a/i-0abc"},
///     "status": {"conditions": [{"type": "Ready", "status": "True"}]}})).unwrap();
/// let report = match_node_objects(&["aws:///us-east-1a/i-0abc", "aws:///us-east-1a/i-0abc"], &[node]);
/// // Listed twice: upstream references the Node twice and counts it as two ready replicas.
/// assert_eq!(report.upstream.ready_replicas, 2);
/// assert_eq!(report.upstream.distinct_nodes, 1);
/// assert_eq!(report.listed_more_than_once[0].occurrences, 2);
/// ```
#[must_use]
pub fn match_node_objects<S: AsRef<str>>(list: &[S], nodes: &[Node]) -> NodeReport {
    let list: Vec<&str> = list
        .iter()
        .map(AsRef::as_ref)
        .filter(|id| !id.is_empty())
        .collect();
    let listed: BTreeSet<&str> = list.iter().copied().collect();
    let map = node_map(nodes);
    let matched = listed
        .iter()
        .filter_map(|id| {
            map.get(id).map(|n| Matched {
                provider_id: (*id).to_owned(),
                node: node_name(n).to_owned(),
                ready: node_ready(n),
            })
        })
        .collect();
    let ids_without_node: Vec<String> = listed
        .iter()
        .filter(|id| !map.contains_key(*id))
        .map(|id| (*id).to_owned())
        .collect();
    let mut nodes_not_listed: Vec<NodeId> = nodes
        .iter()
        .filter(|n| !node_provider_id(n).is_empty() && !listed.contains(node_provider_id(n)))
        .map(node_id)
        .collect();
    nodes_not_listed.sort();
    let mut nodes_without_provider_id: Vec<String> = nodes
        .iter()
        .filter(|n| node_provider_id(n).is_empty())
        .map(|n| node_name(n).to_owned())
        .collect();
    nodes_without_provider_id.sort();
    let mut uninitialized: Vec<Uninitialized> = nodes
        .iter()
        .filter(|n| has_uninitialized_taint(n))
        .map(|n| Uninitialized {
            node: node_id(n),
            matched: listed.contains(node_provider_id(n)),
        })
        .collect();
    uninitialized.sort_by(|a, b| a.node.cmp(&b.node));
    NodeReport {
        matched,
        near_misses: near_misses(&ids_without_node, &nodes_not_listed),
        ids_without_node,
        nodes_not_listed,
        nodes_without_provider_id,
        uninitialized,
        listed_more_than_once: listed_more_than_once(&list, &map),
        shared_by_nodes: shared_by_nodes(nodes),
        upstream: upstream_view(&list, &map),
    }
}

/// A document that is not a Node, a NodeList or a `List` of Nodes.
#[derive(Debug, thiserror::Error)]
pub enum NodesError {
    /// The document has another kind.
    #[error("expected a Node, a NodeList or a List of Nodes, found kind {kind:?}")]
    NotNodes {
        /// Its kind.
        kind: String,
    },
    /// An item of a list has another kind.
    #[error("item {index} of the list is a {kind:?}, not a Node")]
    NotANode {
        /// Index of the item.
        index: usize,
        /// Its kind.
        kind: String,
    },
    /// A Node does not deserialize.
    #[error("Node {index}: {source}")]
    Invalid {
        /// Index of the Node (0 for a single Node).
        index: usize,
        /// The serde error.
        source: serde_json::Error,
    },
}

fn kind_of(value: &serde_json::Value) -> &str {
    value["kind"].as_str().unwrap_or_default()
}

fn parse_node(index: usize, value: &serde_json::Value) -> Result<Node, NodesError> {
    serde_json::from_value(value.clone()).map_err(|source| NodesError::Invalid { index, source })
}

/// The Nodes of one document: a `Node`, a `NodeList`, or the `List` `kubectl get nodes -o yaml`
/// prints (items without a kind are taken as Nodes, as in a `NodeList`).
///
/// # Errors
/// [`NodesError`] when the document, or an item, is not a Node.
pub fn nodes_from_value(value: &serde_json::Value) -> Result<Vec<Node>, NodesError> {
    match kind_of(value) {
        "Node" => Ok(vec![parse_node(0, value)?]),
        "NodeList" | "List" => value["items"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .enumerate()
            .map(|(index, item)| match kind_of(item) {
                "" | "Node" => parse_node(index, item),
                other => Err(NodesError::NotANode {
                    index,
                    kind: other.to_owned(),
                }),
            })
            .collect(),
        other => Err(NodesError::NotNodes {
            kind: other.to_owned(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_miss_keys_and_differences() {
        let cases = [
            (
                "aws:///us-east-1a/i-1",
                "aws://us-east-1a/i-1",
                vec![Difference::Slashes],
            ),
            (
                "azure:///subscriptions/S/VMSS/0",
                "azure:///subscriptions/s/vmss/0",
                vec![Difference::Case],
            ),
            (" gce://p/z/n ", "gce://p/z/n", vec![Difference::Whitespace]),
            (
                "AWS:///z/i-1",
                "aws:////z/i-1",
                vec![Difference::Case, Difference::Slashes],
            ),
        ];
        for (a, b, want) in cases {
            assert_eq!(near_miss_key(a), near_miss_key(b), "{a} / {b}");
            assert_eq!(differences(a, b), want, "{a} / {b}");
        }
        assert_ne!(near_miss_key("aws:///z/i-1"), near_miss_key("aws:///z/i-2"));
    }
}
