//! The InfraMachinePool contract rules as data.
//!
//! One constant per rule of the upstream contract page
//! (`docs/book/src/developer/providers/contracts/infra-machinepool.md`), plus the
//! recommendations the page only shows in its examples (reported at SHOULD level) and the
//! checker's own [`KUSTOMIZE_RENDERING`] rule. Checks refer to the constants themselves
//! (`&rules::SCOPE`), so a finding can only name a rule that exists; the ids are stable and are
//! what the reports print and what `docs/contract.md` lists.

use std::fmt;

use capi_contract::Contract;
use capi_contract::fields::{
    cluster_class as class, infra_machine as machine, infra_machine_pool as pool,
    infra_machine_pool_template as template,
};
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
pub enum AppliesTo {
    /// Every resource core Cluster API interacts with (pool and template CRDs).
    AllResources,
    /// The InfraMachinePool CRD.
    InfraMachinePool,
    /// The InfraMachinePoolTemplate CRD.
    InfraMachinePoolTemplate,
    /// InfraMachinePool objects (instances).
    Object,
    /// The InfraMachine of MachinePool Machines (the kind a pool names in
    /// `status.infrastructureMachineKind`): its CRD and its objects.
    InfraMachine,
    /// ClusterClass objects (their MachinePoolClasses).
    ClusterClass,
    /// Cluster objects with a managed topology.
    Cluster,
}

/// Where a rule is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum CheckedOn {
    /// On the CRD (names, scope, labels, versions, OpenAPI schema).
    Crd,
    /// On objects of the kind.
    Object,
    /// On how the inputs were read (kustomizations).
    Inputs,
    /// Behaviour of the provider's controller: documented, not statically checkable.
    Behavioural,
    /// Across the inputs: CRDs and objects judged together (a pool and its InfraMachines, a
    /// ClusterClass and the template CRDs it names).
    Set,
}

/// What a [`Rule`] is about (its `field`). Contract fields are named by their accessors'
/// [`Field::path`](capi_contract::fields::Field::path), so a rule row and the code that reads
/// the field share one path, written once in [`capi_contract::fields`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleField {
    /// One or more contract fields.
    Fields(&'static [&'static [&'static str]]),
    /// The items of a contract field that is a list.
    Items(&'static [&'static str]),
    /// A field of each item of a list field (`spec.workers.machinePools[].bootstrap.templateRef`).
    ItemField(&'static [&'static str], &'static [&'static str]),
    /// Contract fields and something else the rule reads with them.
    FieldsAnd(&'static [&'static [&'static str]], &'static str),
    /// Not a field of an object: a part of the CRD, a label, a file, a process.
    Aspect(&'static str),
}

impl RuleField {
    /// The contract fields, in order.
    fn paths(&self) -> &[&'static [&'static str]] {
        match self {
            Self::Fields(paths) | Self::FieldsAnd(paths, _) => paths,
            Self::Items(path) | Self::ItemField(path, _) => std::slice::from_ref(path),
            Self::Aspect(_) => &[],
        }
    }

    /// `text` with `{0}`, `{1}`, ... replaced by the dotted paths of the fields.
    fn fill(&self, text: &str) -> String {
        self.paths()
            .iter()
            .enumerate()
            .fold(text.to_owned(), |out, (i, path)| {
                out.replace(&format!("{{{i}}}"), &path.join("."))
            })
    }
}

/// As its text (`spec.providerIDList`, `status.conditions[]`), as reports have always written it.
impl Serialize for RuleField {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl fmt::Display for RuleField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let join = |paths: &[&[&str]]| {
            paths
                .iter()
                .map(|p| p.join("."))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            Self::Fields(paths) => f.write_str(&join(paths)),
            Self::Items(path) => write!(f, "{}[]", path.join(".")),
            Self::ItemField(list, field) => write!(f, "{}[].{}", list.join("."), field.join(".")),
            Self::FieldsAnd(paths, and) => write!(f, "{}; {and}", join(paths)),
            Self::Aspect(text) => f.write_str(text),
        }
    }
}

/// One contract rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// Stable identifier, reported with every finding.
    pub id: &'static str,
    /// Short title. Here and in `shape`, `read_by` and `when_absent`, `{0}`, `{1}` stand for
    /// the rule's contract fields in order ([`Rule::field`]), so the text names each field by
    /// its accessor's path; [`Rule::title`] and the other methods of the same name fill them in.
    pub title: &'static str,
    /// How binding it is.
    pub level: Level,
    /// Contract versions it applies to: a finding of the rule is only ever recorded for
    /// one of them ([`crate::report::Report::check`] drops any other).
    pub contracts: Contracts,
    /// What it is about.
    pub applies_to: AppliesTo,
    /// Where it is checked.
    pub checked_on: CheckedOn,
    /// Anchor of the section of the upstream contract page.
    pub anchor: &'static str,
    /// What it is about: contract fields, named by their accessors in
    /// [`capi_contract::fields`], or another aspect (a CRD part, a label, a file).
    pub field: RuleField,
    /// Expected type or shape.
    pub shape: &'static str,
    /// Who reads it in core Cluster API.
    pub read_by: &'static str,
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

    /// True when the rule applies to `contract`.
    #[must_use]
    pub fn applies_to_contract(&self, contract: Contract) -> bool {
        self.contracts.contains(contract)
    }

    /// The title, its fields filled in (`spec.providerIDList is a list of strings`).
    ///
    /// ```
    /// use capi_contract_check::rules::PROVIDER_ID_LIST;
    /// assert_eq!(PROVIDER_ID_LIST.title(), "spec.providerIDList is a list of strings");
    /// ```
    #[must_use]
    pub fn title(&self) -> String {
        self.field.fill(self.title)
    }

    /// The expected type or shape, its fields filled in.
    #[must_use]
    pub fn shape(&self) -> String {
        self.field.fill(self.shape)
    }

    /// Who reads the field in core Cluster API, its fields filled in.
    #[must_use]
    pub fn read_by(&self) -> String {
        self.field.fill(self.read_by)
    }

    /// What happens when the field is absent or wrong, its fields filled in.
    #[must_use]
    pub fn when_absent(&self) -> String {
        self.field.fill(self.when_absent)
    }
}

