//! Matching `providerIDList`s with k8s-openapi `Node` objects, and what upstream's MachinePool
//! controller makes of the result (cluster-api#10541, #8258, #8856).
//!
//! Upstream (`core/reconcilers/machinepool/`):
//! * `getNodeRefMap` (`machinepool_controller_phases.go`) lists every Node of the workload
//!   cluster and keys it by its exact `spec.providerID`, skipping Nodes without one; of two
//!   Nodes sharing an ID one is kept, which one depends on the order of a cached list that
//!   upstream does not fix.
//! * `getNodeReferences` (`machinepool_controller_noderef.go`) walks the `providerIDList`: for
//!   each non-empty entry with a Node it appends a Node reference and counts the Node in the
//!   deprecated ready (and available) replicas, once per occurrence of the entry. It only
//!   looks up the listed IDs: a Node no pool lists (a control-plane Node, another pool's Node)
//!   is nobody's error.
//! * `patchNodes` drops the `node.cluster.x-k8s.io/uninitialized` taint only from the Nodes it
//!   referenced: a Node that never matches keeps it, and the pool never gets ready (#10541).
//!
//! [`match_pools`] matches every pool of a cluster against one Node list at once (the keys it
//! compares are built once, so 10k IDs against 10k Nodes take milliseconds);
//! [`match_node_objects`] is the one-pool case.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use k8s_openapi::api::core::v1::Node;
use serde::Serialize;

/// The taint the kubeadm bootstrap provider puts on new Nodes and the MachinePool controller
/// drops once the Node is matched (`NodeUninitializedTaint`, `api/core/v1beta2/common_types.go`).
pub const UNINITIALIZED_TAINT: &str = "node.cluster.x-k8s.io/uninitialized";

/// Labels that mark a control-plane Node (kubeadm sets the first; the second is the pre-1.24
/// name). Cluster API MachinePools hold workers, so such a Node never looks like a pool's.
const CONTROL_PLANE_LABELS: [&str; 2] = [
    "node-role.kubernetes.io/control-plane",
    "node-role.kubernetes.io/master",
];

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
    /// The Node upstream references (one of them when several share the ID).
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
    /// A trailing slash (`aws:///zone/i-1/` vs `aws:///zone/i-1`).
    TrailingSlash,
}

/// A listed ID without a Node, and a Node no given pool lists whose ID differs only in
/// whitespace, case, slashes after the scheme or a trailing slash: probably the same instance,
/// written differently by the provider and by the cloud controller manager.
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

/// A listed provider ID several Nodes have: upstream references one of them, which one depends
/// on the order of its cached Node list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedByNodes {
    /// The ID.
    #[serde(rename = "providerID")]
    pub provider_id: String,
    /// The Nodes, in the order given.
    pub nodes: Vec<String>,
}

/// A matched Node still carrying [`UNINITIALIZED_TAINT`]: upstream's `patchNodes` removes it on
/// its next reconcile, so this is a warning unless something shows the controller is stuck.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Uninitialized {
    /// The Node.
    pub node: NodeId,
}

/// A Node that no given pool lists but that looks like one of them: its provider ID has the
/// prefix (everything up to the last `/`, compared like a near miss) of a listed ID, and it is
/// not a control-plane Node. Either an instance the provider has not listed yet, or a Node of
/// a pool that was not given.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Lookalike {
    /// The Node.
    pub node: NodeId,
    /// Indexes of the given pools it looks like.
    pub pools: Vec<usize>,
    /// It still carries [`UNINITIALIZED_TAINT`] (no pool lists it, so upstream never removes
    /// it).
    pub uninitialized: bool,
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

impl UpstreamView {
    /// True when upstream reports the pool's replicas ready (`status.replicas` equals both
    /// its ready replicas and its Node references) although fewer distinct Nodes exist: a
    /// provider ID listed twice counts one Node twice (upstream's `getNodeReferences` appends
    /// one reference per listed occurrence).
    ///
    /// ```
    /// use capi_contract::provider_ids::UpstreamView;
    /// let view = UpstreamView { node_refs: 3, distinct_nodes: 2, ready_replicas: 3 };
    /// assert!(view.overcounts_ready(Some(3)));
    /// assert!(!view.overcounts_ready(Some(2)) && !view.overcounts_ready(None));
    /// ```
    #[must_use]
    pub fn overcounts_ready(&self, status_replicas: Option<i64>) -> bool {
        let looks_ready = status_replicas.is_some_and(|n| {
            usize::try_from(n).is_ok_and(|n| n == self.ready_replicas && n == self.node_refs)
        });
        looks_ready && self.distinct_nodes < self.node_refs
    }
}

