//! proptest strategies: the apimachinery types providers embed ([`meta`], [`condition`],
//! [`legacy_condition`], [`time`], [`duration`], [`quantity`], [`int_or_string`],
//! [`obj_ref`], and the building blocks [`s`], [`list`], [`map`], [`key`]) and arbitrary
//! MachinePools of both versions ([`v1beta1_pool`], [`v1beta2_pool`]).
//!
//! Values cover every field: empty strings, non-ASCII and control characters, label keys with
//! a `/` prefix, `None` vs `Some(0)`, nil vs empty lists and maps (Go's distinction), lists
//! longer than a handful of items, extreme integers, times from year 1 to 9999, and
//! annotations (so conversion data sits next to other annotations).
//!
//! A provider composes its own kinds from these:
//!
//! ```
//! use capi_machinepool_testing::strategies::{condition, list, s};
//! use proptest::prelude::*;
//! use proptest::strategy::ValueTree;
//!
//! #[derive(Debug, Clone)]
//! struct Status { name: String, conditions: Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition> }
//!
//! let status = (s(), list(condition())).prop_map(|(name, c)| Status { name, conditions: c.unwrap_or_default() });
//! let mut runner = proptest::test_runner::TestRunner::deterministic();
//! let value = status.new_tree(&mut runner).unwrap().current();
//! assert!(value.conditions.iter().all(|c| ["True", "False", "Unknown"].contains(&c.status.as_str())));
//! ```
#![allow(missing_docs)]

use std::collections::BTreeMap;

use capi_machinepool_api::k8s_openapi::api::core::v1::ObjectReference;
use capi_machinepool_api::k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use capi_machinepool_api::k8s_openapi::apimachinery::pkg::apis::meta::v1::{
    Condition as MetaCondition, Time,
};
use capi_machinepool_api::k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use capi_machinepool_api::k8s_openapi::jiff::Timestamp;
use capi_machinepool_api::kube_core;
use capi_machinepool_api::{Duration, v1beta1, v1beta2};
use proptest::collection::{btree_map, vec};
use proptest::option;
use proptest::prelude::*;

/// Any string a user could write: empty, plain, non-ASCII, control characters, HTML
/// characters Go escapes, the line separators.
pub fn s() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => Just(String::new()),
        6 => "[a-z0-9-]{1,12}",
        1 => "[a-zé\u{fc}\u{4e2d}<>&\u{2028}\u{2029}\t\n\u{1}\"\\\\ ]{1,12}",
    ]
}

/// A list: nil (`None`), empty, or up to 12 items.
pub fn list<T: std::fmt::Debug + Clone>(
    item: impl Strategy<Value = T>,
) -> impl Strategy<Value = Option<Vec<T>>> {
    prop_oneof![
        2 => Just(None),
        1 => Just(Some(Vec::new())),
        4 => vec(item, 1..12).prop_map(Some),
    ]
}

/// A string map: nil (`None`), empty, or up to 6 entries.
pub fn map(
    key: impl Strategy<Value = String>,
) -> impl Strategy<Value = Option<BTreeMap<String, String>>> {
    prop_oneof![
        2 => Just(None),
        1 => Just(Some(BTreeMap::new())),
        4 => btree_map(key, s(), 1..6).prop_map(Some),
    ]
}

/// Label and annotation keys, with and without a DNS prefix.
pub fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{1,6}",
        "[a-z]{1,5}\\.example\\.com/[a-z]{1,6}",
        "cluster\\.x-k8s\\.io/[a-z-]{1,10}"
    ]
}

/// Whole-second times from year 1 to 9999 (what `metav1.Time` prints).
pub fn time() -> impl Strategy<Value = Time> {
    (-62_135_596_799i64..253_402_300_799)
        .prop_map(|secs| Time(Timestamp::from_second(secs).unwrap_or(Timestamp::UNIX_EPOCH)))
}

/// Quantities as users write them: plain and decimal numbers, binary (`Ki`..`Ei`) and
/// decimal (`m`, `k`, `M`, `G`) suffixes, exponents (`1e3`) and signs.
pub fn quantity() -> impl Strategy<Value = Quantity> {
    prop_oneof![
        "[0-9]{1,6}",
        "[0-9]{1,4}\\.[0-9]{1,3}",
        "[0-9]{1,4}(Ki|Mi|Gi|Ti|Pi|Ei)",
        "[0-9]{1,4}(m|k|M|G|T|P|E)",
        "[0-9]{1,3}[eE][0-9]",
        "[+-][0-9]{1,4}",
    ]
    .prop_map(Quantity)
}

/// An `intstr.IntOrString`: any `i32`, or a string (a percentage, a name, or empty).
pub fn int_or_string() -> impl Strategy<Value = IntOrString> {
    prop_oneof![
        any::<i32>().prop_map(IntOrString::Int),
        "[0-9]{1,3}%".prop_map(IntOrString::String),
        s().prop_map(IntOrString::String),
    ]
}