/// With its texts filled in ([`Rule::title`]); keys in camelCase.
impl Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("Rule", 11)?;
        s.serialize_field("id", self.id)?;
        s.serialize_field("title", &self.title())?;
        s.serialize_field("level", &self.level)?;
        s.serialize_field("contracts", &self.contracts.list())?;
        s.serialize_field("appliesTo", &self.applies_to)?;
        s.serialize_field("checkedOn", &self.checked_on)?;
        s.serialize_field("anchor", self.anchor)?;
        s.serialize_field("field", &self.field)?;
        s.serialize_field("shape", &self.shape())?;
        s.serialize_field("readBy", &self.read_by())?;
        s.serialize_field("whenAbsent", &self.when_absent())?;
        s.end()
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id)
    }
}

impl PartialEq<&str> for &Rule {
    fn eq(&self, other: &&str) -> bool {
        self.id == *other
    }
}

/// The contracts a rule applies to: a range of [`Contract::ALL`], so that a contract added
/// later is covered by every rule still in force without touching the rule.
///
/// ```
/// use capi_contract::Contract;
/// use capi_contract_check::rules::{Contracts, INITIALIZATION_PROVISIONED, READY};
/// assert_eq!(INITIALIZATION_PROVISIONED.contracts, Contracts::Since(Contract::V1Beta2));
/// assert!(!READY.applies_to_contract(Contract::V1Beta2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contracts {
    /// Every contract.
    All,
    /// This contract and every later one (the rule came with it).
    Since(Contract),
    /// Every contract up to this one (the rule was dropped after it).
    Until(Contract),
}

impl Contracts {
    /// True when `contract` is in the range.
    #[must_use]
    pub fn contains(self, contract: Contract) -> bool {
        match self {
            Self::All => true,
            Self::Since(first) => contract >= first,
            Self::Until(last) => contract <= last,
        }
    }

    /// The contracts in the range, newest first (as the rule tables list them).
    #[must_use]
    pub fn list(self) -> Vec<Contract> {
        Contract::ALL
            .iter()
            .rev()
            .copied()
            .filter(|c| self.contains(*c))
            .collect()
    }
}

const BOTH: Contracts = Contracts::All;
const V1BETA2_ON: Contracts = Contracts::Since(Contract::V1Beta2);
const V1BETA1_ONLY: Contracts = Contracts::Until(Contract::V1Beta1);

/// `scope`: All resources are namespace-scoped.
pub static SCOPE: Rule = Rule {
    id: "scope",
    title: "All resources are namespace-scoped",
    level: Level::Must,
    contracts: BOTH,
    applies_to: AppliesTo::AllResources,
    checked_on: CheckedOn::Crd,
    anchor: "all-resources-scope",
    field: RuleField::Aspect("spec.scope"),
    shape: "`Namespaced`",
    read_by: "all core controllers",
    when_absent: "objects cannot be referenced from a namespaced MachinePool",
};

/// `type-and-object-meta`: All resources have TypeMeta and ObjectMeta.
pub static TYPE_AND_OBJECT_META: Rule = Rule {
    id: "type-and-object-meta",
    title: "All resources have TypeMeta and ObjectMeta",
    level: Level::Must,
    contracts: BOTH,
    applies_to: AppliesTo::AllResources,
    checked_on: CheckedOn::Crd,
    anchor: "all-resources-typemeta-and-objectmeta-field",
    field: RuleField::Aspect("apiVersion, kind, metadata"),
    shape: "string, string, object",
    read_by: "all core controllers",
    when_absent: "objects cannot be read as Kubernetes objects",
};

/// `api-group`: API group (infrastructure.cluster.x-k8s.io, or RBAC for another group).
pub static API_GROUP: Rule = Rule {
    id: "api-group",
    title: "API group (infrastructure.cluster.x-k8s.io, or RBAC for another group)",
    level: Level::May,
    contracts: BOTH,
    applies_to: AppliesTo::AllResources,
    checked_on: CheckedOn::Crd,
    anchor: "all-resources-api-group",
    field: RuleField::Aspect("spec.group"),
    shape: "`infrastructure.cluster.x-k8s.io` or own group with aggregated RBAC",
    read_by: "core controllers (RBAC)",
    when_absent: "core controllers get no access unless a ClusterRole with `cluster.x-k8s.io/aggregate-to-manager: \"true\"` grants it",
};

/// `version-policy`: Versions follow the Kubernetes API versioning scheme.
pub static VERSION_POLICY: Rule = Rule {
    id: "version-policy",
    title: "Versions follow the Kubernetes API versioning scheme",
    level: Level::Should,
    contracts: BOTH,
    applies_to: AppliesTo::AllResources,
    checked_on: CheckedOn::Crd,
    anchor: "all-resources-version",
    field: RuleField::Aspect("spec.versions[].name"),
    shape: "`v<N>`, `v<N>alpha<M>` or `v<N>beta<M>`",
    read_by: "contract label resolution (version ordering)",
    when_absent: "version ordering falls back to reverse lexicographic order",
};

/// `contract-label`: CRD has a `cluster.x-k8s.io/<contract>` label.
pub static CONTRACT_LABEL: Rule = Rule {
    id: "contract-label",
    title: "CRD has a `cluster.x-k8s.io/<contract>` label",
    level: Level::Must,
    contracts: BOTH,
    applies_to: AppliesTo::AllResources,
    checked_on: CheckedOn::Crd,
    anchor: "all-resources-version",
    field: RuleField::Aspect("metadata.labels[cluster.x-k8s.io/<contract>]"),
    shape: "`_`-separated CRD versions",
    read_by: "reference resolution, conversion of references",
    when_absent: "core controllers cannot find the apiVersion of referenced objects",
};

