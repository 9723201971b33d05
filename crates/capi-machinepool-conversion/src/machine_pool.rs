//! MachinePool v1beta1 (spoke) <-> v1beta2 (hub), field by field as upstream converts.
//!
//! See `docs/conversion.md` for the full field map and what is (and is not) recovered.

use capi_machinepool_api::k8s_openapi::api::core::v1::ObjectReference;
use capi_machinepool_api::{Duration, v1beta1, v1beta2};

use crate::conversion_data;
use crate::{ApiVersionResolver, ConversionError, Hub, Spoke};

impl Hub for v1beta2::MachinePool {}

impl Spoke<v1beta2::MachinePool> for v1beta1::MachinePool {
    fn to_hub(
        self,
        _resolver: &dyn ApiVersionResolver,
    ) -> Result<v1beta2::MachinePool, ConversionError> {
        to_hub(self)
    }

    fn from_hub(
        hub: v1beta2::MachinePool,
        resolver: &dyn ApiVersionResolver,
    ) -> Result<Self, ConversionError> {
        from_owned_hub(hub, resolver)
    }
}

/// Go's `ConvertToSeconds`: whole seconds truncated toward zero, capped to the int32 range.
#[must_use]
pub fn duration_to_seconds(duration: Option<Duration>) -> Option<i32> {
    duration.map(|d| {
        let secs = d.as_secs_f64().trunc();
        if secs > f64::from(i32::MAX) {
            i32::MAX
        } else if secs < f64::from(i32::MIN) {
            // Upstream overflows here (Go float->int32 is implementation defined); we clamp.
            i32::MIN
        } else {
            secs as i32
        }
    })
}

/// Go's `ConvertFromSeconds`.
#[must_use]
pub fn seconds_to_duration(seconds: Option<i32>) -> Option<Duration> {
    seconds.map(|s| Duration::from_secs(i64::from(s)))
}

/// Moved to [`crate::recover_bool`] (beside the other restore helpers of
/// [`crate::LosslessSpoke`]).
#[deprecated(
    since = "0.1.0",
    note = "use capi_machinepool_conversion::recover_bool"
)]
#[must_use]
pub fn recover_bool(value: bool, restored: Option<Option<bool>>) -> Option<bool> {
    crate::recover_bool(value, restored)
}

/// The group of a GroupVersion string (`apps/v1` -> `apps`, `v1` -> ``).
///
/// # Errors
/// When the string has more than one `/`.
pub fn group_of_api_version(api_version: &str) -> Result<&str, ConversionError> {
    capi_versions::GroupVersion::parse(api_version)
        .map(|gv| gv.group)
        .map_err(|e| ConversionError::InvalidGroupVersion(e.0))
}

/// A v1beta1 reference as a v1beta2 one: its `kind` and `name` moved, its group read from
/// `apiVersion`.
fn to_contract_ref(
    r: ObjectReference,
) -> Result<v1beta2::ContractVersionedObjectReference, ConversionError> {
    let group = group_of_api_version(r.api_version.as_deref().unwrap_or_default())?;
    Ok(v1beta2::ContractVersionedObjectReference {
        api_group: group.to_owned(),
        kind: r.kind.unwrap_or_default(),
        name: r.name.unwrap_or_default(),
    })
}

/// `None` for the empty string (Go's `omitempty` string that v1beta1 holds as a pointer);
/// an owned `String` is moved, a `&str` copied.
fn non_empty<S: AsRef<str> + Into<String>>(s: S) -> Option<String> {
    (!s.as_ref().is_empty()).then(|| s.into())
}

fn to_object_ref(
    r: &v1beta2::ContractVersionedObjectReference,
    namespace: Option<&str>,
    resolver: &dyn ApiVersionResolver,
) -> Result<ObjectReference, ConversionError> {
    let api_version = resolver.api_version(&r.api_group, &r.kind)?;
    Ok(ObjectReference {
        api_version: non_empty(api_version),
        kind: non_empty(&r.kind),
        name: non_empty(&r.name),
        namespace: namespace.and_then(non_empty),
        ..ObjectReference::default()
    })
}

