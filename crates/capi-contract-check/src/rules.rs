//! The InfraMachinePool contract rules as data.
//!
//! One entry per rule of the upstream contract page
//! (`docs/book/src/developer/providers/contracts/infra-machinepool.md`), plus the
//! recommendations the page only shows in its examples (reported at SHOULD level). Rule ids
//! are stable: they are what the checker reports and what `docs/contract.md` lists.

use std::fmt;

use serde::Serialize;

/// How binding a rule is (RFC 2119 keywords as the contract uses them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    /// Mandatory: a violation fails the check.
    Must,
    /// Recommended: a violation is a warning.
    Should,
    /// Optional: only checked for consistency when implemented.
    May,
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Must => "MUST",
            Self::Should => "SHOULD",
            Self::May => "MAY",
        })
    }
}

/// Which resource a rule is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Subject {
    /// Every resource core Cluster API interacts with (pool and template CRDs).
    AllResources,
    /// The InfraMachinePool CRD.
    InfraMachinePool,
    /// The InfraMachinePoolTemplate CRD.
    InfraMachinePoolTemplate,
    /// InfraMachinePool objects (instances).
    Object,
}

/// How a rule is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Check {
    /// On the CRD (names, scope, labels, versions, OpenAPI schema).
    Crd,
    /// On objects of the kind.
    Object,
    /// Behaviour of the provider's controller: documented, not statically checkable.
    Behavioural,
}

/// One contract rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    /// Stable identifier, reported with every finding.
    pub id: &'static str,
    /// Short title.
    pub title: &'static str,
    /// How binding it is.
    pub level: Level,
    /// Contract versions it applies to.
    pub contracts: &'static [&'static str],
    /// What it is about.
    pub subject: Subject,
    /// How it is checked.
    pub check: Check,
    /// Anchor of the section of the upstream contract page.
    pub anchor: &'static str,
    /// Field (or aspect) concerned, e.g. `spec.providerIDList`.
    pub field: &'static str,
    /// Expected type or shape.
    pub shape: &'static str,
    /// Who reads it in core Cluster API.
    pub reader: &'static str,
    /// What happens when it is absent or wrong.
    pub when_absent: &'static str,
}

/// Base URL of the upstream contract page.
pub const CONTRACT_URL: &str =
    "https://cluster-api.sigs.k8s.io/developer/providers/contracts/infra-machinepool";

impl Rule {
    /// Link to the rule's section of the upstream contract page.
    #[must_use]
    pub fn url(&self) -> String {
        format!("{CONTRACT_URL}#{}", self.anchor)
    }
}

const BOTH: &[&str] = &["v1beta2", "v1beta1"];
const V1BETA2: &[&str] = &["v1beta2"];
const V1BETA1: &[&str] = &["v1beta1"];

macro_rules! rule {
    ($id:literal, $title:literal, $level:ident, $contracts:expr, $subject:ident, $check:ident, $anchor:literal,
     $field:literal, $shape:literal, $reader:literal, $absent:literal) => {
        Rule {
            id: $id,
            title: $title,
            level: Level::$level,
            contracts: $contracts,
            subject: Subject::$subject,
            check: Check::$check,
            anchor: $anchor,
            field: $field,
            shape: $shape,
            reader: $reader,
            when_absent: $absent,
        }
    };
}