/// `contract-label-versions`: every version in a contract label exists in the CRD.
pub static CONTRACT_LABEL_VERSIONS: Rule = Rule {
    id: "contract-label-versions",
    title: "Every version in a contract label is a version of the CRD",
    level: Level::Must,
    contracts: BOTH,
    applies_to: AppliesTo::AllResources,
    checked_on: CheckedOn::Crd,
    anchor: "all-resources-version",
    field: RuleField::Aspect("metadata.labels[cluster.x-k8s.io/<contract>]"),
    shape: "each listed version exists in spec.versions",
    read_by: "reference resolution (highest listed version is used)",
    when_absent: "references resolve to a version that does not exist",
};

/// `contract-label-served`: the versions a contract label lists are served.
pub static CONTRACT_LABEL_SERVED: Rule = Rule {
    id: "contract-label-served",
    title: "The versions in a contract label are served",
    level: Level::Should,
    contracts: BOTH,
    applies_to: AppliesTo::AllResources,
    checked_on: CheckedOn::Crd,
    anchor: "all-resources-version",
    field: RuleField::Aspect("metadata.labels[cluster.x-k8s.io/<contract>]"),
    shape: "each listed version is served (the controllers pick the last one)",
    read_by: "reference resolution (highest listed version is used)",
    when_absent: "when the highest listed version is not served, references resolve to a version the API server does not serve",
};

/// `crd-name`: CRD name is plural(lowercase(kind)).group.
pub static CRD_NAME: Rule = Rule {
    id: "crd-name",
    title: "CRD name is plural(lowercase(kind)).group",
    level: Level::Must,
    contracts: BOTH,
    applies_to: AppliesTo::AllResources,
    checked_on: CheckedOn::Crd,
    anchor: "inframachinepool-inframachinepoollist-resource-definition",
    field: RuleField::Aspect("metadata.name"),
    shape: "`CalculateCRDName(group, kind)`",
    read_by: "CRD lookup for contract labels",
    when_absent: "the CRD is not found and references cannot be resolved",
};

/// `list-kind`: List kind is `<Kind>List`.
pub static LIST_KIND: Rule = Rule {
    id: "list-kind",
    title: "List kind is `<Kind>List`",
    level: Level::Must,
    contracts: BOTH,
    applies_to: AppliesTo::AllResources,
    checked_on: CheckedOn::Crd,
    anchor: "inframachinepool-inframachinepoollist-resource-definition",
    field: RuleField::Aspect("spec.names.listKind"),
    shape: "`<Kind>List`",
    read_by: "list calls",
    when_absent: "list requests for the kind fail",
};

/// `status-subresource`: Status subresource enabled.
pub static STATUS_SUBRESOURCE: Rule = Rule {
    id: "status-subresource",
    title: "Status subresource enabled",
    level: Level::Should,
    contracts: BOTH,
    applies_to: AppliesTo::InfraMachinePool,
    checked_on: CheckedOn::Crd,
    anchor: "inframachinepool-inframachinepoollist-resource-definition",
    field: RuleField::Aspect("spec.versions[].subresources.status"),
    shape: "`{}`",
    read_by: "provider controller status updates (example in the contract)",
    when_absent: "status is written with the main resource",
};

/// `categories`: Category `cluster-api`.
pub static CATEGORIES: Rule = Rule {
    id: "categories",
    title: "Category `cluster-api`",
    level: Level::Should,
    contracts: BOTH,
    applies_to: AppliesTo::AllResources,
    checked_on: CheckedOn::Crd,
    anchor: "inframachinepool-inframachinepoollist-resource-definition",
    field: RuleField::Aspect("spec.names.categories"),
    shape: "contains `cluster-api`",
    read_by: "`kubectl get cluster-api` (example in the contract)",
    when_absent: "objects are not listed with `kubectl get cluster-api`",
};

/// `provider-id-list`: spec.providerIDList is a list of strings.
pub static PROVIDER_ID_LIST: Rule = Rule {
    id: "provider-id-list",
    title: "{0} is a list of strings",
    level: Level::Must,
    contracts: BOTH,
    applies_to: AppliesTo::InfraMachinePool,
    checked_on: CheckedOn::Crd,
    anchor: "inframachinepool-provideridlist",
    field: RuleField::Fields(&[pool::PROVIDER_ID_LIST.path()]),
    shape: "array of string",
    read_by: "MachinePool controller (copied to the MachinePool's {0}, Node matching and deletion)",
    when_absent: "the MachinePool never learns its instances; Nodes are not matched",
};

/// `provider-id-list-validation`: spec.providerIDList validation as in the contract example.
pub static PROVIDER_ID_LIST_VALIDATION: Rule = Rule {
    id: "provider-id-list-validation",
    title: "{0} validation as in the contract example",
    level: Level::Should,
    contracts: BOTH,
    applies_to: AppliesTo::InfraMachinePool,
    checked_on: CheckedOn::Crd,
    anchor: "inframachinepool-provideridlist",
    field: RuleField::Fields(&[pool::PROVIDER_ID_LIST.path()]),
    shape: "listType atomic, maxItems 10000, items minLength 1 and maxLength 512",
    read_by: "API server validation",
    when_absent: "invalid IDs reach the MachinePool controller",
};

/// `provider-id-list-values`: providerIDList entries are valid.
pub static PROVIDER_ID_LIST_VALUES: Rule = Rule {
    id: "provider-id-list-values",
    title: "{0} entries are valid",
    level: Level::Must,
    contracts: BOTH,
    applies_to: AppliesTo::Object,
    checked_on: CheckedOn::Object,
    anchor: "inframachinepool-provideridlist",
    field: RuleField::Fields(&[pool::PROVIDER_ID_LIST.path()]),
    shape: "at most 10000 non-empty strings of at most 512 characters",
    read_by: "MachinePool controller",
    when_absent: "Nodes are not matched, or the MachinePool rejects the list",
};

