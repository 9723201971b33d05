//! Checks of one InfraMachinePool or InfraMachinePoolTemplate CRD: names, scope, contract
//! labels, versions; each labelled version's schema is handed to [`crate::schema`].

use std::collections::BTreeMap;
use std::sync::Arc;

use capi_contract::Contract;
use capi_contract::crd::CrdView;
use capi_contract::fields::infra_machine_pool::PROVISIONED;
use capi_contract::naming::crd_name;
use capi_contract::version::is_kube_like;
use capi_diagnostics::excerpt::excerpt;

use crate::catalog::CrdFacts;
use crate::input::{CheckOptions, CrdInput, Role};
use crate::report::{Report, Subject, Target};
use crate::rules;
use capi_apiextensions::CrdJudge;

/// A CRD's name, kind and group, as read (empty when absent).
#[derive(Clone, Copy)]
pub(crate) struct Names<'a> {
    pub(crate) name: &'a str,
    pub(crate) kind: &'a str,
    pub(crate) group: &'a str,
}

impl<'a> Names<'a> {
    pub(crate) fn of(crd: CrdView<'a>) -> Self {
        Self {
            name: crd.name().unwrap_or("<unnamed>"),
            kind: crd.kind().unwrap_or_default(),
            group: crd.group().unwrap_or_default(),
        }
    }
}

/// Runs every CRD-level rule and the schema rules of each labelled version. `pool` is the
/// InfraMachinePool CRD of a template, when it was read: a template with no contract label
/// of its own is advised the contract its pool's label names.
pub(crate) fn check_crd(
    report: &mut Report,
    opts: &CheckOptions,
    judge: Option<&dyn CrdJudge>,
    input: &CrdInput,
    facts: &CrdFacts,
    role: Role,
    pool: Option<&CrdFacts>,
) {
    let crd = input.view();
    let names = Names::of(crd);
    let subject = &facts.subject;
    let contract = opts.only_contract.unwrap_or(Contract::CURRENT);
    crate::crd_valid::check_crd_valid(report, subject, contract, &input.crd, judge, opts);
    check_names(report, subject, contract, crd, &names);
    for v in crd.versions() {
        let vname = v.name().unwrap_or_default();
        let path = format!("spec.versions[{vname}].name");
        let check = report.check(&rules::VERSION_POLICY, subject, contract, path);
        if is_kube_like(vname) {
            check.pass(vname);
        } else {
            check.warn(
                format!("{:?} is not a Kubernetes API version", excerpt(vname)),
                "use v<N>, v<N>alpha<M> or v<N>beta<M>",
            );
        }
    }
    let mapped = check_labels(report, opts, subject, input, facts, pool);
    for (label_contract, version) in mapped {
        let Some(v) = crd.version(&version) else {
            continue;
        };
        let version_subject = Arc::new(subject.with_target(Target::CrdVersion {
            name: names.name.to_owned(),
            version: version.clone(),
        }));
        crate::schema::check_version(
            report,
            opts,
            &version_subject,
            label_contract,
            &version,
            v,
            role,
        );
    }
}

/// The CRD-level naming rules, one method per rule.
fn check_names(
    report: &mut Report,
    subject: &Arc<Subject>,
    contract: Contract,
    crd: CrdView<'_>,
    names: &Names<'_>,
) {
    let mut c = NameCheck {
        report,
        subject,
        contract,
        crd,
        names: *names,
    };
    c.scope();
    c.crd_name();
    c.list_kind();
    c.categories();
    c.api_group();
}

struct NameCheck<'r, 'a> {
    report: &'r mut Report,
    subject: &'a Arc<Subject>,
    contract: Contract,
    crd: CrdView<'a>,
    names: Names<'a>,
}

