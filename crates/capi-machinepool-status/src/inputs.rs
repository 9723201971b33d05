//! What the MachinePool conditions are computed from, besides the pool: the referenced
//! objects as the controller read them, whether the pool has MachinePool Machines, the
//! Cluster's `spec.paused` and the time.

use capi_contract::Contract;
use capi_machinepool_api::views::Machine;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use kube_core::DynamicObject;

/// A referenced object (bootstrap config or InfraMachinePool) as the controller saw it, read
/// with `kube::Api::<DynamicObject>` (its kind is only known at run time).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum External<'a> {
    /// Read successfully.
    Found(&'a DynamicObject),
    /// Does not exist.
    NotFound,
    /// Could not be read (transient error).
    ReadError,
}

/// Whether the pool's InfraMachinePool provides MachinePool Machines (one Cluster API
/// `Machine` per replica), and if so the pool's Machines.
///
/// The three states are those of upstream PR #13929 (cluster-api#10059): a pool known to have
/// Machines, a pool known to have none (typical of managed pools: AKS, EKS, OKE), and a pool
/// whose InfraMachinePool could not be read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MachinePoolMachines<'a> {
    /// The InfraMachinePool sets `status.infrastructureMachineKind` (or Machines of the pool
    /// exist): these are the pool's Machines, as listed with `kube::Api::<views::Machine>`.
    Supported(&'a [Machine]),
    /// The InfraMachinePool was read and sets no `status.infrastructureMachineKind`: replicas
    /// have no Machine, and `status.versions` (from the Nodes' kubelets) is all there is.
    NotSupported,
    /// Cannot tell: the InfraMachinePool could not be read and no Machine of the pool is known,
    /// or the Machines could not be listed.
    Unknown,
}

impl<'a> MachinePoolMachines<'a> {
    /// The state from what the controller read: the InfraMachinePool, and the pool's Machines
    /// (`None` when listing them failed).
    ///
    /// Upstream decides with `scope.hasMachinePoolMachines`
    /// (`core/reconcilers/machinepool/machinepool_controller_scope.go`): a non-empty
    /// `status.infrastructureMachineKind`. When the InfraMachinePool cannot be read, existing
    /// Machines still prove support (PR #13929).
    #[must_use]
    pub fn detect(infra: External<'a>, listed: Option<&'a [Machine]>) -> Self {
        match (infra, listed) {
            (External::Found(obj), listed) if declares_machine_kind(obj) => {
                listed.map_or(Self::Unknown, Self::Supported)
            }
            (External::Found(_), _) => Self::NotSupported,
            (_, Some(machines)) if !machines.is_empty() => Self::Supported(machines),
            _ => Self::Unknown,
        }
    }

    /// The Machines when supported.
    #[must_use]
    pub fn machines(&self) -> Option<&'a [Machine]> {
        match *self {
            Self::Supported(machines) => Some(machines),
            Self::NotSupported | Self::Unknown => None,
        }
    }
}

/// True when an InfraMachinePool sets a non-empty `status.infrastructureMachineKind`.
fn declares_machine_kind(infra: &DynamicObject) -> bool {
    capi_contract::fields::infra_machine_pool::INFRASTRUCTURE_MACHINE_KIND
        .get(&infra.data)
        .is_ok_and(|kind| !kind.is_empty())
}

/// Everything the conditions are computed from, besides the MachinePool itself (which
/// [`apply`](crate::apply) updates in place).
#[derive(Clone, Debug)]
pub struct Inputs<'a> {
    /// The InfraMachinePool.
    pub infra: External<'a>,
    /// Contract version the infra provider implements (from its CRD's labels, see
    /// `capi_contract::labels`).
    pub infra_contract: Contract,
    /// The bootstrap config (`NotFound` when none is referenced is fine too).
    pub bootstrap: External<'a>,
    /// MachinePool Machines: supported (with the Machines), not supported, or unknown; see
    /// [`MachinePoolMachines::detect`].
    pub machines: MachinePoolMachines<'a>,
    /// The Cluster has `spec.paused: true`.
    pub cluster_paused: bool,
    /// Current time.
    pub now: &'a Time,
}