/// `initialization-provisioned`: status.initialization.provisioned reports initialization completed.
pub static INITIALIZATION_PROVISIONED: Rule = Rule {
    id: "initialization-provisioned",
    title: "{0} reports initialization completed",
    level: Level::Must,
    contracts: V1BETA2_ON,
    applies_to: AppliesTo::InfraMachinePool,
    checked_on: CheckedOn::Crd,
    anchor: "inframachinepool-initialization-completed",
    field: RuleField::Fields(&[pool::PROVISIONED.path_in(Contract::V1Beta2)]),
    shape: "boolean (pointer)",
    read_by: "MachinePool controller (status.initialization.infrastructureProvisioned)",
    when_absent: "the MachinePool never becomes provisioned (the v1beta1 field is read only under the temporary compatibility)",
};

/// `initialization-min-properties`: status.initialization has minProperties 1.
pub static INITIALIZATION_MIN_PROPERTIES: Rule = Rule {
    id: "initialization-min-properties",
    title: "{0} has minProperties 1",
    level: Level::Should,
    contracts: V1BETA2_ON,
    applies_to: AppliesTo::InfraMachinePool,
    checked_on: CheckedOn::Crd,
    anchor: "inframachinepool-initialization-completed",
    field: RuleField::Fields(&[pool::INITIALIZATION.path_in(Contract::V1Beta2)]),
    shape: "object with minProperties 1",
    read_by: "API server validation (example in the contract)",
    when_absent: "an empty initialization object can be written",
};

/// `ready`: status.ready reports initialization completed (v1beta1 contract).
pub static READY: Rule = Rule {
    id: "ready",
    title: "{0} reports initialization completed (v1beta1 contract)",
    level: Level::Must,
    contracts: V1BETA1_ONLY,
    applies_to: AppliesTo::InfraMachinePool,
    checked_on: CheckedOn::Crd,
    anchor: "inframachinepool-initialization-completed",
    field: RuleField::Fields(&[pool::PROVISIONED.path_in(Contract::V1Beta1)]),
    shape: "boolean",
    read_by: "MachinePool controller (today it reads only this field)",
    when_absent: "the MachinePool never becomes provisioned",
};

/// `replicas`: status.replicas reports the observed number of instances.
pub static REPLICAS: Rule = Rule {
    id: "replicas",
    title: "{0} reports the observed number of instances",
    level: Level::Must,
    contracts: BOTH,
    applies_to: AppliesTo::InfraMachinePool,
    checked_on: CheckedOn::Crd,
    anchor: "inframachinepool-replicas",
    field: RuleField::Fields(&[pool::REPLICAS.path()]),
    shape: "integer (int32)",
    read_by: "MachinePool controller (copied to the MachinePool's {0})",
    when_absent: "the MachinePool's {0} is never updated",
};

/// `replicas-values`: status.replicas is an int32 >= 0.
pub static REPLICAS_VALUES: Rule = Rule {
    id: "replicas-values",
    title: "{0} is an int32 >= 0",
    level: Level::Must,
    contracts: BOTH,
    applies_to: AppliesTo::Object,
    checked_on: CheckedOn::Object,
    anchor: "inframachinepool-replicas",
    field: RuleField::Fields(&[pool::REPLICAS.path()]),
    shape: "integer in [0, 2147483647]",
    read_by: "MachinePool controller",
    when_absent: "the value cannot be copied to the MachinePool",
};

/// `conditions`: status.conditions follows the contract's condition shape.
pub static CONDITIONS: Rule = Rule {
    id: "conditions",
    title: "{0} follows the contract's condition shape",
    level: Level::Should,
    contracts: BOTH,
    applies_to: AppliesTo::InfraMachinePool,
    checked_on: CheckedOn::Crd,
    anchor: "inframachinepool-conditions",
    field: RuleField::Fields(&[pool::CONDITIONS.path()]),
    shape: "v1beta2: list of metav1.Condition (listType map, key type); v1beta1: Cluster API v1beta1 conditions",
    read_by: "MachinePool controller (Ready mirrored into InfrastructureReady)",
    when_absent: "no infrastructure condition is surfaced on the MachinePool",
};

/// `conditions-values`: conditions are well formed.
pub static CONDITIONS_VALUES: Rule = Rule {
    id: "conditions-values",
    title: "conditions are well formed",
    level: Level::Should,
    contracts: BOTH,
    applies_to: AppliesTo::Object,
    checked_on: CheckedOn::Object,
    anchor: "inframachinepool-conditions",
    field: RuleField::Items(pool::CONDITIONS.path()),
    shape: "type set, status True/False/Unknown, reason CamelCase, message at most 32768 characters",
    read_by: "MachinePool controller",
    when_absent: "malformed conditions are ignored or rejected",
};

/// `terminal-failures`: status.failureReason / failureMessage are strings.
pub static TERMINAL_FAILURES: Rule = Rule {
    id: "terminal-failures",
    title: "{0} / {1} are strings",
    level: Level::May,
    contracts: BOTH,
    applies_to: AppliesTo::InfraMachinePool,
    checked_on: CheckedOn::Crd,
    anchor: "inframachinepool-terminal-failures",
    field: RuleField::Fields(&[
        pool::FAILURE_REASON.path_in(Contract::V1Beta1),
        pool::FAILURE_MESSAGE.path_in(Contract::V1Beta1),
    ]),
    shape: "string (v1beta1 contract; read under the temporary compatibility only)",
    read_by: "MachinePool controller (status.deprecated.v1beta1)",
    when_absent: "nothing (v1beta2 contract has no terminal failures)",
};

/// `instances`: status.instances is a list.
pub static INSTANCES: Rule = Rule {
    id: "instances",
    title: "{0} is a list",
    level: Level::May,
    contracts: BOTH,
    applies_to: AppliesTo::InfraMachinePool,
    checked_on: CheckedOn::Crd,
    anchor: "inframachinepool-instances",
    field: RuleField::Fields(&[pool::INSTANCES.path()]),
    shape: "array of objects",
    read_by: "nobody (informational)",
    when_absent: "nothing",
};