/// The outcome of matching one pool's `providerIDList` with Node objects. Every list is sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeReport {
    /// Listed IDs with their Node.
    pub matched: Vec<Matched>,
    /// Listed IDs no Node has (instances not joined yet, gone, or written differently).
    pub ids_without_node: Vec<String>,
    /// Nodes without `spec.providerID` (the cloud controller manager has not set it; upstream
    /// skips them, cluster-api#9151). The same for every pool of a cluster.
    pub nodes_without_provider_id: Vec<String>,
    /// Hints pairing [`Self::ids_without_node`] with Nodes no given pool lists.
    pub near_misses: Vec<NearMiss>,
    /// Matched Nodes still carrying [`UNINITIALIZED_TAINT`] (a warning).
    pub uninitialized: Vec<Uninitialized>,
    /// IDs listed more than once.
    pub listed_more_than_once: Vec<ListedMoreThanOnce>,
    /// Listed IDs more than one Node has.
    pub shared_by_nodes: Vec<SharedByNodes>,
    /// Nodes no given pool lists that look like this pool's (information, not an error).
    pub lookalikes: Vec<NodeId>,
    /// Upstream's counters for this list and these Nodes.
    pub upstream: UpstreamView,
}

impl NodeReport {
    /// True when every listed ID has exactly one Node and is listed once. Nodes the list does
    /// not have are no error (upstream's `getNodeReferences` only looks up listed IDs), and a
    /// matched Node still tainted uninitialized is a warning.
    #[must_use]
    pub fn is_clean(&self) -> bool {
        self.ids_without_node.is_empty()
            && self.listed_more_than_once.is_empty()
            && self.shared_by_nodes.is_empty()
    }

    /// Whether every listed ID without a Node is explained by a scale-up that allows `joining`
    /// instances on their way ([`joining_allowance`]): there are at most that many, and no
    /// Node has one of them written differently (a near miss: that instance joined and will
    /// never match).
    #[must_use]
    pub fn only_joining(&self, joining: usize) -> bool {
        self.ids_without_node.len() <= joining
            && !self
                .ids_without_node
                .iter()
                .any(|id| self.near_misses.iter().any(|m| &m.listed == id))
    }

    /// [`is_clean`](Self::is_clean) for a pool that is scaling up: the IDs without a Node are
    /// [`only_joining`](Self::only_joining).
    #[must_use]
    pub fn is_clean_while_joining(&self, joining: usize) -> bool {
        self.only_joining(joining)
            && self.listed_more_than_once.is_empty()
            && self.shared_by_nodes.is_empty()
    }
}

/// How many listed instances of a MachinePool may still be without a Node because the pool is
/// scaling up: its desired replicas minus its ready ones, while its phase says it is scaling
/// up or provisioning (`ScalingUp`, `Scaling` under an autoscaler, `Provisioning`,
/// `Provisioned`, `Pending`), else 0 (no phase: nothing says instances are on their way). Upstream waits for such instances at severity Info and requeues
/// (`machinepool_controller_noderef.go` line 156 at ae7ff047: `WaitingForReplicasReady`,
/// `ConditionSeverityInfo`, `RequeueAfter: 30s`); a Running or ScalingDown pool has no
/// instance on its way, so an ID without a Node there is an error.
///
/// ```
/// use capi_contract::provider_ids::joining_allowance;
/// assert_eq!(joining_allowance(Some("ScalingUp"), Some(3), Some(1)), 2);
/// assert_eq!(joining_allowance(Some("Running"), Some(3), Some(1)), 0);
/// assert_eq!(joining_allowance(None, Some(2), None), 0);
/// ```
#[must_use]
pub fn joining_allowance(phase: Option<&str>, desired: Option<i64>, ready: Option<i64>) -> usize {
    let scaling = phase.is_some_and(|p| {
        matches!(
            p,
            "ScalingUp" | "Scaling" | "Provisioning" | "Provisioned" | "Pending"
        )
    });
    let missing = desired.unwrap_or(0).saturating_sub(ready.unwrap_or(0));
    if scaling {
        usize::try_from(missing).unwrap_or(0)
    } else {
        0
    }
}

