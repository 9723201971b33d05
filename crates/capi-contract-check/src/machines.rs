//! MachinePool Machines, judged as upstream's MachinePool controller uses them
//! (`core/reconcilers/machinepool/machinepool_controller_phases.go`, `reconcileMachines` and
//! `createOrUpdateMachines`; proposal `docs/proposals/20220209-machinepool-machines.md`):
//! a pool that sets `status.infrastructureMachineKind` has its InfraMachines listed as
//! `<Kind>List` at the pool's apiVersion, selected by the `cluster.x-k8s.io/cluster-name`
//! label and the `cluster.x-k8s.io/pool-name` label holding `format.MustFormatValue` of the
//! MachinePool's name; each becomes a Machine whose Node is found by `spec.providerID`.

use std::collections::BTreeMap;

use capi_contract::Contract;
use capi_contract::fields::infra_machine_pool::{
    INFRASTRUCTURE_MACHINE_KIND as MACHINE_KIND, PROVIDER_ID_LIST,
};
use capi_contract::fields::{Field, infra_machine as machine};

use capi_contract::reader::ReadError;
use capi_diagnostics::excerpt::excerpt;
use capi_machinepool_api::constants::{CLUSTER_NAME_LABEL, MACHINE_POOL_NAME_LABEL};
use capi_machinepool_api::views::machine_pool_machines_labels;

use crate::catalog::{Catalog, CrdFacts};
use crate::input::Role;
use crate::inventory::{Inventory, MachineObject, PoolObject};
use crate::report::Report;
use crate::rules;
use crate::skipped::Skipped;

/// Runs the MachinePool Machines rules on every pool; returns the InfraMachine candidates no
/// pool claimed (to list as skipped).
pub(crate) fn check(report: &mut Report, catalog: &Catalog, inventory: &Inventory) -> Vec<Skipped> {
    let mut claimed = vec![false; inventory.machines.len()];
    for pool in &inventory.pools {
        let kind = match &pool.machine_kind {
            Ok(kind) => kind,
            Err(ReadError::Missing { .. }) => {
                never_machines(report, pool, inventory);
                continue;
            }
            Err(e) => {
                machine_kind_check(report, pool)
                    .fail(e.to_string(), "set it to the InfraMachine kind, a string");
                continue;
            }
        };
        infra_machine_crd(report, catalog, pool, kind);
        for (i, machine) in inventory.machines.iter().enumerate() {
            if belongs_to(pool, kind, machine) {
                claimed[i] = true;
                infra_machine(report, pool, machine);
            }
        }
    }
    inventory
        .machines
        .iter()
        .zip(claimed)
        .filter(|(_, c)| !c)
        .map(|(m, _)| Skipped::UnclaimedMachine {
            subject: m.meta.subject.to_string(),
            kind: m.meta.kind.clone(),
        })
        .collect()
}

/// The label selector upstream computes for `pool` (`views::machine_pool_machines_labels`, the
/// pool name formatted), when the pool says which MachinePool and Cluster it belongs to.
fn selector(pool: &PoolObject) -> Option<BTreeMap<String, String>> {
    Some(machine_pool_machines_labels(
        pool.cluster.as_deref()?,
        pool.machine_pool.as_deref()?,
    ))
}

/// True when `labels` hold every label of `selector`.
fn matches(selector: &BTreeMap<String, String>, labels: &BTreeMap<String, String>) -> bool {
    selector.iter().all(|(k, v)| labels.get(k) == Some(v))
}

/// An InfraMachine of the pool's kind in its namespace, owned by it or selected by it.
fn belongs_to(pool: &PoolObject, kind: &str, machine: &MachineObject) -> bool {
    let m = &machine.meta;
    if m.kind != kind || m.group() != pool.meta.group() || m.namespace != pool.meta.namespace {
        return false;
    }
    let owned = m.owned_by(pool.meta.group(), &pool.meta.kind, &pool.meta.name);
    let selected = selector(pool).is_some_and(|s| matches(&s, &m.labels));
    owned || selected
}