impl NameCheck<'_, '_> {
    fn check(&mut self, rule: &'static rules::Rule, path: &str) -> crate::report::Check<'_> {
        self.report
            .check(rule, self.subject, self.contract, path.to_owned())
    }

    fn scope(&mut self) {
        let scope = self.crd.scope().unwrap_or_default();
        let check = self.check(&rules::SCOPE, "spec.scope");
        if scope == "Namespaced" {
            check.pass("Namespaced");
        } else {
            check.fail(
                format!("scope is {:?}", excerpt(scope)),
                "set `scope: Namespaced` (kubebuilder: `+kubebuilder:resource:scope=Namespaced`)",
            );
        }
    }

    fn crd_name(&mut self) {
        let Names { name, kind, group } = self.names;
        let expected = crd_name(group, kind);
        let check = self.check(&rules::CRD_NAME, "metadata.name");
        if name == expected {
            check.pass(format!("{name} = plural(lowercase({kind})).{group}"));
        } else {
            check.fail(
                format!(
                    "CRD name is {:?}, expected {:?}",
                    excerpt(name),
                    excerpt(&expected)
                ),
                "name the plural `plural(lowercase(kind))` as upstream's CalculateCRDName does",
            );
        }
    }

    fn list_kind(&mut self) {
        let list_kind = self.crd.list_kind();
        let expected_list = format!("{}List", self.names.kind);
        let path = "spec.names.listKind";
        match list_kind {
            Some(l) if l == expected_list => self.check(&rules::LIST_KIND, path).pass(l),
            None => {
                // The API server stores `<Kind>List` when listKind is not set (kube-derive
                // leaves it out): the rule holds for the stored CRD.
                self.check(&rules::LIST_KIND, path).pass(format!(
                    "not set; the API server defaults it to {expected_list}"
                ));
                self.check(&rules::LIST_KIND, path).info(
                    format!("listKind is not written in the CRD (the API server sets {expected_list})"),
                    format!("set `listKind: {expected_list}` to make the stored CRD visible in the manifest"),
                );
            }
            Some(l) => self.check(&rules::LIST_KIND, path).fail(
                format!("listKind is {:?}, expected {expected_list:?}", excerpt(l)),
                format!("define the list type {expected_list}"),
            ),
        }
    }

    fn categories(&mut self) {
        let categories = self.crd.categories();
        let check = self.check(&rules::CATEGORIES, "spec.names.categories");
        if categories.contains(&"cluster-api") {
            check.pass("contains cluster-api");
        } else {
            check.warn(
                format!(
                    "categories {:?} lack cluster-api",
                    categories.iter().map(|c| excerpt(c)).collect::<Vec<_>>()
                ),
                "add `categories=cluster-api` to the kubebuilder resource marker",
            );
        }
    }

    fn api_group(&mut self) {
        let group = self.names.group;
        let check = self.check(&rules::API_GROUP, "spec.group");
        if group == "infrastructure.cluster.x-k8s.io" {
            check.pass(group);
        } else {
            check.info(
                format!("group {:?} is not infrastructure.cluster.x-k8s.io", excerpt(group)),
                "grant core controllers RBAC through a ClusterRole labelled cluster.x-k8s.io/aggregate-to-manager: \"true\"",
            );
        }
    }
}

/// What the label rules read of a CRD.
struct LabelFacts<'a> {
    input: &'a CrdInput,
    /// Contract (`v1beta2`, ...) -> versions its label lists.
    labels: BTreeMap<String, Vec<String>>,
    /// The contracts the current core reads, newest first.
    compatible: Vec<Contract>,
    /// The contracts checked (`--only-contract`, or every compatible one).
    checked: Vec<Contract>,
    /// Version name -> served.
    served: BTreeMap<&'a str, bool>,
    /// The compatible contracts with a non-empty label.
    present: Vec<Contract>,
    /// For a template: its InfraMachinePool CRD, when it was read (`None` for a pool).
    pool: Option<&'a CrdFacts>,
    /// True for a template CRD (a kind ending in `MachinePoolTemplate`).
    template: bool,
}

