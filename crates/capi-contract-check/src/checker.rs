//! The checker: CRDs and objects go in one at a time (a stream of any length), a [`Report`]
//! comes out.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use capi_contract::Contract;
use capi_contract::fields::machine_pool;
use capi_manifests::kustomize::Note;
use capi_manifests::{Document, Positions, Source};
use capi_versions::GroupVersion;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;

use crate::catalog::{Catalog, CrdFacts};
use crate::crd::check_crd;
use crate::input::{CheckOptions, CrdInput, Role};
use crate::inventory::{
    ClassObject, ClusterObject, Inventory, MachineObject, Meta, ObjectRole, PoolObject, object_role,
};
use crate::report::{Report, SourceRef, Subject, Target};
use crate::rules;
use crate::skipped::Skipped;
use capi_apiextensions::CrdJudge;

/// Checks CRDs and objects as they come; [`Checker::finish`] adds what needs all CRDs (the
/// template of each pool) and returns the report.
///
/// ```
/// use capi_contract_check::{CheckOptions, Checker, NotChecked, Skipped};
/// let mut checker = Checker::new(CheckOptions::default());
/// checker.add_crd(&serde_json::json!({"kind": "ConfigMap"}).into());
/// let report = checker.finish();
/// assert_eq!(report.skipped.len(), 1);
/// // Typed: what was skipped and why; the JSON report prints the one-line form.
/// let Skipped::Crd { reason: NotChecked::NotACrd { name }, source: None } = &report.skipped[0] else {
///     panic!("{:?}", report.skipped);
/// };
/// assert_eq!(name, "<unnamed>");
/// assert_eq!(
///     serde_json::to_value(&report.skipped[0]).unwrap(),
///     report.skipped[0].to_string()
/// );
/// assert!(!report.passes(), "no InfraMachinePool CRD: nothing was checked");
/// ```
#[derive(Debug)]
pub struct Checker {
    opts: CheckOptions,
    report: Report,
    pools: Vec<(String, String, Arc<Subject>)>,
    templates: BTreeSet<(String, String)>,
    catalog: Catalog,
    inventory: Inventory,
    /// Why CRDs whose kind looks like a pool's (`*machinepool*`, any case) were skipped.
    pool_like: Vec<String>,
    /// Provider CRDs of other kinds, kept until the end: a given MachinePool or ClusterClass
    /// may name one as its infrastructure (evidence that it is an InfraMachinePool or its
    /// template, whatever its kind is called).
    deferred: Vec<Deferred>,
    /// `(group, kind)` named as infrastructure by a MachinePool or a ClusterClass, with the
    /// role that gives it and the evidence (for the report).
    evidence: BTreeMap<(String, String), (Role, String)>,
    /// Provider objects of kinds not known (yet) to be pools or pool machines: judged at the
    /// end, once every piece of evidence is in.
    pending: Vec<(Value, Option<Source>, Option<Arc<Positions>>)>,
    /// The API server that judges `crd-valid`, when the user has one.
    judge: Option<Box<dyn CrdJudge>>,
    /// Template CRDs with no contract label whose InfraMachinePool CRD has not been read yet:
    /// checked when it is (their contract is the one its label names), else at the end.
    unlabelled_templates: Vec<CrdInput>,
}

/// A provider CRD not (yet) taken as an InfraMachinePool.
#[derive(Debug)]
struct Deferred {
    input: CrdInput,
    group: String,
    kind: String,
    /// Why it was not taken by its kind.
    skipped: Skipped,
}

/// Most objects kept for the end; beyond this they are judged as they come (the stream may be
/// long).
const MAX_PENDING: usize = 10_000;

