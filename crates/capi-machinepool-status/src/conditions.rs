//! MachinePool v1beta2 conditions and replica counters, computed from plain inputs.
//!
//! Upstream's MachinePool controller still sets only `Paused`. This module computes every
//! condition of the improve-status proposal with the reasons and messages upstream uses for
//! MachineDeployment/MachineSet/Machine; `docs/conditions.md` lists every rule, and its section
//! "Upgrade progress" the states of a pool with and without MachinePool Machines.
//!
//! The pool's Machines are the [`views::Machine`](capi_machinepool_api::views::Machine) objects
//! a controller lists with `kube::Api::<views::Machine>`; they are passed as they are.

//!
//! The inputs ([`Inputs`]), the replica counters ([`replica_counters`]) and the version
//! matching ([`runs_version`], [`version_tally`]) the conditions use are re-exported here.

use capi_contract::fields::Field;
use capi_contract::reader::{InfraMachinePoolReader, ReadResultExt};
use capi_machinepool_api::v1beta2::MachinePool;
use capi_machinepool_api::views::Machine;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use kube_core::DynamicObject;

use capi_conditions::aggregate::{AggregateOptions, aggregate};
use capi_conditions::merge::Reasons;
use capi_conditions::mirror::{Fallback, MirrorOptions, mirror};
use capi_conditions::types::{FALSE, TRUE, UNKNOWN, condition as ct, reason};
use capi_conditions::unstructured::UnstructuredConditions;
use capi_conditions::{ConditionSource, bool_to_status, get, new_condition, set};

pub use crate::counters::{ReplicaCounters, replica_counters};
use crate::counters::{machine_name, observed_machines};
pub use crate::inputs::{External, Inputs, MachinePoolMachines};
pub use crate::versions::{VersionTally, runs_version, version_tally};

fn deleting(mp: &MachinePool) -> bool {
    mp.metadata.deletion_timestamp.is_some()
}

fn internal_error(type_: &str) -> Condition {
    new_condition(
        type_,
        UNKNOWN,
        reason::INTERNAL_ERROR,
        "Please check controller logs for errors",
    )
}

fn mirror_external(
    object: &DynamicObject,
    target: &str,
    ok: bool,
    kind: &str,
    field: &str,
) -> Condition {
    let source = match UnstructuredConditions::from_dynamic(object) {
        Ok(s) => s,
        Err(e) => {
            return new_condition(
                target,
                UNKNOWN,
                reason::INVALID_CONDITION_REPORTED,
                &e.to_string(),
            );
        }
    };
    let message = if ok {
        String::new()
    } else {
        format!("{kind} {field} is false")
    };
    let fallback = Fallback {
        status: bool_to_status(ok).into(),
        reason: if ok { reason::READY } else { reason::NOT_READY }.into(),
        message,
    };
    let mut c = mirror(
        &source,
        ct::READY,
        &MirrorOptions {
            target_type: Some(target.into()),
            fallback: Some(fallback),
        },
    );
    if c.reason == reason::NO_REASON_REPORTED && c.status == TRUE {
        reason::READY.clone_into(&mut c.reason);
    }
    c
}

/// `BootstrapConfigReady`.
#[must_use]
pub fn bootstrap_config_ready(mp: &MachinePool, inputs: &Inputs<'_>) -> Condition {
    let t = ct::BOOTSTRAP_CONFIG_READY;
    let config_ref = &mp.spec.template.spec.bootstrap.config_ref;
    if !config_ref.is_defined() {
        return new_condition(t, TRUE, reason::DATA_SECRET_PROVIDED, "");
    }
    let created = mp
        .status
        .initialization
        .bootstrap_data_secret_created
        .unwrap_or(false);
    let kind = &config_ref.kind;
    match inputs.bootstrap {
        External::Found(obj) => mirror_external(
            obj,
            t,
            created,
            kind,
            "status.initialization.dataSecretCreated",
        ),
        External::ReadError => internal_error(t),
        External::NotFound if deleting(mp) && created => new_condition(
            t,
            FALSE,
            reason::BOOTSTRAP_CONFIG_DELETED,
            &format!("{kind} has been deleted"),
        ),
        External::NotFound => new_condition(
            t,
            FALSE,
            reason::BOOTSTRAP_CONFIG_DOES_NOT_EXIST,
            &format!("{kind} does not exist"),
        ),
    }
}