/// Whether upstream's MachinePool controller matches a pool's `providerIDList` with Nodes.
///
/// A deleting MachinePool (`metadata.deletionTimestamp` set) is not matched:
/// `reconcileNodeRefs` returns before looking at any Node
/// (`core/reconcilers/machinepool/machinepool_controller_noderef.go` lines 60-63 at v1.14.2),
/// and `reconcileDelete` (`machinepool_controller.go`) deletes the pool's infrastructure, then
/// the Nodes its `status.nodeRefs` name. Listed instances whose Node is already gone are
/// that deletion under way, not an error.
///
/// ```
/// use capi_contract::provider_ids::NodeMatching;
/// assert_eq!(NodeMatching::of_pool(None), NodeMatching::Matched);
/// assert!(NodeMatching::of_pool(Some("2026-01-05T10:00:00Z")).is_deleting());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum NodeMatching {
    /// Upstream matches the listed IDs with Nodes (`getNodeReferences`).
    Matched,
    /// The pool is deleting: upstream matches no Node.
    Deleting {
        /// `metadata.deletionTimestamp`.
        since: String,
    },
}

impl NodeMatching {
    /// What upstream does for a pool with this `metadata.deletionTimestamp` (an empty one is
    /// unset, as Go's zero time).
    #[must_use]
    pub fn of_pool(deletion_timestamp: Option<&str>) -> Self {
        match deletion_timestamp.filter(|t| !t.is_empty()) {
            Some(since) => Self::Deleting {
                since: since.to_owned(),
            },
            None => Self::Matched,
        }
    }

    /// True for a deleting pool.
    #[must_use]
    pub fn is_deleting(&self) -> bool {
        matches!(self, Self::Deleting { .. })
    }

    /// Why upstream matches no Node of a deleting pool, with its source.
    pub const DELETING: &'static str = "upstream matches no Nodes for a deleting MachinePool (machinepool_controller_noderef.go lines 60-63: reconcileNodeRefs returns at once) and deletes its infrastructure, then the Nodes its status.nodeRefs name (machinepool_controller.go reconcileDelete)";
}

/// The outcome of matching every given pool of a cluster with its Nodes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterNodeReport {
    /// One report per pool, in the order given.
    pub pools: Vec<NodeReport>,
    /// Nodes with a provider ID that no given pool lists (control-plane Nodes, Nodes of pools
    /// not given, instances not listed yet).
    pub unlisted: usize,
    /// Those of them that look like a given pool's, sorted (one summary, information only).
    pub lookalikes: Vec<Lookalike>,
    /// Nodes without `spec.providerID`.
    pub nodes_without_provider_id: Vec<String>,
}

impl ClusterNodeReport {
    /// True when every pool is clean ([`NodeReport::is_clean`]).
    #[must_use]
    pub fn is_clean(&self) -> bool {
        self.pools.iter().all(NodeReport::is_clean)
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

fn is_control_plane(node: &Node) -> bool {
    node.metadata
        .labels
        .as_ref()
        .is_some_and(|l| CONTROL_PLANE_LABELS.iter().any(|k| l.contains_key(*k)))
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

/// The key near misses share: trimmed, lower case, slashes after the scheme and trailing
/// slashes dropped.
fn near_miss_key(id: &str) -> String {
    let (scheme, rest) = split_scheme(id.trim());
    format!(
        "{}:{}",
        scheme.to_lowercase(),
        rest.trim_end_matches('/').to_lowercase()
    )
}

/// The prefix of a [`near_miss_key`]: up to and including its last `/`, or the scheme.
fn key_prefix(key: &str) -> &str {
    match key.rfind('/') {
        Some(i) => &key[..=i],
        None => key.split_once(':').map_or(key, |(scheme, _)| scheme),
    }
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
    let (ra, rb) = (ra.trim_end_matches('/'), rb.trim_end_matches('/'));
    if sa != sb || ra != rb {
        out.push(Difference::Case);
    }
    if slashes_after_scheme(a) != slashes_after_scheme(b) {
        out.push(Difference::Slashes);
    }
    if a.len() - a.trim_end_matches('/').len() != b.len() - b.trim_end_matches('/').len() {
        out.push(Difference::TrailingSlash);
    }
    out
}

fn node_id(node: &Node) -> NodeId {
    NodeId {
        name: node_name(node).to_owned(),
        provider_id: node_provider_id(node).to_owned(),
    }
}

/// What is computed once from the Nodes and the union of the lists.
struct Cluster<'a> {
    /// Upstream's `getNodeRefMap`: Nodes by exact provider ID (the last given kept).
    by_id: HashMap<&'a str, &'a Node>,
    /// Names of the Nodes of every ID more than one Node has, in the order given.
    shared: HashMap<&'a str, Vec<String>>,
    /// Nodes with a provider ID that no given pool lists, with their near-miss key.
    unlisted: Vec<(&'a Node, String)>,
}

impl<'a> Cluster<'a> {
    fn new(listed: &BTreeSet<&str>, nodes: &'a [Node]) -> Self {
        let mut by_id: HashMap<&str, &Node> = HashMap::with_capacity(nodes.len());
        let mut names: HashMap<&str, Vec<String>> = HashMap::new();
        for n in nodes.iter().filter(|n| !node_provider_id(n).is_empty()) {
            let id = node_provider_id(n);
            by_id.insert(id, n);
            names.entry(id).or_default().push(node_name(n).to_owned());
        }
        names.retain(|_, v| v.len() > 1);
        let unlisted: Vec<(&Node, String)> = nodes
            .iter()
            .filter(|n| {
                let id = node_provider_id(n);
                !id.is_empty() && !listed.contains(id)
            })
            .map(|n| (n, near_miss_key(node_provider_id(n))))
            .collect();
        Cluster {
            by_id,
            shared: names,
            unlisted,
        }
    }
}

/// Indexes the near-miss keys of the unlisted Nodes (a separate step: the index borrows the
/// keys the cluster owns).
fn key_index<'k>(unlisted: &'k [(&Node, String)]) -> HashMap<&'k str, Vec<usize>> {
    let mut out: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, (_, key)) in unlisted.iter().enumerate() {
        out.entry(key.as_str()).or_default().push(i);
    }
    out
}