impl Checker {
    /// A checker with `opts`.
    #[must_use]
    pub fn new(opts: CheckOptions) -> Self {
        Self {
            opts,
            report: Report::default(),
            pools: Vec::new(),
            templates: BTreeSet::new(),
            catalog: Catalog::default(),
            inventory: Inventory::default(),
            pool_like: Vec::new(),
            deferred: Vec::new(),
            evidence: BTreeMap::new(),
            pending: Vec::new(),
            judge: None,
            unlabelled_templates: Vec::new(),
        }
    }

    /// Has `judge` (a real API server) decide `crd-valid` for every CRD checked, instead of
    /// this crate's model of the API server's CRD validation (see [`CrdJudge`]).
    #[must_use]
    pub fn with_crd_judge(mut self, judge: impl CrdJudge + 'static) -> Self {
        self.judge = Some(Box::new(judge));
        self
    }

    /// The contract objects and CRD-level rules are checked against.
    #[must_use]
    pub fn contract(&self) -> Contract {
        self.opts.only_contract.unwrap_or(Contract::CURRENT)
    }

    /// Checks a CRD; one that is not an InfraMachinePool (or template, or pool machine), or is
    /// of an API version the API server no longer serves, is listed as skipped, and remembered
    /// for the rules that judge inputs together.
    pub fn add_crd(&mut self, input: &CrdInput) {
        let (facts, classified) = CrdFacts::read(input);
        let role = match classified {
            Ok(role) => role,
            Err(reason) => {
                let view = input.view();
                if view.is_crd() {
                    self.catalog.add(facts);
                }
                let skipped = Skipped::Crd {
                    reason: reason.clone(),
                    source: input.source.as_ref().map(ToString::to_string),
                };
                let kind = view.kind().unwrap_or_default();
                if kind.to_ascii_lowercase().contains("machinepool") {
                    self.pool_like.push(skipped.to_string());
                }
                if let crate::input::NotChecked::OtherKind { .. } = reason {
                    let group = view.group().unwrap_or_default();
                    self.deferred.push(Deferred {
                        input: input.clone(),
                        group: group.to_owned(),
                        kind: kind.to_owned(),
                        skipped,
                    });
                    self.promote();
                    return;
                }
                self.report.skipped.push(skipped);
                return;
            }
        };
        self.take_crd(input, facts, role);
    }

    /// Checks a CRD (read once into `facts`) in `role` and remembers it.
    fn take_crd(&mut self, input: &CrdInput, mut facts: CrdFacts, role: Role) {
        facts.role = Some(role);
        let pool_kind = (role == Role::Template)
            .then(|| facts.kind.strip_suffix("Template"))
            .flatten();
        let pool = pool_kind.and_then(|k| self.catalog.find(&facts.group, k).next());
        if pool_kind.is_some() && pool.is_none() && facts.contracts().is_empty() {
            // Its contract is its pool's: wait for the pool CRD (or the end).
            self.unlabelled_templates.push(input.clone());
        } else {
            check_crd(
                &mut self.report,
                &self.opts,
                self.judge.as_deref(),
                input,
                &facts,
                role,
                pool,
            );
        }
        let subject = Arc::clone(&facts.subject);
        let key = (facts.group.clone(), facts.kind.clone());
        self.catalog.replace(facts);
        match role {
            Role::Pool => {
                self.check_unlabelled_templates(Some((&key.0, &key.1)));
                self.pools.push((key.0, key.1, subject));
            }
            Role::Template => {
                self.templates.insert(key);
            }
            Role::PoolMachine => {}
        }
    }

    /// Checks the waiting unlabelled templates of the pool `(group, kind)` (all of them with
    /// `None`, at the end), each against its pool's contract labels when its pool was read.
    fn check_unlabelled_templates(&mut self, pool: Option<(&str, &str)>) {
        let (now, kept): (Vec<CrdInput>, Vec<CrdInput>) =
            std::mem::take(&mut self.unlabelled_templates)
                .into_iter()
                .partition(|t| {
                    pool.is_none_or(|(group, kind)| {
                        let view = t.view();
                        view.group() == Some(group)
                            && view.kind().and_then(|k| k.strip_suffix("Template")) == Some(kind)
                    })
                });
        self.unlabelled_templates = kept;
        for input in now {
            let (mut facts, _) = CrdFacts::read(&input);
            facts.role = Some(Role::Template);
            let pool_facts = pool.and_then(|(group, kind)| self.catalog.find(group, kind).next());
            check_crd(
                &mut self.report,
                &self.opts,
                self.judge.as_deref(),
                &input,
                &facts,
                Role::Template,
                pool_facts,
            );
        }
    }