/// `InfrastructureReady`: mirror of the InfraMachinePool's `Ready`, falling back to whether it
/// reports provisioning complete (read with the contract rules of its contract version).
#[must_use]
pub fn infrastructure_ready(mp: &MachinePool, inputs: &Inputs<'_>) -> Condition {
    let t = ct::INFRASTRUCTURE_READY;
    let kind = &mp.spec.template.spec.infrastructure_ref.kind;
    let was_provisioned = mp
        .status
        .initialization
        .infrastructure_provisioned
        .unwrap_or(false);
    match inputs.infra {
        External::Found(obj) => {
            let reader = InfraMachinePoolReader::new(&obj.data, inputs.infra_contract);
            let provisioned = match reader.provisioned().or_missing(false) {
                Ok(p) => p,
                Err(e) => {
                    return new_condition(
                        t,
                        UNKNOWN,
                        reason::INVALID_CONDITION_REPORTED,
                        &e.to_string(),
                    );
                }
            };
            mirror_external(
                obj,
                t,
                provisioned,
                kind,
                &reader
                    .provisioned_field()
                    .map(Field::dotted)
                    .unwrap_or_default(),
            )
        }
        External::ReadError => internal_error(t),
        External::NotFound if deleting(mp) && was_provisioned => new_condition(
            t,
            FALSE,
            reason::INFRASTRUCTURE_DELETED,
            &format!("{kind} has been deleted"),
        ),
        External::NotFound if deleting(mp) => new_condition(
            t,
            FALSE,
            reason::INFRASTRUCTURE_DOES_NOT_EXIST,
            &format!("{kind} does not exist"),
        ),
        External::NotFound if was_provisioned => new_condition(
            t,
            FALSE,
            reason::INFRASTRUCTURE_DELETED,
            &format!("{kind} has been deleted while the MachinePool still exists"),
        ),
        External::NotFound => new_condition(
            t,
            FALSE,
            reason::INFRASTRUCTURE_DOES_NOT_EXIST,
            &format!("{kind} does not exist"),
        ),
    }
}

/// `Available`: infrastructure ready and at least `spec.replicas` available replicas.
#[must_use]
pub fn available(
    mp: &MachinePool,
    counters: &ReplicaCounters,
    infrastructure_ready: &Condition,
) -> Condition {
    let t = ct::AVAILABLE;
    let Some(desired) = mp.spec.replicas else {
        return new_condition(
            t,
            UNKNOWN,
            reason::WAITING_FOR_REPLICAS_SET,
            "Waiting for spec.replicas set",
        );
    };
    let Some(available) = counters.available_replicas else {
        return new_condition(
            t,
            UNKNOWN,
            reason::WAITING_FOR_AVAILABLE_REPLICAS_SET,
            "Waiting for status.availableReplicas set",
        );
    };
    if deleting(mp) {
        return new_condition(t, FALSE, reason::NOT_AVAILABLE, "Deletion in progress");
    }
    if infrastructure_ready.status != TRUE {
        let detail = if infrastructure_ready.message.is_empty() {
            &infrastructure_ready.reason
        } else {
            &infrastructure_ready.message
        };
        return new_condition(
            t,
            FALSE,
            reason::NOT_AVAILABLE,
            &format!(
                "* InfrastructureReady:{}",
                capi_conditions::merge::indent_if_multiline(detail)
            ),
        );
    }
    if available >= desired {
        new_condition(t, TRUE, reason::AVAILABLE, "")
    } else {
        new_condition(
            t,
            FALSE,
            reason::NOT_AVAILABLE,
            &format!("{available} available replicas, at least {desired} required"),
        )
    }
}

fn sorted(machines: &[Machine]) -> Vec<&Machine> {
    let mut v: Vec<&Machine> = machines.iter().collect();
    v.sort_by(|a, b| machine_name(a).cmp(machine_name(b)));
    v
}

fn aggregate_machines(
    machines: &[&Machine],
    source: &str,
    target: &str,
    reasons: Reasons,
) -> Condition {
    let objs: Vec<&dyn ConditionSource> = machines
        .iter()
        .map(|m| *m as &dyn ConditionSource)
        .collect();
    let opts = AggregateOptions {
        target_type: Some(target.into()),
        reasons: Some(reasons),
        ..Default::default()
    };
    aggregate(&objs, source, &opts).unwrap_or_else(|_| internal_error(target))
}

/// `status.replicas`, 0 when unset.
fn current_replicas(mp: &MachinePool) -> i32 {
    mp.status.replicas.unwrap_or(0)
}