/// Object metadata as a provider's object carries it: name, namespace, labels, annotations,
/// generation and finalizers (the fields conversion moves; the server-owned ones are left
/// unset).
pub fn meta() -> impl Strategy<Value = kube_core::ObjectMeta> {
    (
        option::of("[a-z]{1,8}"),
        option::of("[a-z]{0,8}"),
        map(key()),
        map(key()),
        option::of(any::<i64>()),
        option::of(vec("[a-z./]{1,12}", 0..3)),
    )
        .prop_map(
            |(name, namespace, labels, annotations, generation, finalizers)| {
                kube_core::ObjectMeta {
                    name,
                    namespace,
                    labels,
                    annotations,
                    generation,
                    finalizers,
                    ..Default::default()
                }
            },
        )
}

/// Cluster API's template `ObjectMeta` (labels and annotations).
pub fn capi_meta() -> impl Strategy<Value = v1beta2::ObjectMeta> {
    (map(key()), map(key())).prop_map(|(labels, annotations)| v1beta2::ObjectMeta {
        labels,
        annotations,
    })
}

/// A `corev1.ObjectReference` (name, kind, apiVersion, namespace).
pub fn obj_ref() -> impl Strategy<Value = ObjectReference> {
    (
        option::of("[a-z]{1,8}"),
        option::of("[A-Z][a-z]{1,8}"),
        option::of("[a-z./0-9]{1,12}"),
        option::of("[a-z]{0,8}"),
    )
        .prop_map(|(name, kind, api_version, namespace)| ObjectReference {
            name,
            kind,
            api_version,
            namespace,
            ..Default::default()
        })
}

/// A Cluster API v1beta1 condition (with severity), the legacy form.
pub fn legacy_condition() -> impl Strategy<Value = v1beta1::LegacyCondition> {
    (
        "[A-Z][a-z]{1,8}",
        prop_oneof!["True", "False", "Unknown"],
        s(),
        option::of(time()),
        s(),
        s(),
    )
        .prop_map(
            |(type_, status, severity, last_transition_time, reason, message)| {
                v1beta1::LegacyCondition {
                    type_,
                    status: status.to_owned(),
                    severity,
                    last_transition_time,
                    reason,
                    message,
                }
            },
        )
}

/// A `metav1.Condition` (the v1beta2 form).
pub fn condition() -> impl Strategy<Value = MetaCondition> {
    (
        "[A-Z][a-z]{1,8}",
        prop_oneof!["True", "False", "Unknown"],
        time(),
        s(),
        s(),
        option::of(0i64..100),
    )
        .prop_map(
            |(type_, status, last_transition_time, reason, message, observed_generation)| {
                MetaCondition {
                    type_,
                    status: status.to_owned(),
                    last_transition_time,
                    reason,
                    message,
                    observed_generation,
                }
            },
        )
}

pub fn taint() -> impl Strategy<Value = v1beta2::MachineTaint> {
    (s(), s(), s(), s()).prop_map(|(key, value, effect, propagation)| v1beta2::MachineTaint {
        key,
        value,
        effect,
        propagation,
    })
}

pub fn gate() -> impl Strategy<Value = v1beta2::MachineReadinessGate> {
    (s(), s()).prop_map(|(condition_type, polarity)| v1beta2::MachineReadinessGate {
        condition_type,
        polarity,
    })
}

pub fn versions() -> impl Strategy<Value = Option<Vec<v1beta2::StatusVersion>>> {
    list(
        (s(), any::<i32>())
            .prop_map(|(version, replicas)| v1beta2::StatusVersion { version, replicas }),
    )
}

pub fn cv_ref() -> impl Strategy<Value = v1beta2::ContractVersionedObjectReference> {
    (s(), s(), s()).prop_map(
        |(kind, name, api_group)| v1beta2::ContractVersionedObjectReference {
            kind,
            name,
            api_group,
        },
    )
}

prop_compose! {
    /// Strategy.
    pub fn v1beta2_machine_spec()(cluster_name in s(), config_ref in cv_ref(), data_secret_name in option::of(s()),
        infrastructure_ref in cv_ref(), version in s(), provider_id in s(), failure_domain in s(),
        min_ready_seconds in option::of(any::<i32>()), readiness_gates in list(gate()),
        deletion in (option::of(any::<i32>()), option::of(any::<i32>()), option::of(any::<i32>())),
        taints in list(taint())) -> v1beta2::MachineSpec {
        v1beta2::MachineSpec {
            cluster_name, bootstrap: v1beta2::Bootstrap { config_ref, data_secret_name }, infrastructure_ref,
            version, provider_id, failure_domain, min_ready_seconds, readiness_gates,
            deletion: v1beta2::MachineDeletionSpec { node_drain_timeout_seconds: deletion.0,
                node_volume_detach_timeout_seconds: deletion.1, node_deletion_timeout_seconds: deletion.2 },
            taints,
        }
    }
}