    /// The contract an object is judged against: [`CheckOptions::only_contract`], else the
    /// newest contract whose label on the object's CRD (among the CRDs already added) lists
    /// the object's version, else the current one.
    #[must_use]
    pub fn object_contract(&self, object: &Value) -> Contract {
        self.object_contract_and_assumption(object).0
    }

    /// The contract of an object and, when no label lists its version, what was assumed: the
    /// contract its version's schema implements (`status.initialization.provisioned`: v1beta2,
    /// `status.ready`: v1beta1), else the current one.
    fn object_contract_and_assumption(&self, object: &Value) -> (Contract, Option<String>) {
        if let Some(c) = self.labelled_contract(object) {
            return (c, None);
        }
        let GroupVersion { group, version } =
            GroupVersion::split(object["apiVersion"].as_str().unwrap_or_default());
        let kind = object["kind"].as_str().unwrap_or_default();
        let from_schema = self.catalog.find(group, kind).find_map(|crd| {
            crd.version(version)
                .and_then(|v| crate::catalog::schema_contract(&v.schema))
        });
        match from_schema {
            Some(c) => (
                c,
                Some(format!(
                    "no cluster.x-k8s.io/<contract> label of its CRD lists {version}: judged by the {c} contract its schema implements (assumed)"
                )),
            ),
            None => (
                Contract::CURRENT,
                self.catalog.find(group, kind).next().map(|_| {
                    format!(
                        "no cluster.x-k8s.io/<contract> label of its CRD lists {version} and its schema shows no contract: judged by the current {} contract (assumed)",
                        Contract::CURRENT
                    )
                }),
            ),
        }
    }

    /// The contract whose label on the object's CRD lists the object's version, if any.
    fn labelled_contract(&self, object: &Value) -> Option<Contract> {
        if let Some(only) = self.opts.only_contract {
            return Some(only);
        }
        let GroupVersion { group, version } =
            GroupVersion::split(object["apiVersion"].as_str().unwrap_or_default());
        let kind = object["kind"].as_str().unwrap_or_default();
        self.catalog
            .find(group, kind)
            .find_map(|crd| crd.contract_of_version(version))
    }

    /// Checks an InfraMachinePool object and remembers, for the rules that judge objects as
    /// a set, InfraMachinePools, their InfraMachines, ClusterClasses and Clusters with a
    /// topology; other objects are listed as skipped.
    pub fn add_object(&mut self, object: &Value, source: Option<&Source>) {
        self.judge_object(object, source, None, false);
    }

    /// [`add_object`](Self::add_object) of a document read with where each of its values is
    /// written ([`Document::positions`]): its findings point at their field's line.
    pub fn add_object_document(&mut self, doc: &Document) {
        self.judge_object(&doc.value, Some(&doc.source), doc.positions.clone(), false);
    }