/// `machine-pool-machines`: status.infrastructureMachineKind names the InfraMachine kind.
pub static MACHINE_POOL_MACHINES: Rule = Rule {
    id: "machine-pool-machines",
    title: "{0} names the InfraMachine kind",
    level: Level::May,
    contracts: BOTH,
    applies_to: AppliesTo::InfraMachinePool,
    checked_on: CheckedOn::Crd,
    anchor: "machinepoolmachines-support",
    field: RuleField::Fields(&[pool::INFRASTRUCTURE_MACHINE_KIND.path()]),
    shape: "string",
    read_by: "MachinePool controller (creates a Machine per InfraMachine)",
    when_absent: "MachinePool Machines are not used",
};

/// `provider-id`: spec.providerID is a string.
pub static PROVIDER_ID: Rule = Rule {
    id: "provider-id",
    title: "{0} is a string",
    level: Level::May,
    contracts: BOTH,
    applies_to: AppliesTo::InfraMachinePool,
    checked_on: CheckedOn::Crd,
    anchor: "inframachinepool-providerid",
    field: RuleField::Fields(&[pool::PROVIDER_ID.path()]),
    shape: "string (minLength 1, maxLength 512 recommended)",
    read_by: "nobody (informational)",
    when_absent: "nothing",
};

/// `replicas-consistency`: status.replicas matches the number of providerIDList entries.
pub static REPLICAS_CONSISTENCY: Rule = Rule {
    id: "replicas-consistency",
    title: "{0} matches the number of {1} entries",
    level: Level::Should,
    contracts: BOTH,
    applies_to: AppliesTo::Object,
    checked_on: CheckedOn::Object,
    anchor: "inframachinepool-provideridlist",
    field: RuleField::Fields(&[pool::REPLICAS.path(), pool::PROVIDER_ID_LIST.path()]),
    shape: "equal once provisioned",
    read_by: "MachinePool controller (readiness of replicas)",
    when_absent: "the MachinePool waits for replicas that never appear",
};

/// `pausing`: Pause when the Cluster or the object is paused; report a Paused condition.
pub static PAUSING: Rule = Rule {
    id: "pausing",
    title: "Pause when the Cluster or the object is paused; report a Paused condition",
    level: Level::Should,
    contracts: BOTH,
    applies_to: AppliesTo::InfraMachinePool,
    checked_on: CheckedOn::Behavioural,
    anchor: "inframachinepool-pausing",
    field: RuleField::Aspect("cluster.x-k8s.io/paused, Cluster spec.paused"),
    shape: "behaviour",
    read_by: "the provider controller",
    when_absent: "the provider keeps reconciling paused objects",
};

/// `template-resource`: An InfraMachinePoolTemplate `<Kind>Template` with its List exists.
pub static TEMPLATE_RESOURCE: Rule = Rule {
    id: "template-resource",
    title: "An InfraMachinePoolTemplate `<Kind>Template` with its List exists",
    level: Level::Should,
    contracts: BOTH,
    applies_to: AppliesTo::InfraMachinePoolTemplate,
    checked_on: CheckedOn::Crd,
    anchor: "inframachinepooltemplate-inframachinetemplatepoollist-resource-definition",
    field: RuleField::Aspect("CRD `<Kind>Template`"),
    shape: "a namespaced CRD whose versions pass `template-spec`",
    read_by: "topology controller (ClusterClass)",
    when_absent: "the InfraMachinePool cannot be used in a ClusterClass",
};

/// `template-spec`: The template has spec.template.spec.
pub static TEMPLATE_SPEC: Rule = Rule {
    id: "template-spec",
    title: "The template has {0}",
    level: Level::Must,
    contracts: BOTH,
    applies_to: AppliesTo::InfraMachinePoolTemplate,
    checked_on: CheckedOn::Crd,
    anchor: "inframachinepooltemplate-inframachinetemplatepoollist-resource-definition",
    field: RuleField::Fields(&[template::TEMPLATE_SPEC.path()]),
    shape: "object",
    read_by: "topology controller",
    when_absent: "InfraMachinePools cannot be created from the template",
};

/// `template-ssa-dry-run`: Templates support server-side-apply dry run.
pub static TEMPLATE_SSA_DRY_RUN: Rule = Rule {
    id: "template-ssa-dry-run",
    title: "Templates support server-side-apply dry run",
    level: Level::Should,
    contracts: BOTH,
    applies_to: AppliesTo::InfraMachinePoolTemplate,
    checked_on: CheckedOn::Behavioural,
    anchor: "inframachinepooltemplate-support-for-ssa-dry-run",
    field: RuleField::Aspect("validating webhook"),
    shape: "behaviour",
    read_by: "topology controller",
    when_absent: "ClusterClass reconciliation fails on immutability checks",
};

/// `multi-tenancy`: Support --namespace and --watch-filter when running multiple instances.
pub static MULTI_TENANCY: Rule = Rule {
    id: "multi-tenancy",
    title: "Support --namespace and --watch-filter when running multiple instances",
    level: Level::Should,
    contracts: BOTH,
    applies_to: AppliesTo::AllResources,
    checked_on: CheckedOn::Behavioural,
    anchor: "multi-tenancy",
    field: RuleField::Aspect("controller flags"),
    shape: "behaviour",
    read_by: "clusterctl",
    when_absent: "nothing",
};

/// `clusterctl`: Follow the clusterctl provider contract.
pub static CLUSTERCTL: Rule = Rule {
    id: "clusterctl",
    title: "Follow the clusterctl provider contract",
    level: Level::Should,
    contracts: BOTH,
    applies_to: AppliesTo::AllResources,
    checked_on: CheckedOn::Behavioural,
    anchor: "clusterctl-support",
    field: RuleField::Aspect("release artifacts"),
    shape: "behaviour",
    read_by: "clusterctl",
    when_absent: "clusterctl cannot install the provider",
};