impl<'a> LabelFacts<'a> {
    /// The contract a finding about the labels as a whole is recorded for: the one checked
    /// (`--only-contract`), else the current one.
    fn reported_contract(&self) -> Contract {
        match self.checked.as_slice() {
            [only] => *only,
            _ => Contract::current(),
        }
    }

    fn of(
        input: &'a CrdInput,
        facts: &CrdFacts,
        opts: &CheckOptions,
        pool: Option<&'a CrdFacts>,
    ) -> Self {
        let labels = facts.labels.clone();
        let compatible = Contract::CURRENT.compatible();
        let present = compatible
            .iter()
            .copied()
            .filter(|c| {
                labels
                    .get(c.as_str())
                    .is_some_and(|v| v.iter().any(|s| !s.is_empty()))
            })
            .collect();
        Self {
            input,
            checked: opts
                .only_contract
                .map_or_else(|| compatible.clone(), |c| vec![c]),
            served: input
                .view()
                .versions()
                .filter_map(|v| Some((v.name()?, v.served())))
                .collect(),
            labels,
            compatible,
            present,
            pool,
            template: facts.role == Some(Role::Template),
        }
    }

    fn versions_list(&self) -> Vec<&str> {
        self.served.keys().copied().collect()
    }
}

/// Checks the contract labels, one function per rule; returns the `(contract, version)`
/// pairs whose schemas to check.
fn check_labels(
    report: &mut Report,
    opts: &CheckOptions,
    subject: &Arc<Subject>,
    input: &CrdInput,
    crd: &CrdFacts,
    pool: Option<&CrdFacts>,
) -> Vec<(Contract, String)> {
    let facts = LabelFacts::of(input, crd, opts, pool);
    let mut mapped = Vec::new();
    for (label_contract, versions) in &facts.labels {
        // The version the controllers resolve references to: the highest listed.
        let resolved = versions
            .iter()
            .filter(|v| !v.is_empty())
            .max_by(|a, b| capi_contract::version::compare_kube_aware(a, b));
        for version in versions.iter().filter(|v| !v.is_empty()) {
            let label = LabelledVersion {
                label_contract,
                version,
                resolved: Some(version) == resolved,
            };
            if let Some(c) = label_versions_rules(report, &facts, subject, &label) {
                mapped.push((c, version.clone()));
            }
        }
    }
    contract_label_rule(report, opts, &facts, subject);
    only_contract_note(report, opts, &facts, subject);
    deprecated_contract_rule(report, opts, &facts, subject);
    served_versions_unlabelled(report, opts, &facts, subject);
    versions_to_check(opts, &facts, mapped)
}

/// One version listed by one contract label.
struct LabelledVersion<'a> {
    label_contract: &'a str,
    version: &'a str,
    /// True when it is the highest listed (references resolve to it).
    resolved: bool,
}

/// `contract-label-versions` and `contract-label-served` for one labelled version; returns
/// the contract to check the version's schema against, when it is served and in scope.
fn label_versions_rules(
    report: &mut Report,
    facts: &LabelFacts<'_>,
    subject: &Arc<Subject>,
    label: &LabelledVersion<'_>,
) -> Option<Contract> {
    let LabelledVersion {
        label_contract,
        version,
        ..
    } = *label;
    let path = format!("metadata.labels[cluster.x-k8s.io/{label_contract}]");
    let found = facts.served.get(version).copied();
    let read_by_core = label_contract
        .parse::<Contract>()
        .ok()
        .filter(|c| facts.compatible.contains(c));
    let Some(c) = read_by_core else {
        if found.is_none() {
            report
                .check(&rules::CONTRACT_LABEL_VERSIONS, subject, facts.reported_contract(), path)
                .info(
                    format!(
                        "label maps contract {label_contract} to {}, which does not exist in spec.versions (CRD versions: {:?}); no current core reads contract {label_contract}",
                        excerpt(version),
                        facts.versions_list()
                    ),
                    format!("remove the cluster.x-k8s.io/{label_contract} label"),
                );
        }
        return None;
    };
    // A label for a contract outside `only_contract` is reported, never failed: the user
    // asked about another contract.
    let in_scope = facts.checked.contains(&c);
    let Some(is_served) = found else {
        label_version_missing(report, facts, subject, label, c, in_scope);
        return None;
    };
    report
        .check(&rules::CONTRACT_LABEL_VERSIONS, subject, c, path.clone())
        .pass(format!("{version} exists"));
    label_version_served(report, subject, label, c, &path, is_served);
    (is_served && in_scope).then_some(c)
}