/// v1beta1 -> v1beta2 (spoke to hub), restoring from the conversion-data annotation.
///
/// # Errors
/// A reference with an invalid apiVersion, or an undecodable conversion-data annotation.
pub fn to_hub(src: v1beta1::MachinePool) -> Result<v1beta2::MachinePool, ConversionError> {
    let v1beta1::MachinePool {
        mut metadata,
        spec,
        status,
    } = src;
    let restored: Option<v1beta2::MachinePool> = conversion_data::unmarshal(&mut metadata)?;
    let template_spec = machine_spec_to_hub(spec.template.spec, spec.min_ready_seconds)?;
    let mut hub_status = status_to_hub(status, restored.as_ref());
    if let Some(restored) = &restored {
        recover_absent_status(&mut hub_status, &restored.status);
    }
    Ok(v1beta2::MachinePool {
        metadata,
        spec: v1beta2::MachinePoolSpec {
            cluster_name: spec.cluster_name,
            replicas: spec.replicas,
            template: v1beta2::MachineTemplateSpec {
                metadata: spec.template.metadata,
                spec: template_spec,
            },
            provider_id_list: spec.provider_id_list,
            failure_domains: spec.failure_domains,
        },
        status: hub_status,
    })
}

/// The Machine template spec, field by field (`minReadySeconds` moves into it).
fn machine_spec_to_hub(
    machine: v1beta1::MachineSpec,
    min_ready_seconds: Option<i32>,
) -> Result<v1beta2::MachineSpec, ConversionError> {
    let config_ref = machine
        .bootstrap
        .config_ref
        .map(to_contract_ref)
        .transpose()?
        .unwrap_or_default();
    let infrastructure_ref = to_contract_ref(machine.infrastructure_ref)?;
    Ok(v1beta2::MachineSpec {
        cluster_name: machine.cluster_name,
        bootstrap: v1beta2::Bootstrap {
            config_ref,
            data_secret_name: machine.bootstrap.data_secret_name,
        },
        infrastructure_ref,
        version: machine.version.unwrap_or_default(),
        provider_id: machine.provider_id.unwrap_or_default(),
        failure_domain: machine.failure_domain.unwrap_or_default(),
        min_ready_seconds,
        readiness_gates: machine.readiness_gates,
        deletion: v1beta2::MachineDeletionSpec {
            node_drain_timeout_seconds: duration_to_seconds(machine.node_drain_timeout),
            node_volume_detach_timeout_seconds: duration_to_seconds(
                machine.node_volume_detach_timeout,
            ),
            node_deletion_timeout_seconds: duration_to_seconds(machine.node_deletion_timeout),
        },
        taints: machine.taints,
    })
}

/// The status, field by field: the v1beta2 block becomes the status, the legacy fields move
/// under `deprecated.v1beta1`, the ready booleans become `initialization` (recovered from
/// `restored`, the hub of the conversion-data annotation).
fn status_to_hub(
    status: v1beta1::MachinePoolStatus,
    restored: Option<&v1beta2::MachinePool>,
) -> v1beta2::MachinePoolStatus {
    let restored_init = restored.map(|r| &r.status.initialization);
    let initialization = v1beta2::MachinePoolInitializationStatus {
        infrastructure_provisioned: crate::recover_bool(
            status.infrastructure_ready,
            restored_init.map(|i| i.infrastructure_provisioned),
        ),
        bootstrap_data_secret_created: crate::recover_bool(
            status.bootstrap_ready,
            restored_init.map(|i| i.bootstrap_data_secret_created),
        ),
    };
    let v1beta2_block = status.v1beta2.unwrap_or_default();
    v1beta2::MachinePoolStatus {
        conditions: v1beta2_block.conditions,
        initialization,
        node_refs: status.node_refs,
        replicas: Some(status.replicas),
        ready_replicas: v1beta2_block.ready_replicas,
        available_replicas: v1beta2_block.available_replicas,
        up_to_date_replicas: v1beta2_block.up_to_date_replicas,
        versions: status.versions,
        phase: status.phase,
        observed_generation: status.observed_generation,
        deprecated: Some(v1beta2::MachinePoolDeprecatedStatus {
            v1beta1: Some(v1beta2::MachinePoolV1Beta1DeprecatedStatus {
                conditions: status.conditions,
                failure_reason: status.failure_reason,
                failure_message: status.failure_message,
                ready_replicas: status.ready_replicas,
                available_replicas: status.available_replicas,
                unavailable_replicas: status.unavailable_replicas,
            }),
        }),
    }
}

