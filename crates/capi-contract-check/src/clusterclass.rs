//! ClusterClass support, judged across the inputs: MachinePoolClasses name templates the
//! provider defines (`api/core/v1beta2/clusterclass_types.go`, `MachinePoolClass`), Cluster
//! topologies name classes that exist (`MachinePoolTopology.class`), and a template's
//! `spec.template.spec` fits the InfraMachinePool's `spec` the topology controller copies it
//! into (`internal/contract/infrastructure_machinepool_template.go`, `Template().Spec()`).

use std::sync::Arc;

use capi_contract::Contract;
use capi_contract::fields::infra_machine_pool_template::TEMPLATE_SPEC;
use capi_diagnostics::excerpt::excerpt;
use capi_versions::GroupVersion;
use serde_json::Value;

use crate::catalog::{Catalog, CrdFacts};
use crate::input::Role;
use crate::inventory::{ClassObject, ClusterObject, Inventory, PoolClass};
use crate::object::MAX_ITEM_FINDINGS;
use crate::report::{Outcome, Report, Subject, Target};
use crate::rules;
use crate::schema_view::{field, type_of, yaml_path};

/// Whether a MachinePoolClass must name a bootstrap template. Upstream marks
/// `MachinePoolClass.bootstrap` `+required` today; cluster-api#10943 asks to make it optional
/// for managed pools. When upstream changes, this is the one place to change.
pub const BOOTSTRAP_TEMPLATE_REQUIRED: bool = true;

/// Runs the ClusterClass and topology rules.
pub(crate) fn check(report: &mut Report, catalog: &Catalog, inventory: &Inventory) {
    for class in &inventory.classes {
        for pool in &class.pools {
            infrastructure_template(report, catalog, class, pool);
            bootstrap_template(report, class, pool);
        }
    }
    for cluster in &inventory.clusters {
        topology_classes(report, inventory, cluster);
    }
}

fn infrastructure_template(
    report: &mut Report,
    catalog: &Catalog,
    class: &ClassObject,
    pool: &PoolClass,
) {
    let path = format!("{}.{}", pool.path, pool.infrastructure_path);
    let check = report.check(
        &rules::CLUSTERCLASS_INFRASTRUCTURE_TEMPLATE,
        &class.meta.subject,
        Contract::CURRENT,
        path,
    );
    let Some(r) = &pool.infrastructure else {
        check.fail(
            format!(
                "MachinePoolClass {} names no infrastructure template",
                excerpt(&pool.class)
            ),
            "set the InfraMachinePoolTemplate (apiVersion, kind, name)",
        );
        return;
    };
    let GroupVersion { group, .. } = GroupVersion::split(&r.api_version);
    let Some(crd) = catalog.find(group, &r.kind).next() else {
        check.fail(
            format!(
                "MachinePoolClass {} names {} in group {}, and no CRD of that kind is among the inputs: the provider does not define it",
                excerpt(&pool.class),
                excerpt(&r.kind),
                excerpt(group)
            ),
            "name an InfraMachinePoolTemplate kind the provider defines, or give its CRD",
        );
        return;
    };
    match template_problem(crd) {
        None => check.pass(format!(
            "{} is defined by {} (contract labels, {})",
            r.kind,
            crd.name,
            TEMPLATE_SPEC.dotted()
        )),
        Some(problem) => check.fail(
            format!("{} ({}): {problem}", r.kind, crd.name),
            format!(
                "label the template CRD for a contract and give it {}",
                TEMPLATE_SPEC.dotted()
            ),
        ),
    }
}

/// Why a template CRD cannot be used by the topology controller, if it cannot.
pub(crate) fn template_problem(crd: &CrdFacts) -> Option<String> {
    let Some(version) = crd.resolved_version() else {
        return Some("no cluster.x-k8s.io/<contract> label".to_owned());
    };
    let Some(v) = crd.version(&version) else {
        return Some(format!(
            "its contract label names {version}, which it does not define"
        ));
    };
    let spec = TEMPLATE_SPEC.schema(&v.schema).and_then(type_of);
    (spec != Some("object")).then(|| format!("{version} has no {} object", TEMPLATE_SPEC.dotted()))
}

