//! Checks of InfraMachinePool and InfraMachinePoolTemplate CRDs against the contract.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::naming::crd_name;
use crate::report::{Outcome, Report};
use crate::rules::{Rule, rule};
use crate::schema_view::{field, type_of, yaml_path};
use crate::version::{compatible_contracts, contract_labels};

/// The core Cluster API group, whose own CRDs are not provider resources.
const CORE_GROUP: &str = "cluster.x-k8s.io";

/// A CRD to check, with where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct CrdInput {
    /// File (and document index) it was read from.
    pub source: String,
    /// The CRD, with build-time labels (kustomization) already applied.
    pub crd: Value,
    /// Notes about how labels were obtained (e.g. kustomization patches that are missing).
    pub notes: Vec<String>,
}

/// What the checker assumes about the consumer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckOptions {
    /// The contract version core Cluster API implements (`v1beta2` or `v1beta1`).
    pub contract: String,
    /// Accept the temporary v1beta1 compatibility forms (`status.ready`, v1beta1-only labels)
    /// with a deprecation warning; when false they fail.
    pub v1beta1_compat: bool,
}

impl Default for CheckOptions {
    fn default() -> Self {
        Self {
            contract: "v1beta2".into(),
            v1beta1_compat: true,
        }
    }
}

/// The role a CRD plays in the contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// An InfraMachinePool (kind ending in `MachinePool`).
    Pool,
    /// An InfraMachinePoolTemplate (kind ending in `MachinePoolTemplate`).
    Template,
}

/// The role of a CRD, or why it is not checked.
///
/// # Errors
/// A text saying why the CRD is not an InfraMachinePool (or template).
pub fn classify(crd: &Value) -> Result<Role, String> {
    let name = crd["metadata"]["name"].as_str().unwrap_or("<unnamed>");
    if crd["kind"] != "CustomResourceDefinition" {
        return Err(format!("{name}: not a CustomResourceDefinition"));
    }
    let kind = crd["spec"]["names"]["kind"].as_str().unwrap_or_default();
    let group = crd["spec"]["group"].as_str().unwrap_or_default();
    if group == CORE_GROUP {
        return Err(format!("{name}: core Cluster API CRD (group {CORE_GROUP})"));
    }
    if kind.ends_with("MachinePoolTemplate") {
        Ok(Role::Template)
    } else if kind.ends_with("MachinePool") {
        Ok(Role::Pool)
    } else {
        Err(format!(
            "{name}: kind {kind} is not an InfraMachinePool or InfraMachinePoolTemplate"
        ))
    }
}

pub(crate) struct Ctx<'a> {
    pub(crate) opts: &'a CheckOptions,
    pub(crate) report: &'a mut Report,
}

impl Ctx<'_> {
    /// Outcome of a temporary-compatibility form: a warning, or a failure without compat.
    pub(crate) fn compat(&self) -> Outcome {
        if self.opts.v1beta1_compat {
            Outcome::Warn
        } else {
            Outcome::Fail
        }
    }
}

pub(crate) fn violation(rule: &Rule) -> Outcome {
    match rule.level {
        crate::rules::Level::Must => Outcome::Fail,
        _ => Outcome::Warn,
    }
}

fn versions_of(crd: &Value) -> Vec<&Value> {
    crd["spec"]["versions"]
        .as_array()
        .map(|v| v.iter().collect())
        .unwrap_or_default()
}

/// Checks every CRD; InfraMachinePool templates are matched to their pools by kind.
#[must_use]
pub fn check_crds(inputs: &[CrdInput], opts: &CheckOptions) -> Report {
    let mut report = Report::default();
    let mut classified = Vec::new();
    for input in inputs {
        match classify(&input.crd) {
            Ok(role) => classified.push((input, role)),
            Err(reason) => report
                .skipped
                .push(format!("{} ({})", reason, input.source)),
        }
    }
    let template_kinds: Vec<(String, String)> = classified
        .iter()
        .filter(|(_, role)| *role == Role::Template)
        .map(|(i, _)| (group_of(&i.crd).to_owned(), kind_of(&i.crd).to_owned()))
        .collect();
    for (input, role) in &classified {
        let mut ctx = Ctx {
            opts,
            report: &mut report,
        };
        check_crd(&mut ctx, input, *role);
        if *role == Role::Pool {
            let name = name_of(&input.crd);
            let wanted = (
                group_of(&input.crd).to_owned(),
                format!("{}Template", kind_of(&input.crd)),
            );
            if template_kinds.contains(&wanted) {
                ctx.report.record(
                    "template-resource",
                    Outcome::Pass,
                    name,
                    &opts.contract,
                    "spec.names.kind",
                    format!("{} is defined", wanted.1),
                    "",
                );
            } else {
                ctx.report.record(
                    "template-resource",
                    Outcome::Warn,
                    name,
                    &opts.contract,
                    "spec.names.kind",
                    format!(
                        "no {} CRD among the inputs (needed for ClusterClass support)",
                        wanted.1
                    ),
                    &format!(
                        "define {}Template and {}TemplateList in group {}",
                        kind_of(&input.crd),
                        kind_of(&input.crd),
                        wanted.0
                    ),
                );
            }
        }
    }
    report
}

