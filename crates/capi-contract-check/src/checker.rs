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
/// assert_eq!(report.skipped.len(), 1);
/// assert!(!report.passes(), "no InfraMachinePool CRD: nothing was checked");
/// ```
#[derive(Debug)]
pub struct Checker {
    opts: CheckOptions,
    report: Report,
    pools: Vec<(String, String, Arc<Subject>)>,
    templates: BTreeSet<(String, String)>,
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
            pool_like: Vec::new(),
        }
    }

    /// The contract objects and CRD-level rules are checked against.
    #[must_use]
    pub fn contract(&self) -> Contract {
        self.opts.only_contract.unwrap_or(Contract::CURRENT)
    }

    /// Checks a CRD; one that is not an InfraMachinePool (or template), or is of an API
    /// version the API server no longer serves, is listed as skipped.
    pub fn add_crd(&mut self, input: &CrdInput) {
        let role = match unserved_api_version(&input.crd).map_or_else(|| classify(&input.crd), Err)
        {
            Ok(role) => role,
            Err(reason) => {
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

    /// Adds, for each pool, whether its template CRD was among the inputs, fails when there
    /// was no pool to check, and returns the report.
    #[must_use]
    pub fn finish(mut self) -> Report {
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
        self.report
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

/// Why a CRD of an `apiextensions.k8s.io` version other than `v1` is not checked: `v1beta1`
/// CRDs are no longer served since Kubernetes 1.22 (Kubernetes deprecated API migration
/// guide, "v1.22": "The apiextensions.k8s.io/v1beta1 API version of
/// CustomResourceDefinition is no longer served").
fn unserved_api_version(crd: &Value) -> Option<String> {
    let api_version = crd["apiVersion"].as_str()?;
    let version = api_version.strip_prefix("apiextensions.k8s.io/")?;
    (version != "v1").then(|| {
        let name = crd["metadata"]["name"].as_str().unwrap_or("<unnamed>");
        format!(
            "{}: apiextensions.k8s.io/{} is not served by Kubernetes since 1.22; use apiextensions.k8s.io/v1",
            capi_machinepool_api::excerpt::excerpt(name),
            capi_machinepool_api::excerpt::excerpt(version)
        )
    })
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
