//! `providerIDList` hygiene: the list that ties a MachinePool to its Nodes.
//!
//! Core Cluster API matches Nodes to a MachinePool by exact provider ID, and the
//! cluster-autoscaler only scales down Nodes whose provider ID is listed. Duplicates go wrong
//! silently, in two different ways (cluster-api#8856): a provider ID listed twice gets its
//! Node reference appended twice and is counted twice in the deprecated ready/available
//! replicas, so the pool can look ready while an instance never joined; two Nodes sharing one
//! provider ID resolve to one of them. These functions find what goes
//! wrong before it hurts:
//!
//! * [`check_list`]: duplicates (error), empty or over-long entries (error), entries that do
//!   not look like a provider ID (`<provider>://…`, warning), too many entries (error).
//! * [`order_change`]: the order of a list changed between two observations of one object.
//! * [`replicas_mismatch`]: `status.replicas` disagrees with the list once provisioned.
//! * [`match_nodes`]: which listed IDs have a Node, which Nodes are not listed, duplicates on
//!   either side.
//! * [`match_pools`]: every pool of a cluster against k8s-openapi `Node` objects, with near
//!   misses, the `node.cluster.x-k8s.io/uninitialized` taint and what upstream's controller
//!   makes of it ([`ClusterNodeReport`]); [`match_node_objects`] for one pool ([`NodeReport`]).
//!   A Node no given pool lists is no pool's error.
//!
//! ```
//! use capi_contract::provider_ids::{ProblemKind, check_list};
//! let problems = check_list(&["aws:///us-east-1a/i-1", "aws:///us-east-1a/i-1", "i-2"]);
//! assert_eq!(problems[0].kind, ProblemKind::Duplicate { first: 0 });
//! assert_eq!(problems[1].kind, ProblemKind::NotAProviderId);
//! ```

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

use capi_diagnostics::Severity;

use crate::fields::infra_machine_pool::{PROVIDER_ID_LIST as LIST, REPLICAS};
use capi_diagnostics::excerpt::Excerpt;

mod nodes;
mod ownership;

pub use nodes::{
    ClusterNodeReport, Difference, ListedMoreThanOnce, Lookalike, Matched, NearMiss, NodeId,
    NodeMatching, NodeReport, NodesError, SharedByNodes, UNINITIALIZED_TAINT, Uninitialized,
    UpstreamView, joining_allowance, match_node_objects, match_pools, nodes_from_value,
};
pub use ownership::{
    CLUSTER_NAMESPACE_ANNOTATION, ListedByPools, OWNER_KIND_ANNOTATION, OWNER_NAME_ANNOTATION,
    OwnedByAnother, OwnedList, Ownership, ownership,
};

/// Longest provider ID the contract allows (`+kubebuilder:validation:items:MaxLength=512`).
pub const MAX_LENGTH: usize = 512;
/// Most entries the contract allows (`+kubebuilder:validation:MaxItems=10000`).
pub const MAX_ITEMS: usize = 10_000;

/// What is wrong with an entry (or the list).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ProblemKind {
    /// The entry is the empty string.
    Empty,
    /// The entry is longer than [`MAX_LENGTH`] characters.
    TooLong {
        /// Its length in characters.
        length: usize,
    },
    /// The entry is not of the form `<provider>://<id>`.
    NotAProviderId,
    /// The same ID is listed earlier, at index `first`: upstream references its Node once per
    /// occurrence and counts it again in the deprecated ready/available replicas.
    Duplicate {
        /// Index of the first occurrence.
        first: usize,
    },
    /// The list has more than [`MAX_ITEMS`] entries.
    TooMany {
        /// Number of entries.
        count: usize,
    },
}

impl ProblemKind {
    /// How bad the problem is.
    #[must_use]
    pub fn severity(&self) -> Severity {
        match self {
            Self::NotAProviderId => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

/// One problem of a `providerIDList`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Problem {
    /// Index of the entry, `None` for a problem of the whole list.
    pub index: Option<usize>,
    /// What is wrong.
    pub kind: ProblemKind,
}

/// `spec.providerIDList[i]: what is wrong` (or `spec.providerIDList: ...` for the list).
///
/// ```
/// use capi_contract::provider_ids::{Problem, ProblemKind};
/// let p = Problem { index: Some(2), kind: ProblemKind::Empty };
/// assert_eq!(p.to_string(), "spec.providerIDList[2]: entry is empty");
/// ```
impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.index {
            Some(i) => write!(f, "{}[{i}]: {}", LIST.dotted(), self.kind),
            None => write!(f, "{}: {}", LIST.dotted(), self.kind),
        }
    }
}

impl fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("entry is empty"),
            Self::TooLong { length } => {
                write!(f, "entry has {length} characters (at most {MAX_LENGTH})")
            }
            Self::NotAProviderId => {
                f.write_str("entry does not look like a provider ID (<provider>://<id>)")
            }
            Self::Duplicate { first } => write!(
                f,
                "duplicate of entry {first}: upstream references its Node once per occurrence and counts it again in the ready/available replicas, so the pool can look ready while an instance never joined"
            ),
            Self::TooMany { count } => write!(f, "{count} entries (at most {MAX_ITEMS})"),
        }
    }
}