fn label_version_missing(
    report: &mut Report,
    facts: &LabelFacts<'_>,
    subject: &Arc<Subject>,
    label: &LabelledVersion<'_>,
    c: Contract,
    in_scope: bool,
) {
    let label_contract = label.label_contract;
    let message = format!(
        "label maps contract {label_contract} to {}, which does not exist in spec.versions (CRD versions: {:?}){}",
        excerpt(label.version),
        facts.versions_list(),
        if in_scope {
            ""
        } else {
            "; not failed: outside the contract asked for"
        }
    );
    let fix = format!(
        "point cluster.x-k8s.io/{label_contract} at versions of the CRD where the label is set, or remove it"
    );
    let path = format!("metadata.labels[cluster.x-k8s.io/{label_contract}]");
    let check = report.check(&rules::CONTRACT_LABEL_VERSIONS, subject, c, path);
    if in_scope {
        check.fail(message, fix);
    } else {
        check.info(message, fix);
    }
}

fn label_version_served(
    report: &mut Report,
    subject: &Arc<Subject>,
    label: &LabelledVersion<'_>,
    c: Contract,
    path: &str,
    is_served: bool,
) {
    let version = label.version;
    let check = report.check(&rules::CONTRACT_LABEL_SERVED, subject, c, path);
    let fix = format!(
        "list only served versions in cluster.x-k8s.io/{}",
        label.label_contract
    );
    if is_served {
        check.pass(format!("{version} is served"));
    } else if label.resolved {
        check.warn(
            format!(
                "{version} is not served, and references resolve to it (the highest listed version)"
            ),
            fix,
        );
    } else {
        check.warn(
            format!("{version} is not served (references resolve to the higher listed version)"),
            fix,
        );
    }
}

/// `contract-label`: a label for a contract the current core reads.
fn contract_label_rule(
    report: &mut Report,
    opts: &CheckOptions,
    facts: &LabelFacts<'_>,
    subject: &Arc<Subject>,
) {
    let contract = opts.only_contract.unwrap_or(Contract::CURRENT);
    let check = report.check(&rules::CONTRACT_LABEL, subject, contract, "metadata.labels");
    if !facts.present.is_empty() {
        check.pass(format!(
            "labels for {:?}",
            facts.present.iter().map(|c| c.as_str()).collect::<Vec<_>>()
        ));
        return;
    }
    let message = format!(
        "no contract label for {} (labels found: {:?})",
        facts
            .compatible
            .iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join(" or "),
        facts.labels.keys().collect::<Vec<_>>()
    );
    let fix = if facts.template {
        template_label_fix(facts)
    } else {
        format!(
            "add `cluster.x-k8s.io/{}: <versions>` to the CRD (kustomization `labels: - pairs:`)",
            Contract::CURRENT
        )
    };
    let caveats = &facts.input.caveats;
    if caveats.is_empty() {
        check.fail(message, fix);
    } else {
        // What was not emulated may add the label: do not fail on what could not be seen.
        check.info(
            format!(
                "{message}; the label may come from kustomization fields that were not emulated ({}): check the rendered CRD (`kustomize build`)",
                caveats.join(", ")
            ),
            fix,
        );
    }
}

