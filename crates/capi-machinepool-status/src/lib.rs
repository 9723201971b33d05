//! Cluster API MachinePool status for Rust: what upstream's MachinePool controller does not
//! compute yet, and what a client needs to know whether a pool finished rolling out.
//!
//! * [`conditions`]: the MachinePool v1beta2 conditions of the improve-status proposal and the
//!   replica counters, computed from plain inputs (the pool's Machines are the
//!   `capi_machinepool_api::views::Machine` objects a controller lists); [`apply`] writes them
//!   into a pool.
//! * [`upgrade`]: one verdict a client can gate an upgrade on (cluster-api#10059),
//!   [`upgrade_verdict`].
//! * [`typed`]: both from typed objects: a MachinePool of either API version
//!   ([`apply_to`], [`verdict_of`]) and the referenced objects as any typed
//!   `kube_core::Resource` ([`ExternalObject`]).
//!
//! The generic condition utilities (set, mirror, aggregate, summary, `Paused`) these are built
//! on are in `capi-conditions`, which knows nothing of MachinePool status. Time is always
//! passed in (`now`), so results are deterministic.
#![deny(missing_docs)]

pub mod conditions;
mod counters;
mod inputs;
pub mod typed;
pub mod upgrade;
mod versions;

pub use conditions::{
    External, Inputs, MachinePoolMachines, ReplicaCounters, VersionTally, apply, replica_counters,
    runs_version, version_tally,
};
pub use typed::{
    AnyMachinePool, ExternalObject, TypedInputError, apply_to, verdict_of, verdict_with_nodes_of,
};
pub use upgrade::{Counter, Pending, UpgradeVerdict, upgrade_verdict, upgrade_verdict_with_nodes};