fn name_of(crd: &Value) -> &str {
    crd["metadata"]["name"].as_str().unwrap_or("<unnamed>")
}

fn kind_of(crd: &Value) -> &str {
    crd["spec"]["names"]["kind"].as_str().unwrap_or_default()
}

fn group_of(crd: &Value) -> &str {
    crd["spec"]["group"].as_str().unwrap_or_default()
}

fn check_crd(ctx: &mut Ctx<'_>, input: &CrdInput, role: Role) {
    let crd = &input.crd;
    let name = name_of(crd);
    let contract = ctx.opts.contract.clone();
    let (kind, group) = (kind_of(crd), group_of(crd));
    let scope = crd["spec"]["scope"].as_str().unwrap_or_default();
    if scope == "Namespaced" {
        ctx.report.record(
            "scope",
            Outcome::Pass,
            name,
            &contract,
            "spec.scope",
            "Namespaced".into(),
            "",
        );
    } else {
        ctx.report.record(
            "scope",
            Outcome::Fail,
            name,
            &contract,
            "spec.scope",
            format!("scope is {scope:?}"),
            "set `scope: Namespaced` (kubebuilder: `+kubebuilder:resource:scope=Namespaced`)",
        );
    }
    let expected = crd_name(group, kind);
    if name == expected {
        ctx.report.record(
            "crd-name",
            Outcome::Pass,
            name,
            &contract,
            "metadata.name",
            format!("{name} = plural(lowercase({kind})).{group}"),
            "",
        );
    } else {
        ctx.report.record(
            "crd-name",
            Outcome::Fail,
            name,
            &contract,
            "metadata.name",
            format!("CRD name is {name:?}, expected {expected:?}"),
            "name the plural `plural(lowercase(kind))` as upstream's CalculateCRDName does",
        );
    }
    let list_kind = crd["spec"]["names"]["listKind"]
        .as_str()
        .unwrap_or_default();
    if list_kind == format!("{kind}List") {
        ctx.report.record(
            "list-kind",
            Outcome::Pass,
            name,
            &contract,
            "spec.names.listKind",
            list_kind.to_owned(),
            "",
        );
    } else {
        ctx.report.record(
            "list-kind",
            Outcome::Fail,
            name,
            &contract,
            "spec.names.listKind",
            format!("listKind is {list_kind:?}, expected \"{kind}List\""),
            &format!("define the list type {kind}List"),
        );
    }
    let categories: Vec<&str> = crd["spec"]["names"]["categories"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if categories.contains(&"cluster-api") {
        ctx.report.record(
            "categories",
            Outcome::Pass,
            name,
            &contract,
            "spec.names.categories",
            "contains cluster-api".into(),
            "",
        );
    } else {
        ctx.report.record(
            "categories",
            Outcome::Warn,
            name,
            &contract,
            "spec.names.categories",
            format!("categories {categories:?} lack cluster-api"),
            "add `categories=cluster-api` to the kubebuilder resource marker",
        );
    }
    if group == "infrastructure.cluster.x-k8s.io" {
        ctx.report.record(
            "api-group",
            Outcome::Pass,
            name,
            &contract,
            "spec.group",
            group.to_owned(),
            "",
        );
    } else {
        ctx.report.record("api-group", Outcome::Info, name, &contract, "spec.group", format!("group {group:?} is not infrastructure.cluster.x-k8s.io"), "grant core controllers RBAC through a ClusterRole labelled cluster.x-k8s.io/aggregate-to-manager: \"true\"");
    }
    for v in versions_of(crd) {
        let vname = v["name"].as_str().unwrap_or_default();
        let kube_like =
            crate::version::compare_kube_aware(vname, "v1alpha1") != std::cmp::Ordering::Less;
        if kube_like {
            ctx.report.record(
                "version-policy",
                Outcome::Pass,
                name,
                &contract,
                &format!("spec.versions[{vname}].name"),
                vname.to_owned(),
                "",
            );
        } else {
            ctx.report.record(
                "version-policy",
                Outcome::Warn,
                name,
                &contract,
                &format!("spec.versions[{vname}].name"),
                format!("{vname:?} is not a Kubernetes API version"),
                "use v<N>, v<N>alpha<M> or v<N>beta<M>",
            );
        }
    }
    let mapped = check_labels(ctx, input);
    for (label_contract, version) in mapped {
        let Some(v) = versions_of(crd)
            .into_iter()
            .find(|v| v["name"] == version.as_str())
        else {
            continue;
        };
        let subject = format!("{name}@{version}");
        let schema = &v["schema"]["openAPIV3Schema"];
        check_type_meta(ctx, &subject, &label_contract, &version, schema);
        match role {
            Role::Pool => {
                if v["subresources"]["status"].is_object() {
                    ctx.report.record(
                        "status-subresource",
                        Outcome::Pass,
                        &subject,
                        &label_contract,
                        &format!("spec.versions[{version}].subresources.status"),
                        "enabled".into(),
                        "",
                    );
                } else {
                    ctx.report.record(
                        "status-subresource",
                        Outcome::Warn,
                        &subject,
                        &label_contract,
                        &format!("spec.versions[{version}].subresources.status"),
                        "status subresource not enabled".into(),
                        "add `+kubebuilder:subresource:status`",
                    );
                }
                crate::pool_schema::check_pool_schema(
                    ctx,
                    &subject,
                    &label_contract,
                    &version,
                    schema,
                );
            }
            Role::Template => {
                check_template_schema(ctx, &subject, &label_contract, &version, schema)
            }
        }
    }
}

/// Checks the contract labels; returns the (contract, version) pairs whose schemas to check.
fn check_labels(ctx: &mut Ctx<'_>, input: &CrdInput) -> Vec<(String, String)> {
    let crd = &input.crd;
    let name = name_of(crd);
    let contract = ctx.opts.contract.clone();
    let labels = contract_labels(&crate::version::crd_labels(crd));
    let compatible = compatible_contracts(&contract);
    let served: BTreeMap<&str, bool> = versions_of(crd)
        .iter()
        .filter_map(|v| Some((v["name"].as_str()?, v["served"].as_bool().unwrap_or(false))))
        .collect();
    let mut mapped = Vec::new();
    for (label_contract, versions) in &labels {
        let path = format!("metadata.labels[cluster.x-k8s.io/{label_contract}]");
        let is_compatible = compatible.contains(&label_contract.as_str());
        // The version core Cluster API resolves to for this label: the highest listed one.
        let resolved = versions
            .iter()
            .max_by(|a, b| crate::version::compare_kube_aware(a, b))
            .cloned()
            .unwrap_or_default();
        for version in versions.iter().filter(|v| !v.is_empty()) {
            let found = served.get(version.as_str()).copied();
            if found == Some(true) {
                if is_compatible {
                    ctx.report.record(
                        "contract-label-versions",
                        Outcome::Pass,
                        name,
                        label_contract,
                        &path,
                        format!("{version} is served"),
                        "",
                    );
                    mapped.push((label_contract.clone(), version.clone()));
                }
                continue;
            }
            let versions_list: Vec<&str> = served.keys().copied().collect();
            let (what, outcome) = match found {
                // Listed in the CRD spec but not served: harmless unless it is the version
                // references resolve to.
                Some(_) if *version != resolved => (
                    "is not served (references resolve to the higher listed version)",
                    Outcome::Warn,
                ),
                Some(_) => ("is not served, and references resolve to it", Outcome::Fail),
                None => ("does not exist in spec.versions", Outcome::Fail),
            };
            let outcome = if is_compatible {
                outcome
            } else {
                Outcome::Warn
            };
            let message = format!(
                "label maps contract {label_contract} to {version}, which {what} (CRD versions: {versions_list:?})"
            );
            let fix = format!(
                "point cluster.x-k8s.io/{label_contract} at served versions of the CRD (kustomization `labels`), or remove it"
            );
            ctx.report.record(
                "contract-label-versions",
                outcome,
                name,
                label_contract,
                &path,
                message,
                &fix,
            );
        }
    }
    let present: Vec<&str> = compatible
        .iter()
        .copied()
        .filter(|c| {
            labels
                .get(*c)
                .is_some_and(|v| v.iter().any(|s| !s.is_empty()))
        })
        .collect();
    if present.is_empty() {
        let mut message = format!(
            "no contract label for {} (labels found: {:?})",
            compatible.join(" or "),
            labels.keys().collect::<Vec<_>>()
        );
        for note in &input.notes {
            message.push_str("; ");
            message.push_str(note);
        }
        ctx.report.record("contract-label", Outcome::Fail, name, &contract, "metadata.labels", message,
            &format!("add `cluster.x-k8s.io/{contract}: <versions>` to the CRD (kustomization `labels: - pairs:`)"));
    } else {
        ctx.report.record(
            "contract-label",
            Outcome::Pass,
            name,
            &contract,
            "metadata.labels",
            format!("labels for {present:?}"),
            "",
        );
    }
    if contract == "v1beta2" && !present.is_empty() {
        if present.contains(&"v1beta2") {
            ctx.report.record(
                "deprecated-contract",
                Outcome::Pass,
                name,
                &contract,
                "metadata.labels[cluster.x-k8s.io/v1beta2]",
                "implements the v1beta2 contract".into(),
                "",
            );
        } else {
            let outcome = ctx.compat();
            ctx.report.record("deprecated-contract", outcome, name, &contract, "metadata.labels[cluster.x-k8s.io/v1beta2]",
                "only the deprecated v1beta1 contract is implemented (accepted under the temporary compatibility)".into(),
                "implement the v1beta2 contract in a CRD version and label it `cluster.x-k8s.io/v1beta2: <version>`");
        }
    }
    if mapped.is_empty() {
        // No label maps a served version: still check the served versions against the
        // requested contract, so the provider sees every schema problem at once.
        mapped.extend(
            served
                .iter()
                .filter(|(_, s)| **s)
                .map(|(v, _)| (contract.clone(), (*v).to_owned())),
        );
    }
    mapped
}

fn check_type_meta(
    ctx: &mut Ctx<'_>,
    subject: &str,
    contract: &str,
    version: &str,
    schema: &Value,
) {
    let expected = [
        ("apiVersion", "string"),
        ("kind", "string"),
        ("metadata", "object"),
    ];
    let wrong: Vec<String> = expected
        .iter()
        .filter(|(f, t)| field(schema, &[f]).and_then(type_of) != Some(*t))
        .map(|(f, t)| format!("{f} ({t})"))
        .collect();
    let path = yaml_path(version, &[]);
    if wrong.is_empty() {
        ctx.report.record(
            "type-and-object-meta",
            Outcome::Pass,
            subject,
            contract,
            &path,
            "apiVersion, kind, metadata".into(),
            "",
        );
    } else {
        ctx.report.record(
            "type-and-object-meta",
            Outcome::Fail,
            subject,
            contract,
            &path,
            format!("missing or mistyped: {}", wrong.join(", ")),
            "embed metav1.TypeMeta and metav1.ObjectMeta in the root type",
        );
    }
}

fn check_template_schema(
    ctx: &mut Ctx<'_>,
    subject: &str,
    contract: &str,
    version: &str,
    schema: &Value,
) {
    let path = ["spec", "template", "spec"];
    let rule = rule("template-spec");
    match field(schema, &path).and_then(type_of) {
        Some("object") => ctx.report.record(
            "template-spec",
            Outcome::Pass,
            subject,
            contract,
            &yaml_path(version, &path),
            "object".into(),
            "",
        ),
        other => {
            let outcome = rule.map_or(Outcome::Fail, violation);
            ctx.report.record(
                "template-spec",
                outcome,
                subject,
                contract,
                &yaml_path(version, &path),
                format!(
                    "spec.template.spec is {}",
                    other.map_or("missing".to_owned(), |t| format!("of type {t}"))
                ),
                "give the template spec.template.spec (the InfraMachinePool spec)",
            );
        }
    }
}