/// Recovers, from the restored hub, the two hub fields that v1beta1 cannot tell apart from
/// their zero value: `status.replicas: None` (v1beta1 always has a number) and an absent
/// `status.deprecated` block (v1beta1 always has the legacy fields). Only done when the spoke
/// still holds the zero value, so a v1beta1 client's change always wins.
///
/// Upstream accepts these two losses; recovering them is our deliberate extension (see
/// `docs/conversion.md`) so that v1beta2 -> v1beta1 -> v1beta2 returns the original object.
fn recover_absent_status(
    hub: &mut v1beta2::MachinePoolStatus,
    restored: &v1beta2::MachinePoolStatus,
) {
    if hub.replicas == Some(0) && restored.replicas.is_none() {
        hub.replicas = None;
    }
    let legacy_is_zero = hub
        .deprecated
        .as_ref()
        .and_then(|d| d.v1beta1.as_ref())
        .is_none_or(|l| {
            let mut l = l.clone();
            // An empty legacy conditions list reads back as none.
            if l.conditions.as_ref().is_some_and(Vec::is_empty) {
                l.conditions = None;
            }
            l == v1beta2::MachinePoolV1Beta1DeprecatedStatus::default()
        });
    if legacy_is_zero {
        match &restored.deprecated {
            None => hub.deprecated = None,
            Some(d) if d.v1beta1.is_none() => {
                hub.deprecated = Some(v1beta2::MachinePoolDeprecatedStatus { v1beta1: None })
            }
            Some(_) => {}
        }
    }
}

/// v1beta2 -> v1beta1 (hub to spoke); the hub is stored in the conversion-data annotation.
///
/// Converts a copy of `hub`; [`Spoke::from_hub`] of `v1beta1::MachinePool` takes the hub by
/// value and converts it without copying.
///
/// # Errors
/// When a defined reference's apiVersion cannot be resolved.
pub fn from_hub(
    hub: &v1beta2::MachinePool,
    resolver: &dyn ApiVersionResolver,
) -> Result<v1beta1::MachinePool, ConversionError> {
    from_owned_hub(hub.clone(), resolver)
}

/// [`from_hub`] without a copy: the references are resolved first (an unresolvable one fails
/// before anything is printed, as when the annotation was printed last), the annotation is
/// printed from the hub with its metadata taken out, and every field then moves into the
/// spoke.
fn from_owned_hub(
    mut hub: v1beta2::MachinePool,
    resolver: &dyn ApiVersionResolver,
) -> Result<v1beta1::MachinePool, ConversionError> {
    let references = references_from_hub(
        &hub.spec.template.spec,
        hub.metadata.namespace.as_deref(),
        resolver,
    )?;
    let mut metadata = std::mem::take(&mut hub.metadata);
    conversion_data::store(&hub, &mut metadata)?;
    let v1beta2::MachinePoolSpec {
        cluster_name,
        replicas,
        template,
        provider_id_list,
        failure_domains,
    } = hub.spec;
    let min_ready_seconds = template.spec.min_ready_seconds;
    Ok(v1beta1::MachinePool {
        metadata,
        spec: v1beta1::MachinePoolSpec {
            cluster_name,
            replicas,
            template: v1beta1::MachineTemplateSpec {
                metadata: template.metadata,
                spec: machine_spec_from_hub(template.spec, references),
            },
            min_ready_seconds,
            provider_id_list,
            failure_domains,
        },
        status: status_from_hub(hub.status),
    })
}

/// The template's bootstrap config and infrastructure references as v1beta1 holds them; they
/// get their apiVersion from `resolver` (an undefined reference stays unset).
fn references_from_hub(
    machine: &v1beta2::MachineSpec,
    namespace: Option<&str>,
    resolver: &dyn ApiVersionResolver,
) -> Result<(Option<ObjectReference>, ObjectReference), ConversionError> {
    let config_ref = &machine.bootstrap.config_ref;
    let config_ref = if config_ref.is_defined() {
        Some(to_object_ref(config_ref, namespace, resolver)?)
    } else {
        None
    };
    let infrastructure_ref = if machine.infrastructure_ref.is_defined() {
        to_object_ref(&machine.infrastructure_ref, namespace, resolver)?
    } else {
        ObjectReference::default()
    };
    Ok((config_ref, infrastructure_ref))
}

