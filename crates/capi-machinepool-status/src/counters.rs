//! The new-semantic replica counters (`readyReplicas`, `availableReplicas`,
//! `upToDateReplicas`) and the pool's Machines as the conditions see them.

use capi_conditions::types::{FALSE, condition as ct, reason};
use capi_conditions::{is_false, is_true, new_condition};
use capi_machinepool_api::v1beta2::MachinePool;
use capi_machinepool_api::views::Machine;

use crate::inputs::{Inputs, MachinePoolMachines};
use crate::versions::{runs_version, version_tally};

/// The new-semantic replica counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplicaCounters {
    /// Machines (or replicas) ready.
    pub ready_replicas: Option<i32>,
    /// Machines (or replicas) available.
    pub available_replicas: Option<i32>,
    /// Machines (or replicas) up to date.
    pub up_to_date_replicas: Option<i32>,
}

/// The pool's Machines as the conditions see them: a Machine whose `spec.version` (the
/// kubelet version it was created with) is not the template version is not up to date, even
/// when its own `UpToDate` says True (upstream's `setMachinesUptoDate` sets True on every
/// Machine not being deleted). Sorted by name.
pub(crate) fn observed_machines(mp: &MachinePool, machines: &[Machine]) -> Vec<Machine> {
    let desired = &mp.spec.template.spec.version;
    let mut out: Vec<Machine> = machines
        .iter()
        .map(|m| {
            let mut m = m.clone();
            let stale = !desired.is_empty()
                && !m.spec.version.is_empty()
                && !runs_version(desired, &m.spec.version);
            if stale && !is_false(&m, ct::UP_TO_DATE) {
                let c = new_condition(
                    ct::UP_TO_DATE,
                    FALSE,
                    reason::NOT_UP_TO_DATE,
                    &format!("* Version {desired} required"),
                );
                let list = m.status.conditions.get_or_insert_with(Vec::new);
                list.retain(|c| c.type_ != ct::UP_TO_DATE);
                list.push(c);
            }
            m
        })
        .collect();
    out.sort_by(|a, b| machine_name(a).cmp(machine_name(b)));
    out
}

pub(crate) fn machine_name(m: &Machine) -> &str {
    m.metadata.name.as_deref().unwrap_or_default()
}

fn count_true(machines: &[Machine], type_: &str) -> i32 {
    i32::try_from(machines.iter().filter(|m| is_true(*m, type_)).count()).unwrap_or(i32::MAX)
}

/// Replica counters.
///
/// * MachinePool Machines supported: the number of Machines with Ready / Available / UpToDate
///   True (as upstream's `setReplicas`, `machinepool_controller_status.go`), a Machine on
///   another version than the template counting as not up to date.
/// * Not supported: ready = available = `status.replicas` (upstream), and up-to-date = the
///   replicas `status.versions` reports at the template version (upstream uses
///   `spec.replicas`, which claims every replica up to date during an upgrade:
///   cluster-api#10059).
/// * Unknown: ready and available keep their current values (PR #13929), up-to-date from
///   `status.versions` as above.
#[must_use]
pub fn replica_counters(mp: &MachinePool, inputs: &Inputs<'_>) -> ReplicaCounters {
    match inputs.machines {
        MachinePoolMachines::Supported(machines) => {
            let machines = observed_machines(mp, machines);
            ReplicaCounters {
                ready_replicas: Some(count_true(&machines, ct::READY)),
                available_replicas: Some(count_true(&machines, ct::AVAILABLE)),
                up_to_date_replicas: Some(count_true(&machines, ct::UP_TO_DATE)),
            }
        }
        MachinePoolMachines::NotSupported => ReplicaCounters {
            ready_replicas: mp.status.replicas,
            available_replicas: mp.status.replicas,
            up_to_date_replicas: Some(version_tally(mp).at_template),
        },
        MachinePoolMachines::Unknown => ReplicaCounters {
            ready_replicas: mp.status.ready_replicas,
            available_replicas: mp.status.available_replicas,
            up_to_date_replicas: Some(version_tally(mp).at_template),
        },
    }
}