fn bootstrap_template(report: &mut Report, class: &ClassObject, pool: &PoolClass) {
    let path = format!("{}.{}", pool.path, pool.bootstrap_path);
    let check = report.check(
        &rules::CLUSTERCLASS_BOOTSTRAP_TEMPLATE,
        &class.meta.subject,
        Contract::CURRENT,
        path,
    );
    match &pool.bootstrap {
        Some(r) => check.pass(format!("{} {}", r.kind, r.name)),
        None => check.outcome(
            if BOOTSTRAP_TEMPLATE_REQUIRED {
                Outcome::Fail
            } else {
                Outcome::Info
            },
            format!(
                "MachinePoolClass {} names no bootstrap template; upstream requires one today (cluster-api#10943)",
                excerpt(&pool.class)
            ),
            "name a bootstrap template (a managed pool that needs none: a placeholder template; outside ClusterClass a managed MachinePool sets spec.template.spec.bootstrap.dataSecretName: \"\" instead)",
        ),
    }
}

fn topology_classes(report: &mut Report, inventory: &Inventory, cluster: &ClusterObject) {
    let (namespace, name) = cluster.class();
    let class = inventory
        .classes
        .iter()
        .find(|c| c.meta.namespace == namespace && c.meta.name == name);
    for (i, topology) in cluster.spec.machine_pool_topologies().iter().enumerate() {
        let (pool, class_name) = (&topology.name, &topology.class);
        let path = format!("spec.topology.workers.machinePools[{i}].class");
        let check = report.check(
            &rules::CLUSTER_TOPOLOGY_MACHINE_POOL_CLASS,
            &cluster.meta.subject,
            Contract::CURRENT,
            path,
        );
        let Some(class) = class else {
            check.info(
                format!("ClusterClass {namespace}/{name} is not among the inputs: MachinePool {pool}'s class not checked"),
                "give the ClusterClass with the objects",
            );
            continue;
        };
        let classes: Vec<&str> = class.pools.iter().map(|p| p.class.as_str()).collect();
        if classes.contains(&class_name.as_str()) {
            check.pass(format!("{class_name} is a MachinePoolClass of {name}"));
        } else {
            check.fail(
                format!(
                    "MachinePool {} names class {}, which ClusterClass {namespace}/{name} does not define (MachinePoolClasses: {classes:?})",
                    excerpt(pool),
                    excerpt(class_name)
                ),
                format!(
                    "name a class of {} of the ClusterClass",
                    capi_contract::fields::cluster_class::MACHINE_POOL_CLASSES.dotted()
                ),
            );
        }
    }
}

/// For every template CRD whose pool CRD is among the inputs: each field of the template's
/// `spec.template.spec` exists in the pool's `spec` at the same version.
pub(crate) fn template_schemas(report: &mut Report, catalog: &Catalog, contract: Contract) {
    for template in catalog.with_role(Role::Template) {
        let Some(pool_kind) = template.kind.strip_suffix("Template") else {
            continue;
        };
        let Some(pool) = catalog.find(&template.group, pool_kind).next() else {
            continue;
        };
        for version in template.versions.iter().filter(|v| v.served) {
            let contract = template
                .contract_of_version(&version.name)
                .unwrap_or(contract);
            let subject = Arc::new(template.subject.with_target(Target::CrdVersion {
                name: template.name.clone(),
                version: version.name.clone(),
            }));
            let Some(spec) = TEMPLATE_SPEC.schema(&version.schema) else {
                continue;
            };
            let path = yaml_path(&version.name, TEMPLATE_SPEC.path());
            let check = report.check(
                &rules::TEMPLATE_SCHEMA_COMPATIBLE,
                &subject,
                contract,
                path.clone(),
            );
            let Some(pool_spec) = pool
                .version(&version.name)
                .and_then(|v| field(&v.schema, &["spec"]))
            else {
                check.warn(
                    format!("{} has no version {} with a spec: the topology controller creates {pool_kind} at the template's version", pool.name, version.name),
                    format!("serve {pool_kind} at {}", version.name),
                );
                continue;
            };
            let mut pruned = Vec::new();
            missing_fields(spec, pool_spec, "", &mut pruned);
            report_pruned(report, &subject, contract, &path, pool_kind, &pruned);
        }
    }
}