/// True when `id` has the form `<provider>://<rest>`: a provider name of letters, digits,
/// `-`, `_` or `.` starting with a letter or digit, and a non-empty rest.
///
/// ```
/// use capi_contract::provider_ids::looks_like_provider_id;
/// assert!(looks_like_provider_id("aws:///us-east-1a/i-0123"));
/// assert!(looks_like_provider_id("azure:///subscriptions/s/resourceGroups/r"));
/// assert!(!looks_like_provider_id("i-0123") && !looks_like_provider_id("aws://"));
/// ```
#[must_use]
pub fn looks_like_provider_id(id: &str) -> bool {
    let Some((provider, rest)) = id.split_once("://") else {
        return false;
    };
    let mut chars = provider.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !rest.is_empty()
}

/// Every problem of a `providerIDList`, in list order (a duplicate is reported at its second
/// and later occurrences).
#[must_use]
pub fn check_list<S: AsRef<str>>(list: &[S]) -> Vec<Problem> {
    let mut problems = Vec::new();
    if list.len() > MAX_ITEMS {
        problems.push(Problem {
            index: None,
            kind: ProblemKind::TooMany { count: list.len() },
        });
    }
    let mut first_seen: HashMap<&str, usize> = HashMap::with_capacity(list.len());
    for (index, id) in list.iter().enumerate() {
        let id = id.as_ref();
        let kind = if id.is_empty() {
            Some(ProblemKind::Empty)
        } else if let Some(&first) = first_seen.get(id) {
            Some(ProblemKind::Duplicate { first })
        } else if id.chars().count() > MAX_LENGTH {
            Some(ProblemKind::TooLong {
                length: id.chars().count(),
            })
        } else if !looks_like_provider_id(id) {
            Some(ProblemKind::NotAProviderId)
        } else {
            None
        };
        first_seen.entry(id).or_insert(index);
        if let Some(kind) = kind {
            problems.push(Problem {
                index: Some(index),
                kind,
            });
        }
    }
    problems
}

/// Two IDs whose relative order differs between two observations of one object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderChange {
    /// Listed before `second` in the earlier observation, after it in the later one.
    pub first: String,
    /// See `first`.
    pub second: String,
}

impl fmt::Display for OrderChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} was listed before {} and is now listed after it",
            Excerpt::new(&self.first),
            Excerpt::new(&self.second)
        )
    }
}

/// The first pair of IDs, present in both observations, whose relative order changed; `None`
/// when IDs kept in both lists keep their order (additions and removals are fine). A provider
/// that rebuilds the list in a different order on every reconcile makes every watcher see a
/// change; use this in controller tests.
///
/// ```
/// use capi_contract::provider_ids::order_change;
/// assert_eq!(order_change(&["a://1", "a://2"], &["a://1", "a://3", "a://2"]), None);
/// let change = order_change(&["a://1", "a://2"], &["a://2", "a://1"]).unwrap();
/// assert_eq!((change.first.as_str(), change.second.as_str()), ("a://1", "a://2"));
/// ```
#[must_use]
pub fn order_change<A: AsRef<str>, B: AsRef<str>>(
    before: &[A],
    after: &[B],
) -> Option<OrderChange> {
    let position: HashMap<&str, usize> = after
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_ref(), i))
        .rev()
        .collect();
    let mut previous: Option<(&str, usize)> = None;
    for id in before {
        let id = id.as_ref();
        let Some(&at) = position.get(id) else {
            continue;
        };
        if let Some((prev, prev_at)) = previous
            && at < prev_at
        {
            return Some(OrderChange {
                first: prev.to_owned(),
                second: id.to_owned(),
            });
        }
        previous = Some((id, at));
    }
    None
}

/// `status.replicas` and the number of `providerIDList` entries disagree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplicasMismatch {
    /// `status.replicas`.
    pub replicas: i32,
    /// Number of entries.
    pub listed: usize,
}

impl fmt::Display for ReplicasMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is {} but {} has {} entries",
            REPLICAS.dotted(),
            self.replicas,
            LIST.dotted(),
            self.listed
        )
    }
}

/// Once provisioned, `status.replicas` must equal the number of listed instances (the
/// MachinePool controller waits for replicas that never appear otherwise). `None` when they
/// agree or the pool is not provisioned yet.
#[must_use]
pub fn replicas_mismatch(
    provisioned: bool,
    replicas: i32,
    listed: usize,
) -> Option<ReplicasMismatch> {
    let agree = usize::try_from(replicas).is_ok_and(|r| r == listed);
    (provisioned && !agree).then_some(ReplicasMismatch { replicas, listed })
}