    /// Records what a MachinePool or ClusterClass says about which kinds are
    /// InfraMachinePools, and takes the CRDs it names.
    fn note_evidence(&mut self, object: &Value) {
        let group_of = |r: &Value| {
            r["apiGroup"].as_str().map_or_else(
                || {
                    GroupVersion::split(r["apiVersion"].as_str().unwrap_or_default())
                        .group
                        .to_owned()
                },
                str::to_owned,
            )
        };
        let kind = object["kind"].as_str().unwrap_or_default();
        let name = object["metadata"]["name"].as_str().unwrap_or_default();
        let mut found = Vec::new();
        if kind == "MachinePool" {
            let r = machine_pool::INFRASTRUCTURE_REF
                .node(object)
                .unwrap_or(&Value::Null);
            if let Some(k) = r["kind"].as_str() {
                found.push((
                    group_of(r),
                    k.to_owned(),
                    Role::Pool,
                    format!(
                        "named by MachinePool {name:?} in {}",
                        machine_pool::INFRASTRUCTURE_REF.dotted()
                    ),
                ));
            }
        } else if kind == "ClusterClass" {
            use capi_contract::fields::cluster_class::{
                INFRASTRUCTURE_TEMPLATE, MACHINE_POOL_CLASSES,
            };
            let pools = MACHINE_POOL_CLASSES
                .node(object)
                .ok()
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default();
            for (i, entry) in pools.iter().enumerate() {
                // The reference of either ClusterClass API version.
                let refs = INFRASTRUCTURE_TEMPLATE
                    .rows()
                    .iter()
                    .filter_map(|(_, f)| f.as_ref().and_then(|f| f.node(entry).ok()));
                for r in refs {
                    let Some(k) = r["kind"].as_str() else {
                        continue;
                    };
                    let why = format!(
                        "named by ClusterClass {name:?} in {}[{i}] infrastructure",
                        MACHINE_POOL_CLASSES.dotted()
                    );
                    found.push((group_of(r), k.to_owned(), Role::Template, why.clone()));
                    // The pool kind the template stamps out, by the template naming convention.
                    if let Some(pool) = k.strip_suffix("Template") {
                        found.push((group_of(r), pool.to_owned(), Role::Pool, why));
                    }
                }
            }
        }
        for (group, kind, role, why) in found {
            if !kind.ends_with("MachinePool") && !kind.ends_with("MachinePoolTemplate") {
                self.evidence.entry((group, kind)).or_insert((role, why));
            }
        }
        self.promote();
    }

    /// Takes the deferred CRDs that evidence names.
    fn promote(&mut self) {
        if self.evidence.is_empty() {
            return;
        }
        let (taken, kept): (Vec<Deferred>, Vec<Deferred>) = std::mem::take(&mut self.deferred)
            .into_iter()
            .partition(|d| {
                self.evidence
                    .contains_key(&(d.group.clone(), d.kind.clone()))
            });
        self.deferred = kept;
        for d in taken {
            if let Some((role, _)) = self.evidence.get(&(d.group.clone(), d.kind.clone())) {
                let role = *role;
                let (facts, _) = CrdFacts::read(&d.input);
                self.take_crd(&d.input, facts, role);
            }
        }
    }

    /// The object as an InfraMachine candidate, when something ties it to a pool (an owner of
    /// a pool kind, evidence included, or a pool-name label).
    fn machine_candidate(
        &self,
        object: &Value,
        source_ref: Option<SourceRef>,
        positions: Option<Arc<Positions>>,
    ) -> Option<MachineObject> {
        let meta = Meta::of(object, source_ref).located(positions);
        let owned_by_pool = meta.owners.iter().any(|o| {
            let g = GroupVersion::split(&o.api_version).group;
            g != crate::input::CORE_GROUP && self.is_pool_kind(g, &o.kind)
        });
        MachineObject::of(object, meta, owned_by_pool)
    }

    /// True when `(group, kind)` is an InfraMachinePool kind among the CRDs taken.
    fn is_pool_kind(&self, group: &str, kind: &str) -> bool {
        kind.ends_with("MachinePool")
            || self.pools.iter().any(|(g, k, _)| g == group && k == kind)
            || self
                .catalog
                .find(group, kind)
                .any(|c| c.role == Some(Role::Pool))
    }

