//! Computing the capability report (types in [`crate::capabilities`]) and the
//! `capability-annotation` check, from the catalog and the objects read.

use capi_contract::Contract;
use capi_contract::fields::infra_machine_pool::INFRASTRUCTURE_MACHINE_KIND;

use crate::capabilities::{
    Behaviour, Capability, ClusterClassSupport, ContractSupport, DECLARE_MACHINE_DELETION,
    DECLARE_REMEDIATION, MachinePoolMachines,
};
use crate::catalog::{Catalog, CrdFacts};
use crate::input::Role;
use crate::inventory::Inventory;
use crate::report::Report;
use crate::rules;

/// The capability of every InfraMachinePool CRD in `catalog`, in input order.
pub(crate) fn compute(catalog: &Catalog, inventory: &Inventory) -> Vec<Capability> {
    catalog
        .with_role(Role::Pool)
        .map(|crd| {
            let mpm = machine_pool_machines(catalog, inventory, crd);
            let applies = matches!(mpm, MachinePoolMachines::Supported { .. });
            Capability {
                group: crd.group.clone(),
                kind: crd.kind.clone(),
                crd: crd.name.clone(),
                contract: contract(crd),
                cluster_class: cluster_class(catalog, crd),
                machine_deletion: behaviour(crd, applies, DECLARE_MACHINE_DELETION),
                remediation: behaviour(crd, applies, DECLARE_REMEDIATION),
                machine_pool_machines: mpm,
            }
        })
        .collect()
}

fn contract(crd: &CrdFacts) -> ContractSupport {
    // Newest first: the first one is the newest contract the CRD implements.
    match crd.contracts().first() {
        Some(c) if !c.is_deprecated() => ContractSupport::Current(*c),
        Some(c) => ContractSupport::DeprecatedOnly(*c),
        None => ContractSupport::None,
    }
}

fn machine_pool_machines(
    catalog: &Catalog,
    inventory: &Inventory,
    crd: &CrdFacts,
) -> MachinePoolMachines {
    let declared = crd
        .versions
        .iter()
        .any(|v| INFRASTRUCTURE_MACHINE_KIND.schema(&v.schema).is_some());
    if !declared {
        return MachinePoolMachines::NotSupported;
    }
    let from_objects = inventory
        .pools
        .iter()
        .filter(|p| p.meta.kind == crd.kind && p.meta.group() == crd.group)
        .find_map(|p| p.machine_kind.as_ref().ok().cloned());
    if let Some(kind) = from_objects {
        if kind == crd.kind
            || catalog
                .find(&crd.group, &kind)
                .any(|c| c.role == Some(Role::Pool))
        {
            return MachinePoolMachines::WrongKind { kind };
        }
        return MachinePoolMachines::Supported {
            kind: Some(kind),
            known_from: Some("objects"),
        };
    }
    // The InfraMachine kind by name: `<Kind>Machine` (CAPZ's AzureMachinePoolMachine) or the
    // kind without `Pool` (the contract page's example: AWSMachinePool uses AWSMachine).
    let candidates = [
        format!("{}Machine", crd.kind),
        crd.kind.strip_suffix("Pool").unwrap_or_default().to_owned(),
    ];
    let by_name = candidates
        .into_iter()
        .find(|k| !k.is_empty() && catalog.find(&crd.group, k).next().is_some());
    MachinePoolMachines::Supported {
        known_from: by_name.is_some().then_some("crd-name"),
        kind: by_name,
    }
}

/// One source of truth with the ClusterClass check: a template the topology controller can
/// use (`clusterclass::template_problem`, what `clusterclass-infrastructure-template` judges
/// a ClusterClass by) is supported.
fn cluster_class(catalog: &Catalog, crd: &CrdFacts) -> ClusterClassSupport {
    let template = format!("{}Template", crd.kind);
    let Some(t) = catalog.find(&crd.group, &template).next() else {
        return ClusterClassSupport::NoTemplate { template };
    };
    match crate::clusterclass::template_problem(t) {
        None => ClusterClassSupport::Supported { template },
        Some(_) => ClusterClassSupport::TemplateFails { template },
    }
}

/// `capability-annotation`: each capability annotation on an InfraMachinePool CRD is `"true"`
/// or `"false"`; another value (`"yes"`, `"True"`) would otherwise be read as unknown
/// without a word.
pub(crate) fn check_annotations(report: &mut Report, catalog: &Catalog) {
    for crd in catalog.with_role(Role::Pool) {
        for annotation in [DECLARE_MACHINE_DELETION, DECLARE_REMEDIATION] {
            let Some(value) = crd.annotations.get(annotation) else {
                continue;
            };
            let check = report.check(
                &rules::CAPABILITY_ANNOTATION,
                &crd.subject,
                Contract::CURRENT,
                format!("metadata.annotations[{annotation}]"),
            );
            if matches!(value.as_str(), "true" | "false") {
                check.pass(format!("{annotation}: {value}"));
            } else {
                check.warn(
                    format!(
                        "{annotation} is {:?}, neither \"true\" nor \"false\": the capability is reported as unknown",
                        capi_diagnostics::excerpt::excerpt(value)
                    ),
                    format!("set {annotation} to \"true\" or \"false\""),
                );
            }
        }
    }
}

fn behaviour(crd: &CrdFacts, applies: bool, annotation: &'static str) -> Behaviour {
    if !applies {
        return Behaviour::NotApplicable;
    }
    match crd.annotations.get(annotation).map(String::as_str) {
        Some("true") => Behaviour::Declared { value: true },
        Some("false") => Behaviour::Declared { value: false },
        _ => Behaviour::Unknown {
            declare_with: annotation,
        },
    }
}
