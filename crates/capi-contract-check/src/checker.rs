//! The checker: CRDs and objects go in one at a time (a stream of any length), a [`Report`]
//! comes out.

use std::collections::BTreeSet;
use std::sync::Arc;

use capi_contract::Contract;
use capi_manifests::kustomize::Note;
use capi_manifests::{Document, Source};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;

use crate::crd::{Names, check_crd};
use crate::input::{CheckOptions, CrdInput, Role, classify};
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
/// assert!(report.findings.is_empty());
/// assert_eq!(report.skipped.len(), 1);
/// ```
#[derive(Debug)]
pub struct Checker {
    opts: CheckOptions,
    report: Report,
    pools: Vec<(String, String, Arc<Subject>)>,
    templates: BTreeSet<(String, String)>,
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
        }
    }

    /// The contract objects and CRD-level rules are checked against.
    #[must_use]
    pub fn contract(&self) -> Contract {
        self.opts.only_contract.unwrap_or(Contract::CURRENT)
    }

    /// Checks a CRD; one that is not an InfraMachinePool (or template) is listed as skipped.
    pub fn add_crd(&mut self, input: &CrdInput) {
        let role = match classify(&input.crd) {
            Ok(role) => role,
            Err(reason) => {
                let from = input
                    .source
                    .as_ref()
                    .map_or_else(String::new, |s| format!(" ({s})"));
                self.report.skipped.push(format!("{reason}{from}"));
                return;
            }
        };
        let subject = check_crd(&mut self.report, &self.opts, input, role);
        let names = Names::of(&input.crd);
        let key = (names.group.to_owned(), names.kind.to_owned());
        match role {
            Role::Pool => self.pools.push((key.0, key.1, subject)),
            Role::Template => {
                self.templates.insert(key);
            }
        }
    }

    /// Checks an InfraMachinePool object (other kinds are listed as skipped).
    pub fn add_object(&mut self, object: &Value, source: Option<&Source>) {
        let contract = self.contract();
        if let Err(reason) =
            crate::object::check_object(&mut self.report, object, source.map(Into::into), contract)
        {
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
                "pipe the rendered manifests instead: `kustomize build DIR | capi-machinepool check -`"
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

    /// Records an input that was read but is not checked.
    pub fn skip(&mut self, reason: impl Into<String>) {
        self.report.skipped.push(reason.into());
    }

    /// The report so far (without the template findings [`Checker::finish`] adds).
    #[must_use]
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// Adds, for each pool, whether its template CRD was among the inputs, and returns the
    /// report.
    #[must_use]
    pub fn finish(mut self) -> Report {
        let contract = self.contract();
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
        self.report
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
    for doc in documents {
        checker.add_crd(&CrdInput::from(doc));
    }
    checker.finish()
}