/// The CRD of the InfraMachine kind: among the inputs, in the pool's group, serving the
/// pool's version (the list call uses the pool's apiVersion), listable as `<Kind>List`,
/// namespaced and labelled for a contract (the Machine controller resolves its
/// infrastructureRef through the labels).
fn infra_machine_crd(report: &mut Report, catalog: &Catalog, pool: &PoolObject, kind: &str) {
    let group = pool.meta.group();
    let check = report.check(
        &rules::MACHINE_POOL_MACHINE_CRD,
        &pool.meta.subject,
        pool.contract,
        MACHINE_KIND.dotted(),
    );
    // infra-machinepool.md: the value "must be set to the resource kind that represents the
    // replicas in the pool. This is usually the resource kind name for the providers
    // InfraMachine" — never the pool itself.
    if kind == pool.meta.kind
        || catalog
            .find(group, kind)
            .any(|c| c.role == Some(Role::Pool))
    {
        check.fail(
            format!(
                "{} is {}, an InfraMachinePool kind, not the InfraMachine kind that represents the replicas: the MachinePool controller would list pools as Machines",
                MACHINE_KIND.dotted(),
                excerpt(kind)
            ),
            format!("set it to the InfraMachine kind (one object per replica, with {}), or leave it unset when the provider does not create InfraMachines", machine::PROVIDER_ID.dotted()),
        );
        return;
    }
    let Some(crd) = catalog.find(group, kind).next() else {
        check.fail(
            format!(
                "{} is {}, and no CRD of kind {} in group {} is among the inputs",
                MACHINE_KIND.dotted(),
                excerpt(kind),
                excerpt(kind),
                excerpt(group)
            ),
            format!("give the {kind} CRD with the other CRDs (config/crd)"),
        );
        return;
    };
    let problems = crd_problems(crd, kind, pool.meta.version());
    if problems.is_empty() {
        check.pass(format!(
            "{kind} is defined by {} and served at {}",
            crd.name, pool.meta.api_version
        ));
    } else {
        check.fail(
            format!("CRD {} of {kind}: {}", crd.name, problems.join("; ")),
            format!(
                "serve {kind} at {} with listKind {kind}List, scope Namespaced and a cluster.x-k8s.io/<contract> label",
                pool.meta.api_version
            ),
        );
    }
}

fn crd_problems(crd: &CrdFacts, kind: &str, version: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if !crd.serves(version) {
        problems.push(format!(
            "does not serve {} (the MachinePool controller lists {kind}List at the pool's version)",
            excerpt(version)
        ));
    }
    if let Some(list) = crd
        .list_kind
        .as_deref()
        .filter(|l| *l != format!("{kind}List"))
    {
        problems.push(format!("listKind is {}", excerpt(list)));
    }
    if !crd.namespaced {
        problems.push("not namespaced".to_owned());
    }
    if crd.contracts().is_empty() {
        problems.push("no cluster.x-k8s.io/<contract> label".to_owned());
    }
    if let Some(schema) = crd.version(version).map(|v| &v.schema) {
        let declared = |node: Option<&serde_json::Value>| node.is_some_and(|n| n.is_object());
        if !declared(machine::PROVIDER_ID.schema(schema)) {
            problems.push(format!(
                "its schema has no {} (an InfraMachine names its instance there)",
                machine::PROVIDER_ID.dotted()
            ));
        }
        // The current contract's field and the oldest one the current core still reads.
        let compatible = Contract::current().compatible();
        let oldest = compatible.last().copied().unwrap_or_else(Contract::current);
        let [provisioned, ready] =
            [Contract::current(), oldest].map(|c| machine::PROVISIONED.at(c));
        let in_schema = |f: Option<&Field<bool>>| declared(f.and_then(|f| f.schema(schema)));
        if !in_schema(provisioned) && !in_schema(ready) {
            let name = |f: Option<&Field<bool>>| f.map(Field::dotted).unwrap_or_default();
            problems.push(format!(
                "its schema has neither {} nor {} (the Machine controller waits for one of them on every Machine)",
                name(provisioned),
                name(ready)
            ));
        }
    }
    problems
}

/// The `machine-pool-machine-crd` finding on the pool's `status.infrastructureMachineKind`.
fn machine_kind_check<'r>(report: &'r mut Report, pool: &PoolObject) -> crate::report::Check<'r> {
    report.check(
        &rules::MACHINE_POOL_MACHINE_CRD,
        &pool.meta.subject,
        pool.contract,
        MACHINE_KIND.dotted(),
    )
}

/// A pool that owns objects (owner references) but never sets
/// `status.infrastructureMachineKind`: the MachinePool controller creates Machines only for
/// pools that set it, so these objects never become Machines.
fn never_machines(report: &mut Report, pool: &PoolObject, inventory: &Inventory) {
    let p = &pool.meta;
    let owned: Vec<&MachineObject> = inventory
        .machines
        .iter()
        .filter(|m| m.meta.namespace == p.namespace && m.meta.owned_by(p.group(), &p.kind, &p.name))
        .collect();
    let Some(first) = owned.first() else {
        return;
    };
    machine_kind_check(report, pool).fail(
            format!(
                "{} owns {} {} object(s) (first: {}) but {} is not set: Cluster API will never create Machines for them (no drain, no MachineHealthCheck)",
                p.name,
                owned.len(),
                excerpt(&first.meta.kind),
                excerpt(&first.meta.name),
                MACHINE_KIND.dotted()
            ),
            format!("set {} to {}", MACHINE_KIND.dotted(), first.meta.kind),
        );
}