/// No Machine to aggregate: True/`NoReplicas` only when the pool has no replica; otherwise
/// Unknown with `unknown_reason` and `message` (replicas exist, their state is not known).
fn nothing_to_aggregate(
    mp: &MachinePool,
    type_: &str,
    unknown_reason: &str,
    message: &str,
) -> Condition {
    if current_replicas(mp) == 0 {
        new_condition(type_, TRUE, reason::NO_REPLICAS, "")
    } else {
        new_condition(type_, UNKNOWN, unknown_reason, message)
    }
}

/// The message of a pool whose MachinePool Machines support is unknown.
fn support_unknown_message(mp: &MachinePool) -> String {
    format!(
        "Cannot tell whether {} provides MachinePool Machines",
        mp.spec.template.spec.infrastructure_ref.kind
    )
}

/// Readiness of replicas without Machines: the Nodes upstream matched and found Ready
/// (`status.deprecated.v1beta1.readyReplicas`, set by `getNodeReferences` in
/// `machinepool_controller_noderef.go`).
fn node_ready_replicas(mp: &MachinePool) -> Option<i32> {
    mp.status
        .deprecated
        .as_ref()
        .and_then(|d| d.v1beta1.as_ref())
        .map(|v| v.ready_replicas)
}

/// `MachinesReady`: aggregate of the Machines' `Ready`. Without MachinePool Machines, the
/// Nodes' readiness upstream counts; never `NoReplicas` while `status.replicas` > 0.
#[must_use]
pub fn machines_ready(mp: &MachinePool, inputs: &Inputs<'_>) -> Condition {
    let t = ct::MACHINES_READY;
    let replicas = current_replicas(mp);
    match inputs.machines {
        MachinePoolMachines::Supported([]) => nothing_to_aggregate(
            mp,
            t,
            reason::READY_UNKNOWN,
            &format!("{replicas} replicas have no Machine yet"),
        ),
        MachinePoolMachines::Supported(machines) => aggregate_machines(
            &sorted(machines),
            ct::READY,
            t,
            Reasons::new(reason::NOT_READY, reason::READY_UNKNOWN, reason::READY),
        ),
        MachinePoolMachines::Unknown => {
            nothing_to_aggregate(mp, t, reason::READY_UNKNOWN, &support_unknown_message(mp))
        }
        MachinePoolMachines::NotSupported if replicas == 0 => {
            new_condition(t, TRUE, reason::NO_REPLICAS, "")
        }
        MachinePoolMachines::NotSupported => match node_ready_replicas(mp) {
            None => new_condition(
                t,
                UNKNOWN,
                reason::READY_UNKNOWN,
                "No Node readiness reported yet (MachinePool Machines are not used by this infrastructure provider)",
            ),
            Some(ready) if ready >= replicas => new_condition(t, TRUE, reason::READY, ""),
            Some(ready) => new_condition(
                t,
                FALSE,
                reason::NOT_READY,
                &format!("{ready} of {replicas} replicas have a Ready Node"),
            ),
        },
    }
}

/// `MachinesUpToDate`. With MachinePool Machines: aggregate of `UpToDate` over Machines that
/// report it or are older than 10s (a Machine on another version than the template is not up
/// to date). Without: `status.versions` against the template version, the same data as
/// [`rolling_out`] and the up-to-date counter.
#[must_use]
pub fn machines_up_to_date(mp: &MachinePool, inputs: &Inputs<'_>) -> Condition {
    let t = ct::MACHINES_UP_TO_DATE;
    match inputs.machines {
        MachinePoolMachines::Supported(machines) => {
            machines_up_to_date_aggregate(mp, machines, inputs.now)
        }
        MachinePoolMachines::NotSupported | MachinePoolMachines::Unknown => {
            up_to_date_from_versions(mp, t)
        }
    }
}

fn machines_up_to_date_aggregate(mp: &MachinePool, machines: &[Machine], now: &Time) -> Condition {
    let t = ct::MACHINES_UP_TO_DATE;
    let now = now.0.as_second();
    let observed = observed_machines(mp, machines);
    let relevant: Vec<&Machine> = observed
        .iter()
        .filter(|m| {
            get(*m, ct::UP_TO_DATE).is_some()
                || m.metadata
                    .creation_timestamp
                    .as_ref()
                    .is_some_and(|c| now - c.0.as_second() > 10)
        })
        .collect();
    if relevant.is_empty() {
        return nothing_to_aggregate(
            mp,
            t,
            reason::UP_TO_DATE_UNKNOWN,
            "Waiting for Machines to report UpToDate",
        );
    }
    aggregate_machines(
        &relevant,
        ct::UP_TO_DATE,
        t,
        Reasons::new(
            reason::NOT_UP_TO_DATE,
            reason::UP_TO_DATE_UNKNOWN,
            reason::UP_TO_DATE,
        ),
    )
}