/// Upstream's `getNodeReferences`, counted.
fn upstream_view(list: &[&str], by_id: &HashMap<&str, &Node>) -> UpstreamView {
    let referenced: Vec<&Node> = list
        .iter()
        .filter_map(|id| by_id.get(id).copied())
        .collect();
    let distinct: BTreeSet<&str> = referenced.iter().map(|n| node_name(n)).collect();
    UpstreamView {
        node_refs: referenced.len(),
        distinct_nodes: distinct.len(),
        ready_replicas: referenced.iter().filter(|n| node_ready(n)).count(),
    }
}

fn listed_more_than_once(list: &[&str], by_id: &HashMap<&str, &Node>) -> Vec<ListedMoreThanOnce> {
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
            node: by_id.get(id).map(|n| node_name(n).to_owned()),
        })
        .collect()
}

/// One pool against the cluster: everything but the lookalikes.
fn pool_report(
    list: &[&str],
    cluster: &Cluster<'_>,
    by_key: &HashMap<&str, Vec<usize>>,
    without_provider_id: &[String],
) -> NodeReport {
    let listed: BTreeSet<&str> = list.iter().copied().collect();
    let mut matched = Vec::new();
    let mut ids_without_node = Vec::new();
    let mut uninitialized = Vec::new();
    let mut shared_by_nodes = Vec::new();
    for id in &listed {
        match cluster.by_id.get(id) {
            Some(n) => {
                matched.push(Matched {
                    provider_id: (*id).to_owned(),
                    node: node_name(n).to_owned(),
                    ready: node_ready(n),
                });
                if let Some(names) = cluster.shared.get(id) {
                    shared_by_nodes.push(SharedByNodes {
                        provider_id: (*id).to_owned(),
                        nodes: names.clone(),
                    });
                }
            }
            None => ids_without_node.push((*id).to_owned()),
        }
    }
    for n in cluster
        .by_id
        .values()
        .filter(|n| listed.contains(node_provider_id(n)) && has_uninitialized_taint(n))
    {
        uninitialized.push(Uninitialized { node: node_id(n) });
    }
    uninitialized.sort_by(|a, b| a.node.cmp(&b.node));
    let mut near_misses = Vec::new();
    for listed_id in &ids_without_node {
        let key = near_miss_key(listed_id);
        for &i in by_key
            .get(key.as_str())
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            let (node, _) = cluster.unlisted[i];
            near_misses.push(NearMiss {
                listed: listed_id.clone(),
                node: node_id(node),
                differences: differences(listed_id, node_provider_id(node)),
            });
        }
    }
    NodeReport {
        matched,
        ids_without_node,
        nodes_without_provider_id: without_provider_id.to_vec(),
        near_misses,
        uninitialized,
        listed_more_than_once: listed_more_than_once(list, &cluster.by_id),
        shared_by_nodes,
        lookalikes: Vec::new(),
        upstream: upstream_view(list, &cluster.by_id),
    }
}