prop_compose! {
    /// Strategy.
    pub fn v1beta2_status()(conditions in list(condition()),
        init in (option::of(any::<bool>()), option::of(any::<bool>())),
        node_refs in list(obj_ref()), counters in (option::of(any::<i32>()), option::of(any::<i32>()), option::of(any::<i32>()), option::of(any::<i32>())),
        versions in versions(), phase in s(), observed_generation in any::<i64>(),
        deprecated in option::of(option::of((list(legacy_condition()), option::of(s()), option::of(s()), any::<i32>(), any::<i32>(), any::<i32>())))) -> v1beta2::MachinePoolStatus {
        v1beta2::MachinePoolStatus {
            conditions,
            initialization: v1beta2::MachinePoolInitializationStatus { infrastructure_provisioned: init.0, bootstrap_data_secret_created: init.1 },
            node_refs, replicas: counters.0, ready_replicas: counters.1, available_replicas: counters.2, up_to_date_replicas: counters.3,
            versions, phase, observed_generation,
            deprecated: deprecated.map(|d| v1beta2::MachinePoolDeprecatedStatus { v1beta1: d.map(|(conditions, failure_reason, failure_message, ready_replicas, available_replicas, unavailable_replicas)|
                v1beta2::MachinePoolV1Beta1DeprecatedStatus { conditions, failure_reason, failure_message, ready_replicas, available_replicas, unavailable_replicas }) }),
        }
    }
}

prop_compose! {
    /// An arbitrary v1beta2 MachinePool.
    pub fn v1beta2_pool()(metadata in meta(), cluster_name in s(), replicas in option::of(any::<i32>()),
        template_meta in capi_meta(), spec in v1beta2_machine_spec(), provider_id_list in list("[a-z:/0-9]{1,12}"),
        failure_domains in list(s()), status in v1beta2_status()) -> v1beta2::MachinePool {
        v1beta2::MachinePool {
            metadata,
            spec: v1beta2::MachinePoolSpec { cluster_name, replicas,
                template: v1beta2::MachineTemplateSpec { metadata: template_meta, spec }, provider_id_list, failure_domains },
            status,
        }
    }
}

/// A `metav1.Duration` (Go's `time.Duration`, any number of nanoseconds).
pub fn duration() -> impl Strategy<Value = Duration> {
    any::<i64>().prop_map(Duration::from_nanos)
}

prop_compose! {
    /// Strategy.
    pub fn v1beta1_machine_spec()(cluster_name in s(), config_ref in option::of(obj_ref()), data_secret_name in option::of(s()),
        infrastructure_ref in obj_ref(), strs in (option::of(s()), option::of(s()), option::of(s())),
        readiness_gates in list(gate()), timeouts in (option::of(duration()), option::of(duration()), option::of(duration())),
        taints in list(taint())) -> v1beta1::MachineSpec {
        v1beta1::MachineSpec {
            cluster_name, bootstrap: v1beta1::Bootstrap { config_ref, data_secret_name }, infrastructure_ref,
            version: strs.0, provider_id: strs.1, failure_domain: strs.2, readiness_gates,
            node_drain_timeout: timeouts.0, node_volume_detach_timeout: timeouts.1, node_deletion_timeout: timeouts.2, taints,
        }
    }
}

prop_compose! {
    /// Strategy.
    pub fn v1beta1_status()(node_refs in list(obj_ref()), counters in (any::<i32>(), any::<i32>(), any::<i32>(), any::<i32>()),
        failure in (option::of(s()), option::of(s())), phase in s(), ready in (any::<bool>(), any::<bool>()),
        observed_generation in any::<i64>(), conditions in list(legacy_condition()), versions in versions(),
        v1beta2 in option::of((list(condition()), option::of(any::<i32>()), option::of(any::<i32>()), option::of(any::<i32>())))) -> v1beta1::MachinePoolStatus {
        v1beta1::MachinePoolStatus {
            node_refs, replicas: counters.0, ready_replicas: counters.1, available_replicas: counters.2, unavailable_replicas: counters.3,
            failure_reason: failure.0, failure_message: failure.1, phase, bootstrap_ready: ready.0, infrastructure_ready: ready.1,
            observed_generation, conditions, versions,
            v1beta2: v1beta2.map(|(conditions, ready_replicas, available_replicas, up_to_date_replicas)| v1beta1::MachinePoolV1Beta2Status { conditions, ready_replicas, available_replicas, up_to_date_replicas }),
        }
    }
}

prop_compose! {
    /// An arbitrary v1beta1 MachinePool.
    pub fn v1beta1_pool()(metadata in meta(), cluster_name in s(), replicas in option::of(any::<i32>()),
        template_meta in capi_meta(), spec in v1beta1_machine_spec(), min_ready_seconds in option::of(any::<i32>()),
        provider_id_list in list("[a-z:/0-9]{1,12}"), failure_domains in list(s()), status in v1beta1_status()) -> v1beta1::MachinePool {
        v1beta1::MachinePool {
            metadata,
            spec: v1beta1::MachinePoolSpec { cluster_name, replicas, min_ready_seconds,
                template: v1beta1::MachineTemplateSpec { metadata: template_meta, spec }, provider_id_list, failure_domains },
            status,
        }
    }
}