/// `deprecated-contract`: The CRD implements the current contract (not only deprecated ones).
pub static DEPRECATED_CONTRACT: Rule = Rule {
    id: "deprecated-contract",
    title: "The CRD implements the current contract (not only deprecated ones)",
    level: Level::Should,
    contracts: V1BETA2_ON,
    applies_to: AppliesTo::AllResources,
    checked_on: CheckedOn::Crd,
    anchor: "all-resources-version",
    field: RuleField::Aspect("metadata.labels[cluster.x-k8s.io/<current contract>]"),
    shape: "a label for the current contract (`Contract::current()`)",
    read_by: "reference resolution",
    when_absent: "works only until the compatibility with its contract is removed (v1beta1: tentatively April 2027)",
};

/// `provider-id-format`: providerIDList entries look like provider IDs.
pub static PROVIDER_ID_FORMAT: Rule = Rule {
    id: "provider-id-format",
    title: "{0} entries look like provider IDs",
    level: Level::Should,
    contracts: BOTH,
    applies_to: AppliesTo::Object,
    checked_on: CheckedOn::Object,
    anchor: "inframachinepool-provideridlist",
    field: RuleField::Items(pool::PROVIDER_ID_LIST.path()),
    shape: "`<provider>://<id>`, exactly as the Node's provider ID",
    read_by: "MachinePool controller (Node matching by exact provider ID)",
    when_absent: "Nodes are not matched to the pool",
};

/// `kustomize-rendering`: the checker's own rule: inputs are read as `kustomize build`
/// renders them; what a kustomization does that is not emulated is reported (INFO).
pub static KUSTOMIZE_RENDERING: Rule = Rule {
    id: "kustomize-rendering",
    title: "Inputs are read as `kustomize build` renders them",
    level: Level::May,
    contracts: BOTH,
    applies_to: AppliesTo::AllResources,
    checked_on: CheckedOn::Inputs,
    anchor: "all-resources-version",
    field: RuleField::Aspect("kustomization.yaml"),
    shape: "labels and patches applied as kustomize does; other fields named when not emulated",
    read_by: "this checker (the contract labels are usually set by kustomize)",
    when_absent: "labels or patches the checker could not apply are not seen; pipe `kustomize build` instead",
};

/// `served-version-unlabelled`: every served version is mapped by a contract label.
pub static SERVED_VERSION_UNLABELLED: Rule = Rule {
    id: "served-version-unlabelled",
    title: "Every served version is listed in a `cluster.x-k8s.io/<contract>` label",
    // No contract sentence requires labelling every served version (infra-machinepool.md:
    // "Each value MUST point to an available version in your CRD Spec" constrains the values
    // only); an unlabelled served version is worth knowing, not a violation.
    level: Level::May,
    contracts: BOTH,
    applies_to: AppliesTo::AllResources,
    checked_on: CheckedOn::Crd,
    anchor: "all-resources-version",
    field: RuleField::Aspect("metadata.labels[cluster.x-k8s.io/<contract>]"),
    shape: "each served version listed in a contract label",
    read_by: "reference resolution (only labelled versions are ever used)",
    when_absent: "the version is served but core never uses it, and this checker does not check its schema",
};

/// `capability-annotation`: a capability annotation this tool reads holds `"true"` or
/// `"false"`.
pub static CAPABILITY_ANNOTATION: Rule = Rule {
    id: "capability-annotation",
    title: "A capability annotation on the InfraMachinePool CRD is \"true\" or \"false\"",
    level: Level::Should,
    contracts: BOTH,
    applies_to: AppliesTo::InfraMachinePool,
    checked_on: CheckedOn::Crd,
    anchor: "machinepoolmachines-support",
    field: RuleField::Aspect("metadata.annotations[capabilities.capi-machinepool-rs.github.io/*]"),
    shape: "\"true\" or \"false\"",
    read_by: "this checker's capability report (not by Cluster API)",
    when_absent: "the capability is reported as unknown",
};

/// `machine-pool-machine-crd`: the InfraMachine kind a pool names has a CRD core can list.
pub static MACHINE_POOL_MACHINE_CRD: Rule = Rule {
    id: "machine-pool-machine-crd",
    title: "The InfraMachine kind of MachinePool Machines has a CRD the MachinePool controller can list",
    level: Level::Must,
    contracts: BOTH,
    applies_to: AppliesTo::InfraMachine,
    checked_on: CheckedOn::Set,
    anchor: "machinepoolmachines-support",
    field: RuleField::FieldsAnd(&[pool::INFRASTRUCTURE_MACHINE_KIND.path()], "CRD `<Kind>`"),
    shape: "namespaced CRD of that kind in the pool's group, serving the pool's version, listKind `<Kind>List`, contract labels, a string provider ID (`machine-pool-machine-provider-id`)",
    read_by: "MachinePool controller (`reconcileMachines` lists `<Kind>List` at the pool's apiVersion)",
    when_absent: "listing InfraMachines fails and no MachinePool Machine is created",
};

/// `machine-pool-machine-labels`: InfraMachines carry the labels the MachinePool controller
/// selects them by.
pub static MACHINE_POOL_MACHINE_LABELS: Rule = Rule {
    id: "machine-pool-machine-labels",
    title: "InfraMachines carry the cluster-name and formatted pool-name labels",
    level: Level::Must,
    contracts: BOTH,
    applies_to: AppliesTo::InfraMachine,
    checked_on: CheckedOn::Set,
    anchor: "machinepoolmachines-support",
    field: RuleField::Aspect(
        "metadata.labels[cluster.x-k8s.io/cluster-name], metadata.labels[cluster.x-k8s.io/pool-name]",
    ),
    shape: "cluster name; `format.MustFormatValue(MachinePool name)`",
    read_by: "MachinePool controller (`reconcileMachines` selector)",
    when_absent: "Cluster API never sees the InfraMachine: no Machine, no drain, no MachineHealthCheck",
};