/// The outcome of matching a `providerIDList` with the `spec.providerID` of Nodes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeMatch {
    /// Listed IDs that a Node has.
    pub matched: Vec<String>,
    /// Listed IDs that no Node has (instances not joined yet, or gone).
    pub unmatched_in_list: Vec<String>,
    /// Node provider IDs that are not listed (the autoscaler will not scale them down).
    pub nodes_not_in_list: Vec<String>,
    /// IDs listed more than once.
    pub duplicates_in_list: Vec<String>,
    /// IDs more than one Node has.
    pub duplicates_in_nodes: Vec<String>,
}

impl NodeMatch {
    /// True when every listed ID has exactly one Node and every Node is listed once.
    #[must_use]
    pub fn is_exact(&self) -> bool {
        self.unmatched_in_list.is_empty()
            && self.nodes_not_in_list.is_empty()
            && self.duplicates_in_list.is_empty()
            && self.duplicates_in_nodes.is_empty()
    }
}

fn counts<S: AsRef<str>>(ids: &[S]) -> BTreeMap<&str, usize> {
    let mut out = BTreeMap::new();
    for id in ids {
        *out.entry(id.as_ref()).or_insert(0) += 1;
    }
    out
}

/// Matches a `providerIDList` with Nodes' `spec.providerID`s (empty Node IDs are ignored: a
/// Node the cloud provider has not initialized yet has none). Every result list is sorted
/// and free of repeats.
///
/// ```
/// use capi_contract::provider_ids::match_nodes;
/// let m = match_nodes(&["a://1", "a://2", "a://2"], &["a://1", "a://3", ""]);
/// assert_eq!(m.matched, ["a://1"]);
/// assert_eq!(m.unmatched_in_list, ["a://2"]);
/// assert_eq!(m.nodes_not_in_list, ["a://3"]);
/// assert_eq!(m.duplicates_in_list, ["a://2"]);
/// assert!(!m.is_exact());
/// ```
#[must_use]
pub fn match_nodes<A: AsRef<str>, B: AsRef<str>>(list: &[A], node_ids: &[B]) -> NodeMatch {
    let listed = counts(list);
    let nodes: Vec<&str> = node_ids
        .iter()
        .map(AsRef::as_ref)
        .filter(|id| !id.is_empty())
        .collect();
    let on_nodes = counts(&nodes);
    let listed_set: BTreeSet<&str> = listed.keys().copied().collect();
    let node_set: BTreeSet<&str> = on_nodes.keys().copied().collect();
    let owned = |it: &mut dyn Iterator<Item = &&str>| it.map(|s| (*s).to_owned()).collect();
    NodeMatch {
        matched: owned(&mut listed_set.intersection(&node_set)),
        unmatched_in_list: owned(&mut listed_set.difference(&node_set)),
        nodes_not_in_list: owned(&mut node_set.difference(&listed_set)),
        duplicates_in_list: owned(&mut listed.iter().filter(|(_, n)| **n > 1).map(|(k, _)| k)),
        duplicates_in_nodes: owned(&mut on_nodes.iter().filter(|(_, n)| **n > 1).map(|(k, _)| k)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_problems_in_order() {
        let long = format!("aws:///{}", "x".repeat(600));
        let list = [
            "aws:///a/i-1",
            "",
            &long,
            "aws:///a/i-1",
            "i-2",
            "aws:///a/i-1",
        ];
        let got: Vec<(Option<usize>, ProblemKind)> = check_list(&list)
            .into_iter()
            .map(|p| (p.index, p.kind))
            .collect();
        assert_eq!(
            got,
            vec![
                (Some(1), ProblemKind::Empty),
                (Some(2), ProblemKind::TooLong { length: 607 }),
                (Some(3), ProblemKind::Duplicate { first: 0 }),
                (Some(4), ProblemKind::NotAProviderId),
                (Some(5), ProblemKind::Duplicate { first: 0 }),
            ]
        );
        assert_eq!(ProblemKind::NotAProviderId.severity(), Severity::Warning);
        assert_eq!(ProblemKind::Empty.severity(), Severity::Error);
    }

    #[test]
    fn too_many_entries() {
        let list: Vec<String> = (0..=MAX_ITEMS).map(|i| format!("p://{i}")).collect();
        assert_eq!(
            check_list(&list),
            vec![Problem {
                index: None,
                kind: ProblemKind::TooMany {
                    count: MAX_ITEMS + 1
                }
            }]
        );
    }

    #[test]
    fn replicas_once_provisioned() {
        assert_eq!(replicas_mismatch(false, 3, 1), None);
        assert_eq!(replicas_mismatch(true, 1, 1), None);
        assert_eq!(
            replicas_mismatch(true, -1, 0),
            Some(ReplicasMismatch {
                replicas: -1,
                listed: 0
            })
        );
    }

    #[test]
    fn duplicates_on_nodes() {
        let m = match_nodes(&["a://1"], &["a://1", "a://1"]);
        assert_eq!(m.duplicates_in_nodes, ["a://1"]);
        assert_eq!(m.matched, ["a://1"]);
        assert!(match_nodes(&["a://1"], &["a://1"]).is_exact());
    }
}