fn report_pruned(
    report: &mut Report,
    subject: &Arc<Subject>,
    contract: Contract,
    path: &str,
    pool_kind: &str,
    pruned: &[String],
) {
    if pruned.is_empty() {
        report
            .check(&rules::TEMPLATE_SCHEMA_COMPATIBLE, subject, contract, path)
            .pass(format!("every field exists in {pool_kind} spec"));
        return;
    }
    for field in pruned.iter().take(MAX_ITEM_FINDINGS) {
        report
            .check(&rules::TEMPLATE_SCHEMA_COMPATIBLE, subject, contract, format!("{path}{}", schema_suffix(field)))
            .warn(
                format!("{}{field} has no counterpart in {pool_kind} spec: the API server silently prunes it from the pool the topology controller creates", TEMPLATE_SPEC.dotted()),
                format!("add spec{field} to {pool_kind}, or remove it from the template"),
            );
    }
    if pruned.len() > MAX_ITEM_FINDINGS {
        report
            .check(&rules::TEMPLATE_SCHEMA_COMPATIBLE, subject, contract, path)
            .warn(
                format!(
                    "and {} more pruned fields",
                    pruned.len() - MAX_ITEM_FINDINGS
                ),
                String::new(),
            );
    }
}

/// True when the API server keeps any field under this schema node.
fn keeps_unknown(node: &Value) -> bool {
    node["x-kubernetes-preserve-unknown-fields"] == true
}

/// Paths (`.a.b`, `.list[].c`) of `template` fields with no counterpart in `pool`.
/// The schema path of a field path of [`missing_fields`] (`.a[].b[*]` ->
/// `.properties.a.items.properties.b.additionalProperties`), so that a finding names the
/// schema node of its CRD version.
fn schema_suffix(field: &str) -> String {
    let mut out = String::new();
    for segment in field.split('.') {
        let name = segment.trim_end_matches(['[', ']', '*']);
        if !name.is_empty() {
            out.push_str(".properties.");
            out.push_str(name);
        }
        let mut rest = &segment[name.len()..];
        while !rest.is_empty() {
            if let Some(r) = rest.strip_prefix("[]") {
                out.push_str(".items");
                rest = r;
            } else if let Some(r) = rest.strip_prefix("[*]") {
                out.push_str(".additionalProperties");
                rest = r;
            } else {
                break;
            }
        }
    }
    out
}

fn missing_fields(template: &Value, pool: &Value, at: &str, out: &mut Vec<String>) {
    if keeps_unknown(pool) {
        return;
    }
    if let Some(props) = template["properties"].as_object() {
        for (name, t) in props {
            let here = format!("{at}.{name}");
            match pool["properties"]
                .get(name)
                .or_else(|| pool.get("additionalProperties").filter(|a| a.is_object()))
            {
                Some(p) => missing_fields(t, p, &here, out),
                None => out.push(here),
            }
        }
    }
    if let (Some(t), Some(p)) = (template.get("items"), pool.get("items")) {
        missing_fields(t, p, &format!("{at}[]"), out);
    }
    if let (Some(t), Some(p)) = (
        template
            .get("additionalProperties")
            .filter(|a| a.is_object()),
        pool.get("additionalProperties").filter(|a| a.is_object()),
    ) {
        missing_fields(t, p, &format!("{at}[*]"), out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A pruned field's finding names the schema node of its CRD version (issue 33: the path
    /// was `spec.template.spec.<field>`, with no version).
    #[test]
    fn pruned_field_paths_are_schema_paths() {
        assert_eq!(
            schema_suffix(".additionalTags"),
            ".properties.additionalTags"
        );
        assert_eq!(
            schema_suffix(".a[].b[*]"),
            ".properties.a.items.properties.b.additionalProperties"
        );
        assert_eq!(schema_suffix("[][]"), ".items.items");
    }

    #[test]
    fn missing_fields_follow_properties_items_and_maps() {
        let template = json!({"properties": {
            "a": {"type": "string"},
            "b": {"properties": {"c": {}, "d": {}}},
            "l": {"items": {"properties": {"x": {}, "y": {}}}},
            "m": {"additionalProperties": {"properties": {"k": {}}}},
            "free": {"properties": {"z": {}}}
        }});
        let pool = json!({"properties": {
            "a": {"type": "string"},
            "b": {"properties": {"c": {}}},
            "l": {"items": {"properties": {"x": {}}}},
            "m": {"additionalProperties": {"properties": {}}},
            "free": {"x-kubernetes-preserve-unknown-fields": true}
        }});
        let mut out = Vec::new();
        missing_fields(&template, &pool, "", &mut out);
        assert_eq!(out, [".b.d", ".l[].y", ".m[*].k"]);
    }
}
