//! The capability report: for each InfraMachinePool kind read, what it supports as far as the
//! CRDs (and objects) show, and what cannot be known statically, stated as unknown unless
//! the provider declares it with an annotation on the InfraMachinePool CRD.
//!
//! ```
//! use capi_contract_check::capabilities::{DECLARE_MACHINE_DELETION, DECLARE_REMEDIATION};
//! assert!(DECLARE_MACHINE_DELETION.starts_with("capabilities.capi-machinepool-rs.github.io/"));
//! assert_ne!(DECLARE_MACHINE_DELETION, DECLARE_REMEDIATION);
//! ```
//!
//! This module holds what the report carries; the checker computes it (`capability_probe`),
//! so the report's types need nothing from the checks.

use std::fmt;

use capi_contract::Contract;
use serde::Serialize;

/// CRD annotation a provider sets to `"true"` or `"false"`: deleting a MachinePool Machine
/// (`kubectl delete machine`, Cluster Autoscaler scale-down) deletes its instance.
pub const DECLARE_MACHINE_DELETION: &str =
    "capabilities.capi-machinepool-rs.github.io/delete-machine-deletes-instance";

/// CRD annotation a provider sets to `"true"` or `"false"`: MachineHealthCheck remediation of
/// a MachinePool Machine replaces the instance.
pub const DECLARE_REMEDIATION: &str =
    "capabilities.capi-machinepool-rs.github.io/machine-health-check-remediation";

/// Which contract a CRD implements, as [`Contract`]'s policy sees it (serialized as
/// `"v1beta2"`, `"v1beta1Only"`, `"none"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContractSupport {
    /// A version is labelled for the current contract.
    Current(Contract),
    /// Only deprecated contracts core still reads (works until their compatibility is
    /// removed): the newest of them.
    DeprecatedOnly(Contract),
    /// No contract label core reads.
    None,
}

impl Serialize for ContractSupport {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Current(c) => s.serialize_str(c.as_str()),
            Self::DeprecatedOnly(c) => s.serialize_str(&format!("{c}Only")),
            Self::None => s.serialize_str("none"),
        }
    }
}

/// MachinePool Machines support.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(
    tag = "state",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum MachinePoolMachines {
    /// The schema has no `status.infrastructureMachineKind`.
    NotSupported,
    /// A pool given with the objects names an InfraMachinePool kind (its own) in
    /// `status.infrastructureMachineKind`: the contract wants "the resource kind that represents
    /// the replicas in the pool", so no MachinePool Machine works.
    WrongKind {
        /// The kind named.
        kind: String,
    },
    /// The schema has `status.infrastructureMachineKind`.
    Supported {
        /// The InfraMachine kind, when known.
        kind: Option<String>,
        /// How the kind is known: `objects` (a pool given with the objects names it) or
        /// `crd-name` (a `<Kind>Machine` CRD, or the kind without `Pool`, exists in the same
        /// group: a guess to confirm with objects).
        #[serde(skip_serializing_if = "Option::is_none")]
        known_from: Option<&'static str>,
    },
}

/// ClusterClass support: an InfraMachinePoolTemplate exists and passes its checks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(
    tag = "state",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ClusterClassSupport {
    /// The template CRD is among the inputs and the topology controller can use it (the
    /// same judgement as the ClusterClass check's).
    Supported {
        /// The template kind.
        template: String,
    },
    /// The template CRD is among the inputs but the topology controller cannot use it (no
    /// contract label resolving to a version it defines, or no `spec.template.spec`).
    TemplateFails {
        /// The template kind.
        template: String,
    },
    /// No template CRD among the inputs.
    NoTemplate {
        /// The kind looked for.
        template: String,
    },
}

/// A behaviour of the provider's controller.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(
    tag = "state",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Behaviour {
    /// Not applicable: the kind has no MachinePool Machines.
    NotApplicable,
    /// Not visible in CRDs or objects.
    Unknown {
        /// The CRD annotation that would declare it.
        declare_with: &'static str,
    },
    /// Declared by the provider on its CRD.
    Declared {
        /// The declared value.
        value: bool,
    },
}

