//! Which MachinePool owns each instance, cluster-wide: an instance is one pool's.
//!
//! Upstream's MachinePool controller (`core/reconcilers/machinepool/machinepool_controller_noderef.go`
//! at ae7ff047) acts on every Node a pool lists, without asking whether another pool lists it
//! too:
//!
//! * `getNodeReferences` (lines 200-235) references the Node and counts it in the pool's
//!   ready and available replicas;
//! * `patchNodes` (lines 236-260) writes the pool's `cluster.x-k8s.io/owner-kind` and
//!   `cluster.x-k8s.io/owner-name` annotations on the Node, overwriting another pool's: two
//!   pools flip them on every reconcile;
//! * `deleteRetiredNodes` (lines 168-198) deletes every Node the pool referenced whose provider
//!   ID left its list: when one pool drops an instance that another still lists, the Node the
//!   other still runs is deleted.
//!
//! A MachinePool and its own InfraMachinePool list the same IDs (the MachinePool copies them
//! from it): they are one pool. [`ownership`] takes each list with the MachinePool that owns it.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::Node;
use serde::Serialize;

/// The Node annotation upstream sets to the owning pool's kind (`OwnerKindAnnotation`).
pub const OWNER_KIND_ANNOTATION: &str = "cluster.x-k8s.io/owner-kind";
/// The Node annotation upstream sets to the owning pool's name (`OwnerNameAnnotation`).
pub const OWNER_NAME_ANNOTATION: &str = "cluster.x-k8s.io/owner-name";
/// The Node annotation upstream sets to the owning pool's namespace
/// (`ClusterNamespaceAnnotation`).
pub const CLUSTER_NAMESPACE_ANNOTATION: &str = "cluster.x-k8s.io/cluster-namespace";

/// A provider ID listed by more than one pool.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListedByPools {
    /// The ID.
    #[serde(rename = "providerID")]
    pub provider_id: String,
    /// The owners of the lists (`namespace/name` of each MachinePool), sorted.
    pub pools: Vec<String>,
    /// Its Node, when one has it.
    pub node: Option<String>,
}

/// A listed provider ID whose Node carries another MachinePool's owner annotations.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnedByAnother {
    /// The ID.
    #[serde(rename = "providerID")]
    pub provider_id: String,
    /// The Node.
    pub node: String,
    /// The pool that lists it (`namespace/name`).
    pub listed_by: String,
    /// The pool its annotations name (`namespace/name`).
    pub owner: String,
}

/// Instances claimed by more than one pool.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ownership {
    /// IDs more than one pool lists.
    pub listed_by_pools: Vec<ListedByPools>,
    /// IDs whose Node names another pool as its owner (and that other pool does not list it:
    /// else it is in [`Self::listed_by_pools`]).
    pub owned_by_another: Vec<OwnedByAnother>,
}

impl Ownership {
    /// True when every instance is one pool's.
    #[must_use]
    pub fn is_clean(&self) -> bool {
        self.listed_by_pools.is_empty() && self.owned_by_another.is_empty()
    }

    /// The findings about the pool `owner` (`namespace/name`): the IDs it shares, and its IDs
    /// another pool's annotations claim.
    #[must_use]
    pub fn of_pool(&self, owner: &str) -> (Vec<&ListedByPools>, Vec<&OwnedByAnother>) {
        (
            self.listed_by_pools
                .iter()
                .filter(|s| s.pools.iter().any(|p| p == owner))
                .collect(),
            self.owned_by_another
                .iter()
                .filter(|o| o.listed_by == owner)
                .collect(),
        )
    }
}

/// The owner a Node's annotations name, `namespace/name`, when they name a MachinePool.
fn annotated_owner(node: &Node) -> Option<String> {
    let annotations = node.metadata.annotations.as_ref()?;
    if annotations.get(OWNER_KIND_ANNOTATION)? != "MachinePool" {
        return None;
    }
    let name = annotations.get(OWNER_NAME_ANNOTATION)?;
    let namespace = annotations
        .get(CLUSTER_NAMESPACE_ANNOTATION)
        .map_or("", String::as_str);
    Some(if namespace.is_empty() {
        name.clone()
    } else {
        format!("{namespace}/{name}")
    })
}

/// A `providerIDList` and the pool that owns it.
#[derive(Clone, Copy, Debug)]
pub struct OwnedList<'a, S> {
    /// The owning MachinePool (`namespace/name`; a MachinePool and its InfraMachinePool give
    /// the same owner), or a name for the list when its MachinePool is not known.
    pub owner: &'a str,
    /// `owner` is a MachinePool's `namespace/name` (the pool itself, its InfraMachinePool's
    /// owner reference, or the MachinePool that references it): only then is a Node's owner
    /// annotation compared with it.
    pub known: bool,
    /// The list.
    pub list: &'a [S],
}