/// The labels, owner and provider ID of one InfraMachine of `pool`.
fn infra_machine(report: &mut Report, pool: &PoolObject, machine: &MachineObject) {
    labels(report, pool, machine);
    owner(report, pool, machine);
    provider_id(report, pool, machine);
}

fn labels(report: &mut Report, pool: &PoolObject, machine: &MachineObject) {
    let check = report.check(
        &rules::MACHINE_POOL_MACHINE_LABELS,
        &machine.meta.subject,
        machine.contract.unwrap_or(pool.contract),
        "metadata.labels",
    );
    let Some(selector) = selector(pool) else {
        if !machine.meta.labels.contains_key(MACHINE_POOL_NAME_LABEL) {
            check.fail(
                format!(
                    "no {MACHINE_POOL_NAME_LABEL} label at all: the MachinePool controller selects InfraMachines by it, so Cluster API will never see this {}",
                    machine.meta.kind
                ),
                format!("label it {MACHINE_POOL_NAME_LABEL}=<MachinePool name> and {CLUSTER_NAME_LABEL}=<Cluster name>"),
            );
            return;
        }
        check.info(
            format!(
                "{} {} has no controller reference to a MachinePool or no {CLUSTER_NAME_LABEL} label (core sets both when it reconciles the pool): the selector cannot be computed",
                pool.meta.kind, pool.meta.name
            ),
            "give the InfraMachinePool as the cluster has it (kubectl get -o yaml)",
        );
        return;
    };
    let machine_pool = pool.machine_pool.as_deref().unwrap_or_default();
    let wanted: Vec<String> = selector.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let mut wrong = Vec::new();
    for (key, expected) in &selector {
        match machine.meta.labels.get(key) {
            Some(v) if v == expected => {}
            Some(v) => wrong.push(format!("{key} is {:?}, expected {expected:?}", excerpt(v))),
            None => wrong.push(format!("{key} is missing, expected {expected:?}")),
        }
    }
    if wrong.is_empty() {
        check.pass(wanted.join(", "));
        return;
    }
    let pool_name = selector
        .get(MACHINE_POOL_NAME_LABEL)
        .map_or("", String::as_str);
    let pool_label_wrong = machine
        .meta
        .labels
        .get(MACHINE_POOL_NAME_LABEL)
        .map(String::as_str)
        != Some(pool_name);
    let hashed = if pool_name == machine_pool || !pool_label_wrong {
        String::new()
    } else {
        format!(
            " ({} is not a valid label value: upstream's format.MustFormatValue hashes it)",
            excerpt(machine_pool)
        )
    };
    check.fail(
        format!(
            "{}{hashed}: Cluster API will never see this {}: no Machine, no drain, no MachineHealthCheck",
            wrong.join("; "),
            machine.meta.kind
        ),
        format!(
            "label it {} (the pool name as format.MustFormatValue gives it)",
            wanted.join(" and ")
        ),
    );
}

fn owner(report: &mut Report, pool: &PoolObject, machine: &MachineObject) {
    let p = &pool.meta;
    let check = report.check(
        &rules::MACHINE_POOL_MACHINE_OWNER,
        &machine.meta.subject,
        machine.contract.unwrap_or(pool.contract),
        "metadata.ownerReferences",
    );
    if machine.meta.owned_by(p.group(), &p.kind, &p.name) {
        check.pass(format!("owned by {} {}", p.kind, p.name));
    } else {
        check.warn(
            format!("no owner reference to {} {}", p.kind, p.name),
            format!(
                "add an owner reference to {} {} when creating it",
                p.kind, p.name
            ),
        );
    }
}

fn provider_id(report: &mut Report, pool: &PoolObject, machine: &MachineObject) {
    let check = report.check(
        &rules::MACHINE_POOL_MACHINE_PROVIDER_ID,
        &machine.meta.subject,
        machine.contract.unwrap_or(pool.contract),
        machine::PROVIDER_ID.dotted(),
    );
    let (id_field, list) = (machine::PROVIDER_ID.dotted(), PROVIDER_ID_LIST.dotted());
    match machine.provider_id.as_deref().filter(|id| !id.is_empty()) {
        None => check.warn(
            format!("{id_field} is not set: the Machine is not matched to a Node"),
            format!("set {id_field} to the instance's provider ID (the one its Node reports)"),
        ),
        Some(id) if pool.provider_ids.iter().any(|p| p == id) => {
            check.pass(format!("{} is in the pool's providerIDList", excerpt(id)));
        }
        Some(id) => check.warn(
            format!(
                "{} is not in {} {}'s {list}",
                excerpt(id),
                pool.meta.kind,
                pool.meta.name
            ),
            format!("list every instance of the pool in {list}"),
        ),
    }
}