/// What one InfraMachinePool kind supports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Capability {
    /// The API group.
    pub group: String,
    /// The InfraMachinePool kind.
    pub kind: String,
    /// The CRD name.
    pub crd: String,
    /// The contract it implements.
    pub contract: ContractSupport,
    /// MachinePool Machines.
    pub machine_pool_machines: MachinePoolMachines,
    /// ClusterClass.
    pub cluster_class: ClusterClassSupport,
    /// Whether deleting a MachinePool Machine deletes its instance.
    pub machine_deletion: Behaviour,
    /// Whether MachineHealthCheck remediation replaces the instance.
    pub remediation: Behaviour,
}

impl fmt::Display for ContractSupport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Current(c) => write!(f, "{c}"),
            Self::DeprecatedOnly(c) => write!(f, "{c} only (deprecated)"),
            Self::None => f.write_str("none"),
        }
    }
}

impl fmt::Display for MachinePoolMachines {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotSupported => f.write_str("no"),
            Self::WrongKind { kind } => {
                write!(f, "no ({kind} is a pool kind, not an InfraMachine)")
            }
            Self::Supported {
                kind: Some(k),
                known_from: Some("objects"),
            } => write!(f, "yes ({k})"),
            Self::Supported { kind: Some(k), .. } => write!(f, "yes ({k}, by CRD name)"),
            Self::Supported { .. } => f.write_str("yes (kind set at run time)"),
        }
    }
}

impl fmt::Display for ClusterClassSupport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Supported { template } => write!(f, "yes ({template})"),
            Self::TemplateFails { template } => write!(f, "no ({template} fails)"),
            Self::NoTemplate { template } => write!(f, "no ({template} missing)"),
        }
    }
}

impl fmt::Display for Behaviour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotApplicable => f.write_str("n/a"),
            Self::Unknown { .. } => f.write_str("unknown"),
            Self::Declared { value: true } => f.write_str("yes (declared)"),
            Self::Declared { value: false } => f.write_str("no (declared)"),
        }
    }
}

/// The capability table as text: one row per InfraMachinePool kind, then how to declare
/// what cannot be known statically.
///
/// ```
/// let text = capi_contract_check::capabilities::table(&[]);
/// assert!(text.starts_with("KIND"));
/// ```
#[must_use]
pub fn table(capabilities: &[Capability]) -> String {
    let header = [
        "KIND",
        "CONTRACT",
        "MACHINEPOOL MACHINES",
        "CLUSTERCLASS",
        "DELETE MACHINE DELETES INSTANCE",
        "MHC REMEDIATION",
    ];
    let rows: Vec<[String; 6]> = capabilities
        .iter()
        .map(|c| {
            [
                c.kind.clone(),
                c.contract.to_string(),
                c.machine_pool_machines.to_string(),
                c.cluster_class.to_string(),
                c.machine_deletion.to_string(),
                c.remediation.to_string(),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            rows.iter()
                .map(|r| r[i].len())
                .chain([header[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<&str>| {
        let mut out = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect::<Vec<_>>()
            .join("  ");
        out.truncate(out.trim_end().len());
        out.push('\n');
        out
    };
    let mut out = line(header.to_vec());
    for r in &rows {
        out.push_str(&line(r.iter().map(String::as_str).collect()));
    }
    if capabilities.iter().any(|c| {
        matches!(c.machine_deletion, Behaviour::Unknown { .. })
            || matches!(c.remediation, Behaviour::Unknown { .. })
    }) {
        out.push_str(&format!(
            "\nunknown: not visible in CRDs; a provider declares it on the InfraMachinePool CRD with the annotations\n  {DECLARE_MACHINE_DELETION}: \"true\"|\"false\"\n  {DECLARE_REMEDIATION}: \"true\"|\"false\"\n"
        ));
    }
    out
}