    fn judge_object(
        &mut self,
        object: &Value,
        source: Option<&Source>,
        positions: Option<Arc<Positions>>,
        at_end: bool,
    ) {
        let source_ref: Option<SourceRef> = source.map(Into::into);
        let meta_of = |object: &Value, source_ref: Option<SourceRef>| {
            Meta::of(object, source_ref).located(positions.clone())
        };
        let GroupVersion { group, .. } =
            GroupVersion::split(object["apiVersion"].as_str().unwrap_or_default());
        let kind = object["kind"].as_str().unwrap_or_default();
        if group == crate::input::CORE_GROUP && matches!(kind, "MachinePool" | "ClusterClass") {
            self.note_evidence(object);
        }
        let mut role = object_role(object);
        if role == ObjectRole::Other
            && group != crate::input::CORE_GROUP
            && self.is_pool_kind(group, kind)
        {
            role = ObjectRole::Pool;
        }
        let core_machine_pool = group == crate::input::CORE_GROUP && kind == "MachinePool";
        let skipped = match role {
            ObjectRole::Other if core_machine_pool => Some(format!(
                "a MachinePool: read only for {} (which kind is the InfraMachinePool)",
                machine_pool::INFRASTRUCTURE_REF.dotted()
            )),
            ObjectRole::Pool => {
                let (contract, assumed) = self.object_contract_and_assumption(object);
                let meta = meta_of(object, source_ref);
                if let Some(assumed) = assumed {
                    self.report
                        .check(&rules::SERVED_VERSION_UNLABELLED, &meta.subject, contract, "apiVersion")
                        .info(assumed, "list the version in the cluster.x-k8s.io/<contract> label of the contract it implements");
                }
                crate::object::check_object(&mut self.report, object, &meta.subject, contract);
                self.inventory
                    .pools
                    .push(PoolObject::of(object, meta, contract));
                None
            }
            ObjectRole::ClusterClass => {
                let meta = meta_of(object, source_ref);
                self.inventory.classes.push(ClassObject::of(object, meta));
                None
            }
            ObjectRole::Cluster => match ClusterObject::of(object, meta_of(object, source_ref)) {
                Some(cluster) => {
                    self.inventory.clusters.push(cluster);
                    None
                }
                None => Some("a Cluster without spec.topology".to_owned()),
            },
            ObjectRole::Other => {
                match self.machine_candidate(object, source_ref, positions.clone()) {
                    Some(mut machine) => {
                        machine.contract = self.labelled_contract(object);
                        self.inventory.machines.push(machine);
                        None
                    }
                    None if !at_end
                        && group != crate::input::CORE_GROUP
                        && self.pending.len() < MAX_PENDING =>
                    {
                        self.pending
                            .push((object.clone(), source.cloned(), positions.clone()));
                        None
                    }
                    None => Some(format!(
                        "kind {:?} is not an InfraMachinePool, InfraMachine, ClusterClass or Cluster",
                        capi_diagnostics::excerpt::excerpt(
                            object["kind"].as_str().unwrap_or_default()
                        )
                    )),
                }
            }
        };
        if let Some(reason) = skipped {
            self.report.skipped.push(Skipped::Object {
                reason,
                source: source.map(ToString::to_string),
            });
        }
    }

    /// Records what kustomizations did that was not emulated, as INFO findings.
    pub fn add_notes(&mut self, notes: &[Note]) {
        let contract = self.contract();
        for note in notes {
            let subject = Arc::new(Subject::new(
                Target::Kustomization {
                    file: note.file.clone(),
                },
                Some(SourceRef {
                    file: note.file.clone(),
                    document: 0,
                    line: 1,
                }),
            ));
            let fix = if note.may_change_resources {
                "check the rendered manifests instead (the output of `kustomize build DIR`)"
            } else {
                ""
            };
            self.report
                .check(
                    &rules::KUSTOMIZE_RENDERING,
                    &subject,
                    contract,
                    note.field.clone(),
                )
                .info(note.message.clone(), fix);
        }
    }