/// Every rule, in contract page order.
pub const RULES: &[Rule] = &[
    rule!(
        "scope",
        "All resources are namespace-scoped",
        Must,
        BOTH,
        AllResources,
        Crd,
        "all-resources-scope",
        "spec.scope",
        "`Namespaced`",
        "all core controllers",
        "objects cannot be referenced from a namespaced MachinePool"
    ),
    rule!(
        "type-and-object-meta",
        "All resources have TypeMeta and ObjectMeta",
        Must,
        BOTH,
        AllResources,
        Crd,
        "all-resources-typemeta-and-objectmeta-field",
        "apiVersion, kind, metadata",
        "string, string, object",
        "all core controllers",
        "objects cannot be read as Kubernetes objects"
    ),
    rule!(
        "api-group",
        "API group (infrastructure.cluster.x-k8s.io, or RBAC for another group)",
        May,
        BOTH,
        AllResources,
        Crd,
        "all-resources-api-group",
        "spec.group",
        "`infrastructure.cluster.x-k8s.io` or own group with aggregated RBAC",
        "core controllers (RBAC)",
        "core controllers get no access unless a ClusterRole with `cluster.x-k8s.io/aggregate-to-manager: \"true\"` grants it"
    ),
    rule!(
        "version-policy",
        "Versions follow the Kubernetes API versioning scheme",
        Should,
        BOTH,
        AllResources,
        Crd,
        "all-resources-version",
        "spec.versions[].name",
        "`v<N>`, `v<N>alpha<M>` or `v<N>beta<M>`",
        "contract label resolution (version ordering)",
        "version ordering falls back to reverse lexicographic order"
    ),
    rule!(
        "contract-label",
        "CRD has a `cluster.x-k8s.io/<contract>` label",
        Must,
        BOTH,
        AllResources,
        Crd,
        "all-resources-version",
        "metadata.labels[cluster.x-k8s.io/<contract>]",
        "`_`-separated CRD versions",
        "reference resolution, conversion of references",
        "core controllers cannot find the apiVersion of referenced objects"
    ),
    rule!(
        "contract-label-versions",
        "Every version in a contract label is a served version of the CRD",
        Must,
        BOTH,
        AllResources,
        Crd,
        "all-resources-version",
        "metadata.labels[cluster.x-k8s.io/<contract>]",
        "each listed version exists in spec.versions and is served",
        "reference resolution (highest listed version is used)",
        "references resolve to a version the API server does not serve"
    ),
    rule!(
        "crd-name",
        "CRD name is plural(lowercase(kind)).group",
        Must,
        BOTH,
        AllResources,
        Crd,
        "inframachinepool-inframachinepoollist-resource-definition",
        "metadata.name",
        "`CalculateCRDName(group, kind)`",
        "CRD lookup for contract labels",
        "the CRD is not found and references cannot be resolved"
    ),
    rule!(
        "list-kind",
        "List kind is `<Kind>List`",
        Must,
        BOTH,
        AllResources,
        Crd,
        "inframachinepool-inframachinepoollist-resource-definition",
        "spec.names.listKind",
        "`<Kind>List`",
        "list calls",
        "list requests for the kind fail"
    ),
    rule!(
        "status-subresource",
        "Status subresource enabled",
        Should,
        BOTH,
        InfraMachinePool,
        Crd,
        "inframachinepool-inframachinepoollist-resource-definition",
        "spec.versions[].subresources.status",
        "`{}`",
        "provider controller status updates (example in the contract)",
        "status is written with the main resource"
    ),
    rule!(
        "categories",
        "Category `cluster-api`",
        Should,
        BOTH,
        AllResources,
        Crd,
        "inframachinepool-inframachinepoollist-resource-definition",
        "spec.names.categories",
        "contains `cluster-api`",
        "`kubectl get cluster-api` (example in the contract)",
        "objects are not listed with `kubectl get cluster-api`"
    ),
    rule!(
        "provider-id-list",
        "spec.providerIDList is a list of strings",
        Must,
        BOTH,
        InfraMachinePool,
        Crd,
        "inframachinepool-provideridlist",
        "spec.providerIDList",
        "array of string",
        "MachinePool controller (copied to MachinePool spec.providerIDList, Node matching and deletion)",
        "the MachinePool never learns its instances; Nodes are not matched"
    ),
    rule!(
        "provider-id-list-validation",
        "spec.providerIDList validation as in the contract example",
        Should,
        BOTH,
        InfraMachinePool,
        Crd,
        "inframachinepool-provideridlist",
        "spec.providerIDList",
        "listType atomic, maxItems 10000, items minLength 1 and maxLength 512",
        "API server validation",
        "invalid IDs reach the MachinePool controller"
    ),
    rule!(
        "provider-id-list-values",
        "providerIDList entries are valid",
        Must,
        BOTH,
        Object,
        Object,
        "inframachinepool-provideridlist",
        "spec.providerIDList",
        "at most 10000 non-empty strings of at most 512 characters",
        "MachinePool controller",
        "Nodes are not matched, or the MachinePool rejects the list"
    ),
    rule!(
        "initialization-provisioned",
        "status.initialization.provisioned reports initialization completed",
        Must,
        V1BETA2,
        InfraMachinePool,
        Crd,
        "inframachinepool-initialization-completed",
        "status.initialization.provisioned",
        "boolean (pointer)",
        "MachinePool controller (status.initialization.infrastructureProvisioned)",
        "the MachinePool never becomes provisioned (status.ready is read only under the temporary v1beta1 compatibility)"
    ),
    rule!(
        "initialization-min-properties",
        "status.initialization has minProperties 1",
        Should,
        V1BETA2,
        InfraMachinePool,
        Crd,
        "inframachinepool-initialization-completed",
        "status.initialization",
        "object with minProperties 1",
        "API server validation (example in the contract)",
        "an empty initialization object can be written"
    ),
    rule!(
        "ready",
        "status.ready reports initialization completed (v1beta1 contract)",
        Must,
        V1BETA1,
        InfraMachinePool,
        Crd,
        "inframachinepool-initialization-completed",
        "status.ready",
        "boolean",
        "MachinePool controller (today it reads only this field)",
        "the MachinePool never becomes provisioned"
    ),
    rule!(
        "replicas",
        "status.replicas reports the observed number of instances",
        Must,
        BOTH,
        InfraMachinePool,
        Crd,
        "inframachinepool-replicas",
        "status.replicas",
        "integer (int32)",
        "MachinePool controller (copied to MachinePool status.replicas)",
        "MachinePool status.replicas is never updated"
    ),
    rule!(
        "replicas-values",
        "status.replicas is an int32 >= 0",
        Must,
        BOTH,
        Object,
        Object,
        "inframachinepool-replicas",
        "status.replicas",
        "integer in [0, 2147483647]",
        "MachinePool controller",
        "the value cannot be copied to the MachinePool"
    ),
    rule!(
        "conditions",
        "status.conditions follows the contract's condition shape",
        Should,
        BOTH,
        InfraMachinePool,
        Crd,
        "inframachinepool-conditions",
        "status.conditions",
        "v1beta2: list of metav1.Condition (listType map, key type); v1beta1: Cluster API v1beta1 conditions",
        "MachinePool controller (Ready mirrored into InfrastructureReady)",
        "no infrastructure condition is surfaced on the MachinePool"
    ),
    rule!(
        "conditions-values",
        "conditions are well formed",
        Should,
        BOTH,
        Object,
        Object,
        "inframachinepool-conditions",
        "status.conditions[]",
        "type set, status True/False/Unknown, reason CamelCase, message at most 32768 characters",
        "MachinePool controller",
        "malformed conditions are ignored or rejected"
    ),
    rule!(
        "terminal-failures",
        "status.failureReason / failureMessage are strings",
        May,
        BOTH,
        InfraMachinePool,
        Crd,
        "inframachinepool-terminal-failures",
        "status.failureReason, status.failureMessage",
        "string (v1beta1 contract; read under the temporary compatibility only)",
        "MachinePool controller (status.deprecated.v1beta1)",
        "nothing (v1beta2 contract has no terminal failures)"
    ),
    rule!(
        "instances",
        "status.instances is a list",
        May,
        BOTH,
        InfraMachinePool,
        Crd,
        "inframachinepool-instances",
        "status.instances",
        "array of objects",
        "nobody (informational)",
        "nothing"
    ),
    rule!(
        "machine-pool-machines",
        "status.infrastructureMachineKind names the InfraMachine kind",
        May,
        BOTH,
        InfraMachinePool,
        Crd,
        "machinepoolmachines-support",
        "status.infrastructureMachineKind",
        "string",
        "MachinePool controller (creates a Machine per InfraMachine)",
        "MachinePool Machines are not used"
    ),
    rule!(
        "provider-id",
        "spec.providerID is a string",
        May,
        BOTH,
        InfraMachinePool,
        Crd,
        "inframachinepool-providerid",
        "spec.providerID",
        "string (minLength 1, maxLength 512 recommended)",
        "nobody (informational)",
        "nothing"
    ),
    rule!(
        "replicas-consistency",
        "status.replicas matches the number of providerIDList entries",
        Should,
        BOTH,
        Object,
        Object,
        "inframachinepool-provideridlist",
        "status.replicas, spec.providerIDList",
        "equal once provisioned",
        "MachinePool controller (readiness of replicas)",
        "the MachinePool waits for replicas that never appear"
    ),
    rule!(
        "pausing",
        "Pause when the Cluster or the object is paused; report a Paused condition",
        Should,
        BOTH,
        InfraMachinePool,
        Behavioural,
        "inframachinepool-pausing",
        "cluster.x-k8s.io/paused, Cluster spec.paused",
        "behaviour",
        "the provider controller",
        "the provider keeps reconciling paused objects"
    ),
    rule!(
        "template-resource",
        "An InfraMachinePoolTemplate `<Kind>Template` with its List exists",
        Should,
        BOTH,
        InfraMachinePoolTemplate,
        Crd,
        "inframachinepooltemplate-inframachinetemplatepoollist-resource-definition",
        "CRD `<Kind>Template`",
        "namespaced CRD with spec.template.spec",
        "topology controller (ClusterClass)",
        "the InfraMachinePool cannot be used in a ClusterClass"
    ),
    rule!(
        "template-spec",
        "The template has spec.template.spec",
        Must,
        BOTH,
        InfraMachinePoolTemplate,
        Crd,
        "inframachinepooltemplate-inframachinetemplatepoollist-resource-definition",
        "spec.template.spec",
        "object",
        "topology controller",
        "InfraMachinePools cannot be created from the template"
    ),
    rule!(
        "template-ssa-dry-run",
        "Templates support server-side-apply dry run",
        Should,
        BOTH,
        InfraMachinePoolTemplate,
        Behavioural,
        "inframachinepooltemplate-support-for-ssa-dry-run",
        "validating webhook",
        "behaviour",
        "topology controller",
        "ClusterClass reconciliation fails on immutability checks"
    ),
    rule!(
        "multi-tenancy",
        "Support --namespace and --watch-filter when running multiple instances",
        Should,
        BOTH,
        AllResources,
        Behavioural,
        "multi-tenancy",
        "controller flags",
        "behaviour",
        "clusterctl",
        "nothing"
    ),
    rule!(
        "clusterctl",
        "Follow the clusterctl provider contract",
        Should,
        BOTH,
        AllResources,
        Behavioural,
        "clusterctl-support",
        "release artifacts",
        "behaviour",
        "clusterctl",
        "clusterctl cannot install the provider"
    ),
    rule!(
        "deprecated-contract",
        "The CRD implements the current contract (not only the deprecated v1beta1 one)",
        Should,
        V1BETA2,
        AllResources,
        Crd,
        "all-resources-version",
        "metadata.labels[cluster.x-k8s.io/v1beta2]",
        "a `cluster.x-k8s.io/v1beta2` label",
        "reference resolution",
        "works only until v1beta1 compatibility is removed (tentatively April 2027)"
    ),
];