/// `MachinesUpToDate` of a pool without (known) Machines, from `status.versions`.
fn up_to_date_from_versions(mp: &MachinePool, t: &str) -> Condition {
    let replicas = current_replicas(mp);
    if replicas == 0 {
        return new_condition(t, TRUE, reason::NO_REPLICAS, "");
    }
    let desired = &mp.spec.template.spec.version;
    let tally = version_tally(mp);
    let behind = tally.not_at_template();
    if behind > 0 {
        let on: Vec<String> = tally
            .behind
            .iter()
            .map(|(v, n)| format!("{n} on {v}"))
            .collect();
        return new_condition(
            t,
            FALSE,
            reason::NOT_UP_TO_DATE,
            &format!(
                "* Version {desired} required, {behind} of {replicas} replicas not at it ({})",
                on.join(", ")
            ),
        );
    }
    if tally.at_template < replicas {
        return new_condition(
            t,
            UNKNOWN,
            reason::UP_TO_DATE_UNKNOWN,
            &format!(
                "status.versions reports {} of {replicas} replicas at version {desired}, the others report no version yet",
                tally.at_template
            ),
        );
    }
    new_condition(t, TRUE, reason::UP_TO_DATE, "")
}

/// `RollingOut`: True while replicas are not up to date. With MachinePool Machines: Machines
/// whose `UpToDate` is False or whose `spec.version` is not the template version (their
/// messages listed); without: replicas in `status.versions` on another version than
/// `spec.template.spec.version`.
#[must_use]
pub fn rolling_out(mp: &MachinePool, inputs: &Inputs<'_>) -> Condition {
    let t = ct::ROLLING_OUT;
    let (count, mut lines): (i64, Vec<String>) = match inputs.machines {
        MachinePoolMachines::Supported(machines) => stale_machines(mp, machines),
        MachinePoolMachines::NotSupported | MachinePoolMachines::Unknown => {
            let n = i64::from(version_tally(mp).not_at_template());
            let desired = &mp.spec.template.spec.version;
            (
                n,
                if n > 0 {
                    vec![format!("* Version {desired} required")]
                } else {
                    Vec::new()
                },
            )
        }
    };
    if count == 0 {
        return new_condition(t, FALSE, reason::NOT_ROLLING_OUT, "");
    }
    lines.sort_by_key(|l| !l.starts_with("* Version"));
    let mut message = format!("Rolling out {count} not up-to-date replicas");
    if !lines.is_empty() {
        message.push('\n');
        message.push_str(&lines.join("\n"));
    }
    new_condition(t, TRUE, reason::ROLLING_OUT, &message)
}

/// Machines not up to date, and the distinct lines of their `UpToDate` messages.
fn stale_machines(mp: &MachinePool, machines: &[Machine]) -> (i64, Vec<String>) {
    let observed = observed_machines(mp, machines);
    let stale: Vec<&Machine> = observed
        .iter()
        .filter(|m| capi_conditions::is_false(*m, ct::UP_TO_DATE))
        .collect();
    let mut lines: Vec<String> = stale
        .iter()
        .filter_map(|m| get(*m, ct::UP_TO_DATE))
        .flat_map(|c| c.message.lines().map(str::to_owned).collect::<Vec<_>>())
        .filter(|l| !l.is_empty())
        .collect();
    lines.sort();
    lines.dedup();
    (i64::try_from(stale.len()).unwrap_or(i64::MAX), lines)
}

fn missing_refs_fragment(mp: &MachinePool, inputs: &Inputs<'_>) -> String {
    let spec = &mp.spec.template.spec;
    let mut missing = Vec::new();
    if spec.bootstrap.config_ref.is_defined() && inputs.bootstrap == External::NotFound {
        missing.push(spec.bootstrap.config_ref.kind.as_str());
    }
    if inputs.infra == External::NotFound {
        missing.push(spec.infrastructure_ref.kind.as_str());
    }
    match missing.as_slice() {
        [] => String::new(),
        [one] => format!("because {one} does not exist"),
        [a, b, ..] => format!("because {a} and {b} do not exist"),
    }
}