    /// Checks loaded documents (`capi_manifests::load`): CRDs as CRDs, anything else listed
    /// as skipped.
    pub fn add_documents(&mut self, documents: Vec<Document>) {
        for doc in documents {
            self.add_crd(&CrdInput::from(doc));
        }
    }

    /// How many CustomResourceDefinitions were read (checked or not).
    #[must_use]
    pub fn crds_read(&self) -> usize {
        self.catalog.len()
    }

    /// Records an input that was read but is not checked.
    pub fn skip(&mut self, reason: impl Into<String>) {
        self.report.skipped.push(Skipped::Other(reason.into()));
    }

    /// The report so far (without the template findings [`Checker::finish`] adds).
    #[must_use]
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// Adds what needs every input (whether each pool's template CRD was among them, the
    /// template schemas, MachinePool Machines, ClusterClasses and topologies), fails when there
    /// was no pool to check, then adds the capability of each InfraMachinePool kind, and
    /// returns the report.
    #[must_use]
    pub fn finish(mut self) -> Report {
        for (object, source, positions) in std::mem::take(&mut self.pending) {
            self.judge_object(&object, source.as_ref(), positions, true);
        }
        for d in &self.deferred {
            self.report.skipped.push(d.skipped.clone());
        }
        self.check_unlabelled_templates(None);
        self.templates_of_pools();
        let contract = self.contract();
        crate::clusterclass::template_schemas(&mut self.report, &self.catalog, contract);
        let unclaimed = crate::machines::check(&mut self.report, &self.catalog, &self.inventory);
        self.report.skipped.extend(unclaimed);
        crate::clusterclass::check(&mut self.report, &self.catalog, &self.inventory);
        crate::capability_probe::check_annotations(&mut self.report, &self.catalog);
        self.report.capabilities = crate::capability_probe::compute(&self.catalog, &self.inventory);
        self.report
    }

    /// `template-resource`: whether each pool's template CRD was among the inputs.
    fn templates_of_pools(&mut self) {
        let contract = self.contract();
        self.check_something_checked(contract);
        for (group, kind, subject) in std::mem::take(&mut self.pools) {
            let template = format!("{kind}Template");
            let check = self.report.check(
                &rules::TEMPLATE_RESOURCE,
                &subject,
                contract,
                "spec.names.kind",
            );
            if self.templates.contains(&(group.clone(), template.clone())) {
                check.pass(format!("{template} is defined"));
            } else {
                check.warn(
                    format!("no {template} CRD among the inputs (needed for ClusterClass support)"),
                    format!("define {template} and {template}List in group {group}"),
                );
            }
        }
    }
}

impl Checker {
    /// Nothing checked is never a pass: without an InfraMachinePool CRD among the inputs
    /// (a misspelled kind, a file not read, a wrong group), the run fails and says what was
    /// read instead.
    fn check_something_checked(&mut self, contract: Contract) {
        if !self.pools.is_empty() {
            return;
        }
        // Near misses first: a misspelled kind or a wrong group is the likely mistake.
        let read: Vec<String> = if self.pool_like.is_empty() {
            self.report
                .skipped
                .iter()
                .take(3)
                .map(ToString::to_string)
                .collect()
        } else {
            self.pool_like.iter().take(3).cloned().collect()
        };
        // The renderers cut a message beyond 400 characters in its middle, where the names
        // that matter would be: add whole items while they fit, and count the rest.
        const BUDGET: usize = 380;
        let mut message =
            String::from("no InfraMachinePool CRD among the inputs: nothing was checked");
        let candidates = self.candidates();
        let (items, label, total) = if candidates.is_empty() {
            (read, "read instead", self.report.skipped.len())
        } else {
            (candidates, "candidates not taken", self.deferred.len())
        };
        let mut shown = 0;
        for item in &items {
            let sep = if shown == 0 {
                format!("; {label}: ")
            } else {
                "; ".to_owned()
            };
            if shown > 0 && message.len() + sep.len() + item.len() > BUDGET {
                break;
            }
            message.push_str(&sep);
            message.push_str(item);
            shown += 1;
        }
        let more = total.saturating_sub(shown);
        if more > 0 {
            message.push_str(&format!(" (and {more} more)"));
        }
        let subject = Arc::new(Subject::new(Target::Inputs, None));
        self.report
            .check(&rules::INFRA_MACHINE_POOL_CRD, &subject, contract, "spec.names.kind")
            .fail(
                message,
                "give the provider's InfraMachinePool CRD (kind `<Name>MachinePool`, group `infrastructure.cluster.x-k8s.io` or the provider's own); if it is there, check its kind, its group, its `apiVersion` and its file name (`*.yaml`, `*.yml` or `*.json`)",
            );
    }
}