/// The Machine template spec, field by field, with its references already resolved
/// ([`references_from_hub`]).
fn machine_spec_from_hub(
    machine: v1beta2::MachineSpec,
    (config_ref, infrastructure_ref): (Option<ObjectReference>, ObjectReference),
) -> v1beta1::MachineSpec {
    v1beta1::MachineSpec {
        cluster_name: machine.cluster_name,
        bootstrap: v1beta1::Bootstrap {
            config_ref,
            data_secret_name: machine.bootstrap.data_secret_name,
        },
        infrastructure_ref,
        version: non_empty(machine.version),
        provider_id: non_empty(machine.provider_id),
        failure_domain: non_empty(machine.failure_domain),
        readiness_gates: machine.readiness_gates,
        node_drain_timeout: seconds_to_duration(machine.deletion.node_drain_timeout_seconds),
        node_volume_detach_timeout: seconds_to_duration(
            machine.deletion.node_volume_detach_timeout_seconds,
        ),
        node_deletion_timeout: seconds_to_duration(machine.deletion.node_deletion_timeout_seconds),
        taints: machine.taints,
    }
}

/// The status, field by field: `deprecated.v1beta1` becomes the legacy fields, the v1beta2
/// fields go to the `v1beta2` block (created when any is set; upstream tests the conditions
/// list for nil, so an empty list still creates it).
fn status_from_hub(status: v1beta2::MachinePoolStatus) -> v1beta1::MachinePoolStatus {
    let legacy = status
        .deprecated
        .and_then(|d| d.v1beta1)
        .unwrap_or_default();
    let has_v1beta2 = status.conditions.is_some()
        || status.ready_replicas.is_some()
        || status.available_replicas.is_some()
        || status.up_to_date_replicas.is_some();
    v1beta1::MachinePoolStatus {
        node_refs: status.node_refs,
        replicas: status.replicas.unwrap_or(0),
        ready_replicas: legacy.ready_replicas,
        available_replicas: legacy.available_replicas,
        unavailable_replicas: legacy.unavailable_replicas,
        failure_reason: legacy.failure_reason,
        failure_message: legacy.failure_message,
        phase: status.phase,
        bootstrap_ready: status
            .initialization
            .bootstrap_data_secret_created
            .unwrap_or(false),
        infrastructure_ready: status
            .initialization
            .infrastructure_provisioned
            .unwrap_or(false),
        observed_generation: status.observed_generation,
        conditions: legacy.conditions,
        versions: status.versions,
        v1beta2: has_v1beta2.then_some(v1beta1::MachinePoolV1Beta2Status {
            conditions: status.conditions,
            ready_replicas: status.ready_replicas,
            available_replicas: status.available_replicas,
            up_to_date_replicas: status.up_to_date_replicas,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_truncate_and_cap() {
        let d = |n: i64| Some(Duration::from_nanos(n));
        assert_eq!(duration_to_seconds(None), None);
        assert_eq!(duration_to_seconds(d(1_900_000_000)), Some(1));
        assert_eq!(duration_to_seconds(d(-1_500_000_000)), Some(-1));
        assert_eq!(duration_to_seconds(d(500_000_000)), Some(0));
        assert_eq!(
            duration_to_seconds(Some(Duration::from_secs(i64::from(i32::MAX) + 10))),
            Some(i32::MAX)
        );
        assert_eq!(
            duration_to_seconds(Some(Duration::from_secs(i64::from(i32::MIN) - 10))),
            Some(i32::MIN)
        );
        for s in [0, 1, 59, 3600, i32::MAX] {
            assert_eq!(duration_to_seconds(seconds_to_duration(Some(s))), Some(s));
        }
    }

    #[test]
    fn group_version_parsing() {
        assert_eq!(group_of_api_version("").unwrap(), "");
        assert_eq!(group_of_api_version("/").unwrap(), "");
        assert_eq!(group_of_api_version("v1").unwrap(), "");
        assert_eq!(
            group_of_api_version("infrastructure.cluster.x-k8s.io/v1beta2").unwrap(),
            "infrastructure.cluster.x-k8s.io"
        );
        assert!(group_of_api_version("a/b/c").is_err());
    }
}