/// Which pool owns each listed instance. Empty entries are ignored, as upstream does.
///
/// ```
/// use capi_contract::provider_ids::{OwnedList, ownership};
/// use k8s_openapi::api::core::v1::Node;
/// let node: Node = serde_json::from_value(serde_json::json!({
///     "metadata": {"name": "n1"}, "spec": {"providerID": "aws:///us-east-1a/i-1"}})).unwrap();
/// let id = ["aws:///us-east-1a/i-1"];
/// let list = |owner| OwnedList { owner, known: true, list: &id[..] };
/// // A MachinePool and its own AWSMachinePool: one pool.
/// assert!(ownership(&[list("ns/a"), list("ns/a")], &[node.clone()]).is_clean());
/// // Two MachinePools: both reference the Node.
/// let found = ownership(&[list("ns/a"), list("ns/b")], &[node]);
/// assert_eq!(found.listed_by_pools[0].pools, ["ns/a", "ns/b"]);
/// assert_eq!(found.listed_by_pools[0].node.as_deref(), Some("n1"));
/// ```
#[must_use]
pub fn ownership<S: AsRef<str>>(pools: &[OwnedList<'_, S>], nodes: &[Node]) -> Ownership {
    let mut owners: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let known: BTreeSet<&str> = pools.iter().filter(|p| p.known).map(|p| p.owner).collect();
    for pool in pools {
        for id in pool
            .list
            .iter()
            .map(AsRef::as_ref)
            .filter(|id| !id.is_empty())
        {
            owners.entry(id).or_default().insert(pool.owner);
        }
    }
    let mut by_id: BTreeMap<&str, &Node> = BTreeMap::new();
    for node in nodes {
        if let Some(id) = node
            .spec
            .as_ref()
            .and_then(|s| s.provider_id.as_deref())
            .filter(|id| !id.is_empty())
        {
            by_id.entry(id).or_insert(node);
        }
    }
    let node_name = |node: &Node| node.metadata.name.clone().unwrap_or_default();
    let mut found = Ownership::default();
    for (id, listed_by) in &owners {
        let node = by_id.get(id).copied();
        if listed_by.len() > 1 {
            found.listed_by_pools.push(ListedByPools {
                provider_id: (*id).to_owned(),
                pools: listed_by.iter().map(|p| (*p).to_owned()).collect(),
                node: node.map(node_name),
            });
            continue;
        }
        let (Some(node), Some(pool)) = (node, listed_by.iter().next()) else {
            continue;
        };
        if !known.contains(pool) {
            continue;
        }
        // Without its namespace annotation, the owner is compared by name alone.
        let same = |owner: &String| {
            owner == *pool
                || (!owner.contains('/') && pool.rsplit('/').next() == Some(owner.as_str()))
        };
        if let Some(owner) = annotated_owner(node).filter(|o| !same(o)) {
            found.owned_by_another.push(OwnedByAnother {
                provider_id: (*id).to_owned(),
                node: node_name(node),
                listed_by: (*pool).to_owned(),
                owner,
            });
        }
    }
    found
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn node(name: &str, id: &str, owner: Option<&str>) -> Node {
        let mut value = serde_json::json!({"metadata": {"name": name}, "spec": {"providerID": id}});
        if let Some(owner) = owner {
            value["metadata"]["annotations"] = serde_json::json!({
                OWNER_KIND_ANNOTATION: "MachinePool",
                OWNER_NAME_ANNOTATION: owner,
                CLUSTER_NAMESPACE_ANNOTATION: "ns",
            });
        }
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn an_instance_annotated_for_another_pool_is_claimed_twice() {
        let nodes = [
            node("n1", "gce://p/z/i-1", Some("a")),
            node("n2", "gce://p/z/i-2", Some("b")),
            node("n3", "gce://p/z/i-3", None),
        ];
        let a = ["gce://p/z/i-1", "gce://p/z/i-2", "gce://p/z/i-3", ""];
        let list = |known| OwnedList {
            owner: "ns/a",
            known,
            list: &a[..],
        };
        // The list's MachinePool unknown: its annotations are not compared.
        assert!(ownership(&[list(false)], &nodes).is_clean());
        let found = ownership(&[list(true)], &nodes);
        assert!(found.listed_by_pools.is_empty());
        assert_eq!(
            found.owned_by_another,
            [OwnedByAnother {
                provider_id: "gce://p/z/i-2".into(),
                node: "n2".into(),
                listed_by: "ns/a".into(),
                owner: "ns/b".into(),
            }]
        );
        assert_eq!(found.of_pool("ns/a").1.len(), 1);
        assert!(found.of_pool("ns/b").1.is_empty());
        // Annotations without the namespace name the owner by name: the pool's own is no
        // conflict.
        let mut bare = node("n1", "gce://p/z/i-1", Some("a"));
        if let Some(annotations) = bare.metadata.annotations.as_mut() {
            annotations.remove(CLUSTER_NAMESPACE_ANNOTATION);
        }
        assert!(ownership(&[list(true)], &[bare]).is_clean());
    }
}