/// Desired replicas (0 while deleting) and current ones, or the Unknown condition of type `t`
/// while `spec.replicas` is unset.
fn desired_and_current(mp: &MachinePool, t: &str) -> Result<(i32, i32), Box<Condition>> {
    let Some(replicas) = mp.spec.replicas else {
        return Err(Box::new(new_condition(
            t,
            UNKNOWN,
            reason::WAITING_FOR_REPLICAS_SET,
            "Waiting for spec.replicas set",
        )));
    };
    let desired = if deleting(mp) { 0 } else { replicas };
    Ok((desired, mp.status.replicas.unwrap_or(0)))
}

/// `a, b, c` or `a, b, c, ... (k more)`.
fn names_with_more(names: &[&str]) -> String {
    let mut list = names.iter().take(3).copied().collect::<Vec<_>>().join(", ");
    if names.len() > 3 {
        list.push_str(&format!(", ... ({} more)", names.len() - 3));
    }
    list
}

/// `ScalingUp`: True while `status.replicas < spec.replicas`.
#[must_use]
pub fn scaling_up(mp: &MachinePool, inputs: &Inputs<'_>) -> Condition {
    let t = ct::SCALING_UP;
    let (desired, current) = match desired_and_current(mp, t) {
        Ok(v) => v,
        Err(waiting) => return *waiting,
    };
    let fragment = missing_refs_fragment(mp, inputs);
    if current >= desired {
        let message = if !deleting(mp) && !fragment.is_empty() {
            format!("Scaling up would be blocked {fragment}")
        } else {
            String::new()
        };
        return new_condition(t, FALSE, reason::NOT_SCALING_UP, &message);
    }
    let mut message = format!("Scaling up from {current} to {desired} replicas");
    if !fragment.is_empty() {
        message.push_str(&format!(" is blocked {fragment}"));
    }
    new_condition(t, TRUE, reason::SCALING_UP, &message)
}

fn stale_deleting_machines(inputs: &Inputs<'_>) -> Option<String> {
    let now = inputs.now.0.as_second();
    let mut names: Vec<&str> = inputs
        .machines
        .machines()?
        .iter()
        .filter(|m| {
            m.metadata
                .deletion_timestamp
                .as_ref()
                .is_some_and(|d| now - d.0.as_second() > 15 * 60)
        })
        .map(machine_name)
        .collect();
    if names.is_empty() {
        return None;
    }
    names.sort_unstable();
    let (noun, verb) = if names.len() == 1 {
        ("Machine", "is")
    } else {
        ("Machines", "are")
    };
    Some(format!(
        "{noun} {} {verb} in deletion since more than 15m",
        names_with_more(&names)
    ))
}

/// `ScalingDown`: True while `status.replicas > spec.replicas` (desired is 0 when deleting).
#[must_use]
pub fn scaling_down(mp: &MachinePool, inputs: &Inputs<'_>) -> Condition {
    let t = ct::SCALING_DOWN;
    let (desired, current) = match desired_and_current(mp, t) {
        Ok(v) => v,
        Err(waiting) => return *waiting,
    };
    if current <= desired {
        return new_condition(t, FALSE, reason::NOT_SCALING_DOWN, "");
    }
    let mut message = format!("Scaling down from {current} to {desired} replicas");
    if let Some(stale) = stale_deleting_machines(inputs) {
        message.push_str(&format!("\n* {stale}"));
    }
    new_condition(t, TRUE, reason::SCALING_DOWN, &message)
}