/// The label advice for a template with no contract label. A template has no status that
/// tells its contract, so its contract is its InfraMachinePool's: the label its pool CRD
/// carries, for the versions both serve. Never an assumed contract: a v1beta2 label on a
/// v1beta1-era template would make a v1beta2 core resolve ClusterClass references to it.
fn template_label_fix(facts: &LabelFacts<'_>) -> String {
    let Some(pool) = facts.pool else {
        return "label it for the contract its InfraMachinePool's CRD is labelled for (`cluster.x-k8s.io/<contract>: <versions>`; a template has no status that tells its contract)".to_owned();
    };
    let served: Vec<&str> = facts
        .served
        .iter()
        .filter_map(|(v, served)| served.then_some(*v))
        .collect();
    let mut labels = Vec::new();
    let mut pool_labels = Vec::new();
    for c in pool.contracts() {
        let listed = pool.labels.get(c.as_str()).cloned().unwrap_or_default();
        pool_labels.push(format!("`{}: {}`", c.label(), listed.join("_")));
        let both: Vec<&str> = listed
            .iter()
            .map(String::as_str)
            .filter(|v| served.contains(v))
            .collect();
        if !both.is_empty() {
            labels.push(format!("`{}: {}`", c.label(), both.join("_")));
        }
    }
    match (labels.is_empty(), pool_labels.is_empty()) {
        (false, _) => format!(
            "add {} (its InfraMachinePool {} is labelled {})",
            labels.join(" and "),
            pool.kind,
            pool_labels.join(" and ")
        ),
        (true, false) => format!(
            "serve the versions its InfraMachinePool {} is labelled for ({}) and label them the same",
            pool.kind,
            pool_labels.join(" and ")
        ),
        (true, true) => format!(
            "label its InfraMachinePool {} for a contract first, then the template for the same contract and versions",
            pool.kind
        ),
    }
}

/// `contract-label` (INFO): the contract asked for is labelled on no version.
fn only_contract_note(
    report: &mut Report,
    opts: &CheckOptions,
    facts: &LabelFacts<'_>,
    subject: &Arc<Subject>,
) {
    if let Some(only) = opts.only_contract
        && !facts.present.is_empty()
        && !facts.present.contains(&only)
    {
        report
            .check(&rules::CONTRACT_LABEL, subject, only, "metadata.labels")
            .info(
                format!(
                    "no CRD version is labelled for contract {only}: nothing checked against it"
                ),
                String::new(),
            );
    }
}

/// `deprecated-contract`: a version implements the current contract, not only deprecated
/// ones ([`Contract::is_deprecated`]).
fn deprecated_contract_rule(
    report: &mut Report,
    opts: &CheckOptions,
    facts: &LabelFacts<'_>,
    subject: &Arc<Subject>,
) {
    let current = Contract::current();
    if facts.present.is_empty() || opts.only_contract.is_some_and(|c| c != current) {
        return;
    }
    let check = report.check(
        &rules::DEPRECATED_CONTRACT,
        subject,
        current,
        format!("metadata.labels[{}]", current.label()),
    );
    if facts.present.contains(&current) {
        check.pass(format!("implements the {current} contract"));
    } else {
        let only: Vec<&str> = facts.present.iter().map(|c| c.as_str()).collect();
        let contracts = match only.as_slice() {
            [one] => format!("the deprecated {one} contract is"),
            more => format!("the deprecated {} contracts are", more.join(" and ")),
        };
        check.outcome(
            opts.compat_outcome(),
            format!("only {contracts} implemented (accepted under the temporary compatibility)"),
            format!(
                "implement the {current} contract in a CRD version and label it `{}: <version>`",
                current.label()
            ),
        );
    }
}

