//! The checker: CRDs and objects go in one at a time (a stream of any length), a [`Report`]
//! comes out.

use std::collections::BTreeSet;
use std::sync::Arc;

use capi_contract::Contract;
use capi_manifests::kustomize::Note;
use capi_manifests::{Document, Source};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;

use crate::catalog::{Catalog, CrdFacts, split_api_version};
use crate::crd::{Names, check_crd};
use crate::input::{CheckOptions, CrdInput, Role, classify};
use crate::inventory::{
    ClassObject, ClusterObject, Inventory, MachineObject, Meta, ObjectRole, PoolObject, object_role,
};
use crate::report::{Report, SourceRef, Subject, Target};
use crate::rules;

/// Checks CRDs and objects as they come; [`Checker::finish`] adds what needs all CRDs (the
/// template of each pool) and returns the report.
///
/// ```
/// use capi_contract_check::{CheckOptions, Checker};
/// let mut checker = Checker::new(CheckOptions::default());
/// checker.add_crd(&serde_json::json!({"kind": "ConfigMap"}).into());
/// let report = checker.finish();
/// assert_eq!(report.skipped.len(), 1);
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
}

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
        }
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
        let role = match classify(&input.crd) {
            Ok(role) => role,
            Err(reason) => {
                if input.crd["kind"] == "CustomResourceDefinition" {
                    let subject = CrdFacts::subject_of(input);
                    self.catalog.add(CrdFacts::of(input, subject));
                }
                let from = input
                    .source
                    .as_ref()
                    .map_or_else(String::new, |s| format!(" ({s})"));
                let kind = input.crd["spec"]["names"]["kind"]
                    .as_str()
                    .unwrap_or_default();
                if kind.to_ascii_lowercase().contains("machinepool") {
                    self.pool_like.push(format!("{reason}{from}"));
                }
                self.report.skipped.push(format!("{reason}{from}"));
                return;
            }
        };
        let subject = check_crd(&mut self.report, &self.opts, input, role);
        self.catalog.add(CrdFacts::of(input, Arc::clone(&subject)));
        let names = Names::of(&input.crd);
        let key = (names.group.to_owned(), names.kind.to_owned());
        match role {
            Role::Pool => self.pools.push((key.0, key.1, subject)),
            Role::Template => {
                self.templates.insert(key);
            }
            Role::PoolMachine => {}
        }
    }

    /// The contract an object is judged against: [`CheckOptions::only_contract`], else the
    /// newest contract whose label on the object's CRD (among the CRDs already added) lists
    /// the object's version, else the current one.
    #[must_use]
    pub fn object_contract(&self, object: &Value) -> Contract {
        if let Some(only) = self.opts.only_contract {
            return only;
        }
        let (group, version) = split_api_version(object["apiVersion"].as_str().unwrap_or_default());
        let kind = object["kind"].as_str().unwrap_or_default();
        self.catalog
            .find(group, kind)
            .find_map(|crd| crd.contract_of_version(version))
            .unwrap_or(Contract::CURRENT)
    }

    /// Checks an InfraMachinePool object and remembers, for the rules that judge objects as
    /// a set, InfraMachinePools, their InfraMachines, ClusterClasses and Clusters with a
    /// topology; other objects are listed as skipped.
    pub fn add_object(&mut self, object: &Value, source: Option<&Source>) {
        let source_ref: Option<SourceRef> = source.map(Into::into);
        let skipped = match object_role(object) {
            ObjectRole::Pool => {
                let contract = self.object_contract(object);
                let meta = Meta::of(object, source_ref);
                crate::object::check_object(&mut self.report, object, &meta.subject, contract);
                self.inventory
                    .pools
                    .push(PoolObject::of(object, meta, contract));
                None
            }
            ObjectRole::ClusterClass => {
                let meta = Meta::of(object, source_ref);
                self.inventory.classes.push(ClassObject::of(object, meta));
                None
            }
            ObjectRole::Cluster => match ClusterObject::of(object, Meta::of(object, source_ref)) {
                Some(cluster) => {
                    self.inventory.clusters.push(cluster);
                    None
                }
                None => Some("a Cluster without spec.topology".to_owned()),
            },
            ObjectRole::Other => match MachineObject::of(object, Meta::of(object, source_ref)) {
                Some(machine) => {
                    self.inventory.machines.push(machine);
                    None
                }
                None => Some(format!(
                    "kind {:?} is not an InfraMachinePool, InfraMachine, ClusterClass or Cluster",
                    capi_diagnostics::excerpt::excerpt(object["kind"].as_str().unwrap_or_default())
                )),
            },
        };
        if let Some(reason) = skipped {
            let from = source.map_or_else(String::new, |s| format!("{s}: "));
            self.report.skipped.push(format!("{from}{reason}"));
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
        self.report.skipped.push(reason.into());
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
        self.templates_of_pools();
        let contract = self.contract();
        crate::clusterclass::template_schemas(&mut self.report, &self.catalog, contract);
        let unclaimed = crate::machines::check(&mut self.report, &self.catalog, &self.inventory);
        self.report.skipped.extend(unclaimed);
        crate::clusterclass::check(&mut self.report, &self.catalog, &self.inventory);
        self.report.capabilities =
            crate::capabilities::compute(&self.catalog, &self.inventory, &self.report);
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
        let pool_like: Vec<&str> = self.pool_like.iter().map(String::as_str).collect();
        let read: Vec<&str> = if pool_like.is_empty() {
            self.report
                .skipped
                .iter()
                .take(3)
                .map(String::as_str)
                .collect()
        } else {
            pool_like.into_iter().take(3).collect()
        };
        let more = self.report.skipped.len().saturating_sub(read.len());
        let mut message =
            String::from("no InfraMachinePool CRD among the inputs: nothing was checked");
        if !read.is_empty() {
            message.push_str(&format!("; read instead: {}", read.join("; ")));
        }
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