/// `Remediating`: Machines whose health check failed and whose owner remediation is pending.
#[must_use]
pub fn remediating(mp: &MachinePool, inputs: &Inputs<'_>) -> Condition {
    let t = ct::REMEDIATING;
    let machines = match inputs.machines {
        MachinePoolMachines::Supported(machines) => machines,
        MachinePoolMachines::NotSupported => {
            return new_condition(
                t,
                FALSE,
                reason::NOT_REMEDIATING,
                "MachinePool Machines are not used by this infrastructure provider",
            );
        }
        MachinePoolMachines::Unknown => {
            return new_condition(
                t,
                FALSE,
                reason::NOT_REMEDIATING,
                &support_unknown_message(mp),
            );
        }
    };
    let machines = sorted(machines);
    let unhealthy: Vec<&Machine> = machines
        .iter()
        .copied()
        .filter(|m| capi_conditions::is_false(*m, ct::HEALTH_CHECK_SUCCEEDED))
        .collect();
    let to_remediate: Vec<&Machine> = unhealthy
        .iter()
        .copied()
        .filter(|m| capi_conditions::is_false(*m, ct::OWNER_REMEDIATED))
        .collect();
    if to_remediate.is_empty() {
        let message = match unhealthy.as_slice() {
            [] => String::new(),
            [one] => format!(
                "Machine {} is not healthy (not to be remediated by MachinePool)",
                machine_name(one)
            ),
            many => {
                let names: Vec<&str> = many.iter().map(|m| machine_name(m)).collect();
                let list = names_with_more(&names);
                format!("Machines {list} are not healthy (not to be remediated by MachinePool)")
            }
        };
        return new_condition(t, FALSE, reason::NOT_REMEDIATING, &message);
    }
    let aggregated = aggregate_machines(&to_remediate, ct::OWNER_REMEDIATED, t, Reasons::default());
    new_condition(t, TRUE, reason::REMEDIATING, &aggregated.message)
}

/// `Deleting`: what deletion is waiting for.
#[must_use]
pub fn deleting_condition(mp: &MachinePool, inputs: &Inputs<'_>) -> Condition {
    let t = ct::DELETING;
    if !deleting(mp) {
        return new_condition(t, FALSE, reason::NOT_DELETING, "");
    }
    let spec = &mp.spec.template.spec;
    let message = match inputs.machines.machines().map_or(0, <[Machine]>::len) {
        1 => "Deleting 1 Machine".to_owned(),
        n if n > 1 => format!("Deleting {n} Machines"),
        _ if matches!(inputs.infra, External::Found(_)) => {
            format!("Waiting for {} to be deleted", spec.infrastructure_ref.kind)
        }
        _ if matches!(inputs.bootstrap, External::Found(_)) => format!(
            "Waiting for {} to be deleted",
            spec.bootstrap.config_ref.kind
        ),
        _ => "Deletion completed".to_owned(),
    };
    let mut message = message;
    if let Some(stale) = stale_deleting_machines(inputs) {
        message.push_str(&format!("\n* {stale}"));
    }
    new_condition(t, TRUE, reason::DELETING, &message)
}

/// `Paused`: the Cluster is paused or the MachinePool has the `cluster.x-k8s.io/paused`
/// annotation ([`capi_conditions::paused::paused_condition`]).
#[must_use]
pub fn paused(mp: &MachinePool, inputs: &Inputs<'_>) -> Condition {
    capi_conditions::paused::paused_condition(mp, inputs.cluster_paused)
}

/// Every MachinePool v1beta2 condition, in the default order.
#[must_use]
pub fn conditions(mp: &MachinePool, inputs: &Inputs<'_>) -> Vec<Condition> {
    let counters = replica_counters(mp, inputs);
    let infra = infrastructure_ready(mp, inputs);
    let mut all = vec![
        available(mp, &counters, &infra),
        bootstrap_config_ready(mp, inputs),
        infra,
        machines_ready(mp, inputs),
        machines_up_to_date(mp, inputs),
        rolling_out(mp, inputs),
        scaling_up(mp, inputs),
        scaling_down(mp, inputs),
        remediating(mp, inputs),
        deleting_condition(mp, inputs),
        paused(mp, inputs),
    ];
    capi_conditions::order::sort(&mut all);
    all
}

/// Writes the conditions and replica counters into a MachinePool's status (with [`set`]'s
/// rules for transition times and observedGeneration); returns whether anything changed.
/// Everything is computed from the pool as it is before the call.
pub fn apply(target: &mut MachinePool, inputs: &Inputs<'_>) -> bool {
    let counters = replica_counters(target, inputs);
    let computed = conditions(target, inputs);
    let mut changed = false;
    for c in computed {
        changed |= set(target, c, inputs.now);
    }
    let status = &mut target.status;
    let before = (
        status.ready_replicas,
        status.available_replicas,
        status.up_to_date_replicas,
    );
    status.ready_replicas = counters.ready_replicas;
    status.available_replicas = counters.available_replicas;
    status.up_to_date_replicas = counters.up_to_date_replicas;
    changed
        | (before
            != (
                status.ready_replicas,
                status.available_replicas,
                status.up_to_date_replicas,
            ))
}