/// `served-version-unlabelled`: a served version no contract label lists is never used by
/// core (a CRD merged from several kube-derive versions easily forgets one).
fn served_versions_unlabelled(
    report: &mut Report,
    opts: &CheckOptions,
    facts: &LabelFacts<'_>,
    subject: &Arc<Subject>,
) {
    if facts.present.is_empty() {
        return;
    }
    let contract = opts.only_contract.unwrap_or(Contract::CURRENT);
    for (version, served) in &facts.served {
        if !served {
            continue;
        }
        let listed_by = |c: &str| {
            facts
                .labels
                .get(c)
                .is_some_and(|vs| vs.iter().any(|v| v == version))
        };
        let labelled = facts.compatible.iter().any(|c| listed_by(c.as_str()));
        let retired = facts
            .labels
            .keys()
            .find(|c| capi_contract::labels::is_retired_contract(c) && listed_by(c));
        let path = format!("spec.versions[{version}]");
        let check = report.check(&rules::SERVED_VERSION_UNLABELLED, subject, contract, path);
        if labelled {
            check.pass(format!("{version} is labelled"));
            continue;
        }
        if let Some(retired) = retired {
            check.pass(format!(
                "{version} is labelled for the retired {retired} contract (cluster.x-k8s.io/{retired}), which current core does not read"
            ));
            continue;
        }
        // A template has no status to tell its contract: the one its other versions are
        // labelled for (never assumed: a v1beta2 label on a v1beta1-era template would make a
        // v1beta2 core resolve every ClusterClass reference to it).
        let label_for = |contract: Contract| {
            let existing = facts
                .labels
                .get(contract.as_str())
                .filter(|vs| !vs.is_empty())
                .map(|vs| format!("{}_{version}", vs.join("_")))
                .unwrap_or_else(|| (*version).to_owned());
            format!("`cluster.x-k8s.io/{contract}: {existing}`")
        };
        if facts.template {
            let advice: Vec<String> = facts.present.iter().map(|c| label_for(*c)).collect();
            check.info(
                format!(
                    "{} is served but no cluster.x-k8s.io/<contract> label lists it: core never resolves template references to it",
                    excerpt(version)
                ),
                format!(
                    "if it is meant to be used, list it under the contract its other versions are labelled for (a template has no status that tells its contract): {}",
                    advice.join(" or ")
                ),
            );
            continue;
        }
        // The label goes to the contract the version's schema implements, not always the newest.
        let schema = facts.input.view().version(version).map(|v| v.schema());
        let (implements, how) = match schema.and_then(crate::catalog::schema_contract) {
            Some(c) => (c, "its schema implements".to_owned()),
            None => (
                Contract::CURRENT,
                format!(
                    "assumed: its schema shows neither {}; the current contract",
                    PROVISIONED
                        .paths()
                        .iter()
                        .rev()
                        .map(|p| p.join("."))
                        .collect::<Vec<_>>()
                        .join(" nor ")
                ),
            ),
        };
        check.info(
            format!(
                "{} is served but no cluster.x-k8s.io/<contract> label lists it: core never resolves references to it and its schema is not checked",
                excerpt(version)
            ),
            format!(
                "if it is meant to be used, list it in the cluster.x-k8s.io/{implements} label ({how}): {}",
                label_for(implements)
            ),
        );
    }
}

/// The versions whose schemas are checked next: the labelled served ones. A provider that
/// labels no CRD version for the contract asked for is not checked against it (reported by
/// [`only_contract_note`]); otherwise, when no label maps a served version, the served
/// versions are still checked, so the provider sees every schema problem at once.
fn versions_to_check(
    opts: &CheckOptions,
    facts: &LabelFacts<'_>,
    mut mapped: Vec<(Contract, String)>,
) -> Vec<(Contract, String)> {
    let nothing_labelled_for_the_filter = opts
        .only_contract
        .is_some_and(|c| !facts.labels.contains_key(c.as_str()) && !facts.present.is_empty());
    if mapped.is_empty() && !nothing_labelled_for_the_filter {
        let contract = opts.only_contract.unwrap_or(Contract::CURRENT);
        mapped.extend(
            facts
                .served
                .iter()
                .filter(|(_, s)| **s)
                .map(|(v, _)| (contract, (*v).to_owned())),
        );
    }
    mapped
}