/// The rule with this id.
///
/// ```
/// let rule = capi_contract::rules::rule("provider-id-list").unwrap();
/// assert_eq!(rule.level, capi_contract::rules::Level::Must);
/// assert!(rule.url().ends_with("#inframachinepool-provideridlist"));
/// ```
#[must_use]
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_anchors_exist_on_the_contract_page() {
        let anchors = [
            "all-resources-scope",
            "all-resources-typemeta-and-objectmeta-field",
            "all-resources-api-group",
            "all-resources-version",
            "inframachinepool-inframachinepoollist-resource-definition",
            "inframachinepool-instances",
            "machinepoolmachines-support",
            "inframachinepool-providerid",
            "inframachinepool-provideridlist",
            "inframachinepool-initialization-completed",
            "inframachinepool-pausing",
            "inframachinepool-conditions",
            "inframachinepool-replicas",
            "inframachinepool-terminal-failures",
            "inframachinepooltemplate-inframachinetemplatepoollist-resource-definition",
            "inframachinepooltemplate-support-for-ssa-dry-run",
            "multi-tenancy",
            "clusterctl-support",
        ];
        let mut ids: Vec<_> = RULES.iter().map(|r| r.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), RULES.len());
        for r in RULES {
            assert!(anchors.contains(&r.anchor), "{}: {}", r.id, r.anchor);
        }
        // Every section of the page has at least one rule.
        for a in anchors {
            assert!(RULES.iter().any(|r| r.anchor == a), "{a}");
        }
    }

    #[test]
    fn every_rule_id_the_checks_report_exists() {
        let sources = [
            include_str!("crd_check.rs"),
            include_str!("pool_schema.rs"),
            include_str!("object_check.rs"),
        ];
        let mut used = 0;
        for src in sources {
            for (i, _) in src.match_indices('"') {
                let rest = &src[i + 1..];
                let Some(end) = rest.find('"') else { continue };
                let word = &rest[..end];
                // A rule id is the string right after `add(`, `record(`, `ctx,` or `rule(`.
                let before = src[..i].trim_end();
                let is_id_argument = ["add(", "record(", "ctx,", "rule("]
                    .iter()
                    .any(|p| before.ends_with(p));
                if is_id_argument && !word.contains(' ') {
                    used += 1;
                    assert!(rule(word).is_some(), "unknown rule id {word:?}");
                }
            }
        }
        assert!(used > 40, "found only {used} rule id uses");
    }
}