/// Matches every given pool's `providerIDList` with the Nodes of its cluster (as
/// `kubectl get nodes -o yaml` or `kube::Api::<Node>` returns them), the way upstream's
/// MachinePool controller does, and explains the result. Empty list entries are ignored, as
/// upstream does. A Node no given pool lists is no pool's error; those that look like a given
/// pool's are summarised once ([`ClusterNodeReport::lookalikes`]) and serve as near-miss
/// hints.
///
/// ```
/// use capi_contract::provider_ids::match_pools;
/// use k8s_openapi::api::core::v1::Node;
/// let node = |name: &str, id: &str| -> Node {
///     serde_json::from_value(serde_json::json!({
///         "metadata": {"name": name}, "spec": {"providerID": id}})).unwrap()
/// };
/// let nodes = [node("a-0", "gce://p/z/a-0"), node("b-0", "gce://p/z/b-0"), node("cp", "gce://p/z/cp")];
/// let report = match_pools(&[&["gce://p/z/a-0"][..], &["gce://p/z/b-0"][..]], &nodes);
/// // Each pool's Nodes are not the other's error.
/// assert!(report.is_clean());
/// assert_eq!(report.unlisted, 1);
/// ```
#[must_use]
pub fn match_pools<S: AsRef<str>>(lists: &[&[S]], nodes: &[Node]) -> ClusterNodeReport {
    let lists: Vec<Vec<&str>> = lists
        .iter()
        .map(|l| {
            l.iter()
                .map(AsRef::as_ref)
                .filter(|id| !id.is_empty())
                .collect()
        })
        .collect();
    let all_listed: BTreeSet<&str> = lists.iter().flatten().copied().collect();
    let cluster = Cluster::new(&all_listed, nodes);
    let by_key = key_index(&cluster.unlisted);
    let mut without_provider_id: Vec<String> = nodes
        .iter()
        .filter(|n| node_provider_id(n).is_empty())
        .map(|n| node_name(n).to_owned())
        .collect();
    without_provider_id.sort();
    let mut pools: Vec<NodeReport> = lists
        .iter()
        .map(|l| pool_report(l, &cluster, &by_key, &without_provider_id))
        .collect();
    // Prefix of a listed ID -> the pools listing an ID with it.
    let mut prefixes: HashMap<String, BTreeSet<usize>> = HashMap::new();
    for (p, list) in lists.iter().enumerate() {
        for id in list {
            let key = near_miss_key(id);
            prefixes
                .entry(key_prefix(&key).to_owned())
                .or_default()
                .insert(p);
        }
    }
    let mut lookalikes = Vec::new();
    for (node, key) in cluster
        .unlisted
        .iter()
        .filter(|(n, _)| !is_control_plane(n))
    {
        let Some(like) = prefixes.get(key_prefix(key)) else {
            continue;
        };
        for &p in like {
            if let Some(r) = pools.get_mut(p) {
                r.lookalikes.push(node_id(node));
            }
        }
        lookalikes.push(Lookalike {
            node: node_id(node),
            pools: like.iter().copied().collect(),
            uninitialized: has_uninitialized_taint(node),
        });
    }
    lookalikes.sort_by(|a, b| a.node.cmp(&b.node));
    for r in &mut pools {
        r.lookalikes.sort();
    }
    ClusterNodeReport {
        pools,
        unlisted: cluster.unlisted.len(),
        lookalikes,
        nodes_without_provider_id: without_provider_id,
    }
}

/// Matches one `providerIDList` with Node objects: [`match_pools`] with one pool. Nodes the
/// list does not have are no error (they may be control-plane Nodes or another pool's).
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
    match_pools(&[list], nodes).pools.pop().unwrap_or_default()
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
            (
                "aws:///z/i-1/",
                "aws:///z/i-1",
                vec![Difference::TrailingSlash],
            ),
        ];
        for (a, b, want) in cases {
            assert_eq!(near_miss_key(a), near_miss_key(b), "{a} / {b}");
            assert_eq!(differences(a, b), want, "{a} / {b}");
        }
        assert_ne!(near_miss_key("aws:///z/i-1"), near_miss_key("aws:///z/i-2"));
        assert_eq!(
            key_prefix(&near_miss_key("aws:///us-east-1a/i-1")),
            "aws:us-east-1a/"
        );
        assert_eq!(key_prefix("openstack:0d3a"), "openstack");
    }
}