impl Checker {
    /// The provider CRDs that could be an InfraMachinePool, each with why it was not taken:
    /// its kind does not end in `MachinePool`, no given MachinePool or ClusterClass names it,
    /// and it lacks a contract label or `spec.providerIDList`.
    fn candidates(&self) -> Vec<String> {
        self.deferred
            .iter()
            .filter(|d| {
                crate::input::has_provider_id_list(d.input.view())
                    || d.kind.to_ascii_lowercase().contains("pool")
            })
            .take(5)
            .map(|d| {
                let list = capi_contract::fields::infra_machine_pool::PROVIDER_ID_LIST.dotted();
                let labelled = crate::input::has_contract_label(d.input.view());
                let ids = crate::input::has_provider_id_list(d.input.view());
                let mut why = vec![format!("kind {} does not end in MachinePool", d.kind)];
                why.push(
                    "no given MachinePool or ClusterClass names it as infrastructure".to_owned(),
                );
                match (labelled, ids) {
                    (false, true) => why.push(format!(
                        "it has {list} but no cluster.x-k8s.io/<contract> label"
                    )),
                    (true, false) => why.push(format!("it has a contract label but no {list}")),
                    (false, false) => why.push(format!("no contract label and no {list}")),
                    (true, true) => {}
                }
                format!("{}.{} ({})", d.kind, d.group, why.join(", "))
            })
            .collect()
    }
}

/// Checks every CRD with `opts` (see [`Checker`]).
#[must_use]
pub fn check_crds(inputs: &[CrdInput], opts: &CheckOptions) -> Report {
    let mut checker = Checker::new(*opts);
    for input in inputs {
        checker.add_crd(input);
    }
    checker.finish()
}

/// Checks typed CRDs (e.g. `MyPool::crd()` from `#[derive(CustomResource)]`) with the default
/// options: the check a provider puts in a unit test.
///
/// ```
/// use capi_contract_check::check;
/// use capi_machinepool_api::k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
/// let crd: CustomResourceDefinition = serde_json::from_value(serde_json::json!({
///   "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
///   "metadata": {"name": "foomachinepools.infrastructure.cluster.x-k8s.io"},
///   "spec": {"group": "infrastructure.cluster.x-k8s.io", "scope": "Namespaced",
///     "names": {"kind": "FooMachinePool", "plural": "foomachinepools"}, "versions": []}})).unwrap();
/// let report = check(&[crd]);
/// assert!(!report.passes(), "no contract label");
/// assert!(report.to_string().contains("FAIL MUST contract-label"));
/// ```
#[must_use]
pub fn check(crds: &[CustomResourceDefinition]) -> Report {
    let inputs: Vec<CrdInput> = crds.iter().map(CrdInput::from).collect();
    check_crds(&inputs, &CheckOptions::default())
}

/// Checks loaded documents: CRDs as CRDs, and notes of not-emulated kustomization fields.
#[must_use]
pub fn check_documents(documents: Vec<Document>, notes: &[Note], opts: &CheckOptions) -> Report {
    let mut checker = Checker::new(*opts);
    checker.add_notes(notes);
    checker.add_documents(documents);
    checker.finish()
}