/// `machine-pool-machine-owner`: InfraMachines are owned by their InfraMachinePool.
pub static MACHINE_POOL_MACHINE_OWNER: Rule = Rule {
    id: "machine-pool-machine-owner",
    title: "InfraMachines have an owner reference to their InfraMachinePool",
    level: Level::Should,
    contracts: BOTH,
    applies_to: AppliesTo::InfraMachine,
    checked_on: CheckedOn::Set,
    anchor: "machinepoolmachines-support",
    field: RuleField::Aspect("metadata.ownerReferences"),
    shape: "reference to the InfraMachinePool (kind, name) until the Machine owns it",
    read_by: "garbage collection (proposal 20220209-machinepool-machines, InfraMachinePoolMachine creation)",
    when_absent: "InfraMachines are orphaned before their Machine exists",
};

/// `machine-pool-machine-provider-id`: an InfraMachine's spec.providerID is in its pool's
/// providerIDList.
pub static MACHINE_POOL_MACHINE_PROVIDER_ID: Rule = Rule {
    id: "machine-pool-machine-provider-id",
    title: "An InfraMachine's {0} is listed in its pool's {1}",
    level: Level::Should,
    contracts: BOTH,
    applies_to: AppliesTo::InfraMachine,
    checked_on: CheckedOn::Set,
    anchor: "machinepoolmachines-support",
    field: RuleField::Fields(&[machine::PROVIDER_ID.path(), pool::PROVIDER_ID_LIST.path()]),
    shape: "non-empty string, an entry of the pool's {1}",
    read_by: "MachinePool controller (`createOrUpdateMachines` matches the Node by it)",
    when_absent: "the Machine gets no Node and no Kubernetes version",
};

/// `template-schema-compatible`: the template's `spec.template.spec` fits the pool's `spec`.
pub static TEMPLATE_SCHEMA_COMPATIBLE: Rule = Rule {
    id: "template-schema-compatible",
    title: "Every field of the template's {0} exists in the InfraMachinePool's spec",
    level: Level::Should,
    contracts: BOTH,
    applies_to: AppliesTo::InfraMachinePoolTemplate,
    checked_on: CheckedOn::Set,
    anchor: "inframachinepooltemplate-inframachinetemplatepoollist-resource-definition",
    field: RuleField::Fields(&[template::TEMPLATE_SPEC.path()]),
    shape: "properties a subset of the InfraMachinePool spec's, at the same version",
    read_by: "topology controller (copies {0} into the InfraMachinePool's spec)",
    when_absent: "the API server silently prunes the field: what the ClusterClass sets never reaches the pool",
};

/// `clusterclass-infrastructure-template`: a MachinePoolClass names an InfraMachinePoolTemplate
/// the provider defines.
pub static CLUSTERCLASS_INFRASTRUCTURE_TEMPLATE: Rule = Rule {
    id: "clusterclass-infrastructure-template",
    title: "A MachinePoolClass's infrastructure templateRef names a template CRD among the inputs",
    level: Level::Must,
    contracts: BOTH,
    applies_to: AppliesTo::ClusterClass,
    checked_on: CheckedOn::Set,
    anchor: "inframachinepooltemplate-inframachinetemplatepoollist-resource-definition",
    field: RuleField::ItemField(
        class::MACHINE_POOL_CLASSES.path(),
        class::INFRASTRUCTURE_TEMPLATE.path_in(Contract::CURRENT),
    ),
    shape: "apiVersion/kind of a template CRD with contract labels that passes `template-spec`",
    read_by: "topology controller (ClusterClass reconciler resolves and clones the template)",
    when_absent: "the ClusterClass never becomes ready and no MachinePool is created",
};

/// `clusterclass-bootstrap-template`: a MachinePoolClass names a bootstrap template (required
/// upstream today, cluster-api#10943).
pub static CLUSTERCLASS_BOOTSTRAP_TEMPLATE: Rule = Rule {
    id: "clusterclass-bootstrap-template",
    title: "A MachinePoolClass names a bootstrap template (required today, cluster-api#10943)",
    level: Level::Must,
    contracts: BOTH,
    applies_to: AppliesTo::ClusterClass,
    checked_on: CheckedOn::Set,
    anchor: "inframachinepooltemplate-inframachinetemplatepoollist-resource-definition",
    field: RuleField::ItemField(
        class::MACHINE_POOL_CLASSES.path(),
        class::BOOTSTRAP_TEMPLATE.path_in(Contract::CURRENT),
    ),
    shape: "a template reference (kind, name, apiVersion)",
    read_by: "ClusterClass validation (MachinePoolClass.bootstrap is +required)",
    when_absent: "the API server rejects the ClusterClass; managed pools need a placeholder bootstrap template",
};

/// `cluster-topology-machine-pool-class`: a Cluster's MachinePool topologies name classes of
/// its ClusterClass.
pub static CLUSTER_TOPOLOGY_MACHINE_POOL_CLASS: Rule = Rule {
    id: "cluster-topology-machine-pool-class",
    title: "A Cluster's MachinePool topologies name MachinePoolClasses of its ClusterClass",
    level: Level::Must,
    contracts: BOTH,
    applies_to: AppliesTo::Cluster,
    checked_on: CheckedOn::Set,
    anchor: "inframachinepooltemplate-inframachinetemplatepoollist-resource-definition",
    field: RuleField::Aspect("spec.topology.workers.machinePools[].class"),
    shape: "the class of a MachinePoolClass in the ClusterClass",
    read_by: "Cluster topology webhook and reconciler",
    when_absent: "the Cluster is rejected or its MachinePool is never created",
};

/// `inframachinepool-crd`: The inputs hold an InfraMachinePool CRD; nothing checked is never
/// a pass.
pub static INFRA_MACHINE_POOL_CRD: Rule = Rule {
    id: "inframachinepool-crd",
    title: "The inputs hold an InfraMachinePool CRD (nothing checked is never a pass)",
    level: Level::Must,
    contracts: BOTH,
    applies_to: AppliesTo::InfraMachinePool,
    checked_on: CheckedOn::Inputs,
    anchor: "inframachinepool-inframachinepoollist-resource-definition",
    field: RuleField::Aspect("CRD `<Kind>MachinePool`"),
    shape: "an `apiextensions.k8s.io/v1` CRD outside group `cluster.x-k8s.io`: a kind ending in `MachinePool`, or one named by a given MachinePool or ClusterClass, or contract-labelled with a provider ID list (`provider-id-list`)",
    read_by: "this checker: every other CRD rule is checked on it",
    when_absent: "nothing is checked (a misspelled kind, a missing file, a wrong group): the check fails",
};

/// `crd-valid`: the API server accepts the CRD (the checker's own rule: a CRD the server
/// refuses cannot be installed, whatever the contract rules say). Mirrors
/// `k8s.io/apiextensions-apiserver` v0.37.2 `pkg/apis/apiextensions/validation/validation.go`
/// (`validateCustomResourceDefinitionSpec`, `ValidateCustomResourceDefinitionNames`) and
/// `pkg/apiserver/schema/validation.go` (`validateStructuralInvariants`).
pub static CRD_VALID: Rule = Rule {
    id: "crd-valid",
    title: "The API server accepts the CRD",
    level: Level::Must,
    contracts: BOTH,
    applies_to: AppliesTo::AllResources,
    checked_on: CheckedOn::Crd,
    anchor: "inframachinepool-inframachinepoollist-resource-definition",
    field: RuleField::Aspect("spec (group, scope, names, versions, schemas)"),
    shape: "one storage version, unique DNS-1035 version names, lower-case plural, boolean served/storage, a `type` on every schema node, every `default` valid under its own schema",
    read_by: "the API server (`kubectl apply` of the provider's CRDs)",
    when_absent: "the CRD is refused: the provider cannot be installed",
};

/// Every rule, in contract page order.
pub static RULES: &[&Rule] = &[
    &SCOPE,
    &TYPE_AND_OBJECT_META,
    &API_GROUP,
    &VERSION_POLICY,
    &CONTRACT_LABEL,
    &CONTRACT_LABEL_VERSIONS,
    &CONTRACT_LABEL_SERVED,
    &CRD_NAME,
    &LIST_KIND,
    &STATUS_SUBRESOURCE,
    &CATEGORIES,
    &PROVIDER_ID_LIST,
    &PROVIDER_ID_LIST_VALIDATION,
    &PROVIDER_ID_LIST_VALUES,
    &PROVIDER_ID_FORMAT,
    &INITIALIZATION_PROVISIONED,
    &INITIALIZATION_MIN_PROPERTIES,
    &READY,
    &REPLICAS,
    &REPLICAS_VALUES,
    &CONDITIONS,
    &CONDITIONS_VALUES,
    &TERMINAL_FAILURES,
    &INSTANCES,
    &MACHINE_POOL_MACHINES,
    &PROVIDER_ID,
    &REPLICAS_CONSISTENCY,
    &PAUSING,
    &TEMPLATE_RESOURCE,
    &TEMPLATE_SPEC,
    &TEMPLATE_SSA_DRY_RUN,
    &MULTI_TENANCY,
    &CLUSTERCTL,
    &DEPRECATED_CONTRACT,
    &INFRA_MACHINE_POOL_CRD,
    &CRD_VALID,
    &KUSTOMIZE_RENDERING,
    &SERVED_VERSION_UNLABELLED,
    &CAPABILITY_ANNOTATION,
    &MACHINE_POOL_MACHINE_CRD,
    &MACHINE_POOL_MACHINE_LABELS,
    &MACHINE_POOL_MACHINE_OWNER,
    &MACHINE_POOL_MACHINE_PROVIDER_ID,
    &TEMPLATE_SCHEMA_COMPATIBLE,
    &CLUSTERCLASS_INFRASTRUCTURE_TEMPLATE,
    &CLUSTERCLASS_BOOTSTRAP_TEMPLATE,
    &CLUSTER_TOPOLOGY_MACHINE_POOL_CLASS,
];

/// The rule with this id.
///
/// ```
/// use capi_contract_check::rules::{self, Level};
/// let rule = rules::by_id("provider-id-list").unwrap();
/// assert_eq!(rule.level, Level::Must);
/// assert_eq!(rule, &rules::PROVIDER_ID_LIST);
/// assert!(rule.url().ends_with("#inframachinepool-provideridlist"));
/// ```
#[must_use]
pub fn by_id(id: &str) -> Option<&'static Rule> {
    RULES.iter().copied().find(|r| r.id == id)
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

    /// A rule naming a versioned field takes its path in the rule's contract
    /// (`ContractField::path_in`), which is empty when that contract has no such field.
    #[test]
    fn every_rule_field_names_a_path() {
        for r in RULES {
            let paths: &[&[&str]] = match r.field {
                RuleField::Fields(p) | RuleField::FieldsAnd(p, _) => p,
                RuleField::Items(p) => &[p],
                RuleField::ItemField(list, field) => &[list, field],
                RuleField::Aspect(a) => {
                    assert!(!a.is_empty(), "{}", r.id);
                    &[]
                }
            };
            for p in paths {
                assert!(
                    !p.is_empty(),
                    "{} names a field its contract does not have",
                    r.id
                );
            }
        }
    }

    /// Every placeholder of a rule's texts names one of its fields.
    #[test]
    fn every_placeholder_is_filled() {
        for r in RULES {
            for text in [r.title(), r.shape(), r.read_by(), r.when_absent()] {
                assert!(
                    !text.contains("{0}") && !text.contains("{1}") && !text.contains("{2}"),
                    "{}: {text}",
                    r.id
                );
            }
        }
        assert_eq!(
            REPLICAS_CONSISTENCY.title(),
            "status.replicas matches the number of spec.providerIDList entries"
        );
        assert_eq!(
            TERMINAL_FAILURES.title(),
            "status.failureReason / status.failureMessage are strings"
        );
    }
}
