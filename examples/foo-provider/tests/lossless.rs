//! Property tests: FooMachinePool converts losslessly, through the webhook's JSON path, in
//! both directions (upstream's `util/conversion` FuzzTestFunc: "hub-spoke-hub" and
//! "spoke-hub-spoke").
//!
//! Expected values are the generated objects themselves, with the one normalisation
//! upstream's comparison makes: `apiequality.Semantic.DeepEqual` holds an empty map equal to
//! a nil one (apimachinery third_party/forked/golang/reflect/deep_equal.go), so an
//! `annotations: {}` left empty by the annotation's removal equals an absent one.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::collections::BTreeMap;

use capi_machinepool::api::constants::CONVERSION_DATA_ANNOTATION;
use capi_machinepool::api::strategies::{condition, key, legacy_condition, list, map, meta, s};
use capi_machinepool::conversion::{ObjectConverter, StaticResolver};
use foo_provider::{converter, v1alpha1, v1beta1};
use kube::core::ObjectMeta;
use proptest::option;
use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;

fn hub_status() -> impl Strategy<Value = v1beta1::FooMachinePoolStatus> {
    (
        option::of(any::<bool>()),
        any::<i32>(),
        list(condition()),
        list(legacy_condition()),
    )
        .prop_map(|(provisioned, replicas, conditions, legacy)| {
            v1beta1::FooMachinePoolStatus {
                initialization: v1beta1::Initialization { provisioned },
                replicas,
                conditions: conditions.unwrap_or_default(),
                deprecated: v1beta1::Deprecated {
                    v1beta1: v1beta1::V1Beta1Status {
                        conditions: legacy.unwrap_or_default(),
                    },
                },
            }
        })
}

fn hub() -> impl Strategy<Value = v1beta1::FooMachinePool> {
    (
        meta(),
        list(s()),
        s(),
        s(),
        map(key()),
        option::of(hub_status()),
    )
        .prop_map(
            |(metadata, ids, provider_id, instance_type, tags, status)| {
                let mut pool = v1beta1::FooMachinePool::new(
                    "",
                    v1beta1::FooMachinePoolSpec {
                        provider_id_list: ids.unwrap_or_default(),
                        provider_id,
                        instance_type,
                        additional_tags: tags.unwrap_or_default(),
                    },
                );
                pool.metadata = metadata;
                pool.status = status;
                pool
            },
        )
}

fn spoke() -> impl Strategy<Value = v1alpha1::FooMachinePool> {
    (
        meta(),
        list(s()),
        s(),
        s(),
        option::of((any::<bool>(), any::<i32>(), list(legacy_condition()))),
    )
        .prop_map(|(metadata, ids, provider_id, instance_type, status)| {
            let mut pool = v1alpha1::FooMachinePool::new(
                "",
                v1alpha1::FooMachinePoolSpec {
                    provider_id_list: ids.unwrap_or_default(),
                    provider_id,
                    instance_type,
                },
            );
            pool.metadata = metadata;
            pool.status =
                status.map(
                    |(ready, replicas, conditions)| v1alpha1::FooMachinePoolStatus {
                        ready,
                        replicas,
                        conditions: conditions.unwrap_or_default(),
                    },
                );
            pool
        })
}

/// Converts a typed object to `desired` through the webhook's path (JSON text in and out).
fn convert<In: Serialize, Out: DeserializeOwned>(object: &In, desired: &str) -> Out {
    let converter = converter(StaticResolver::new());
    let text = serde_json::value::to_raw_value(object).unwrap();
    let out = converter.convert(&text, desired).unwrap();
    serde_json::from_str(out.get()).unwrap()
}

/// An empty annotations map is an absent one (see the module docs).
fn semantic(mut meta: ObjectMeta) -> ObjectMeta {
    if meta.annotations.as_ref().is_some_and(BTreeMap::is_empty) {
        meta.annotations = None;
    }
    meta
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(capi_test_support::proptest_cases(512)))]

    /// hub -> v1alpha1 -> hub is the hub: conditions, tags, `provisioned: false` and the
    /// v1beta1 conditions all come back. On the way, the v1alpha1 object's metadata without
    /// its spec (as the API server may send it) converts up too (FuzzTestFunc's
    /// `dstCopyNoSpec` check).
    #[test]
    fn hub_spoke_hub(hub in hub()) {
        let spoke: v1alpha1::FooMachinePool = convert(&hub, "infrastructure.foo.example.com/v1alpha1");
        prop_assert!(spoke.metadata.annotations.as_ref().is_some_and(|a| a.contains_key(CONVERSION_DATA_ANNOTATION)));
        let no_spec = serde_json::json!({"apiVersion": "infrastructure.foo.example.com/v1alpha1",
            "kind": "FooMachinePool", "metadata": {"labels": spoke.metadata.labels, "annotations": spoke.metadata.annotations}});
        let _: v1beta1::FooMachinePool = convert(&no_spec, "infrastructure.foo.example.com/v1beta1");
        let mut back: v1beta1::FooMachinePool = convert(&spoke, "infrastructure.foo.example.com/v1beta1");
        let mut expected = hub;
        expected.metadata = semantic(expected.metadata);
        back.metadata = semantic(back.metadata);
        prop_assert_eq!(back, expected);
    }

    /// v1alpha1 -> hub -> v1alpha1 is the spoke, less the annotation the down-conversion
    /// adds (FuzzTestFunc "spoke-hub-spoke" deletes it before comparing).
    #[test]
    fn spoke_hub_spoke(spoke in spoke()) {
        let hub: v1beta1::FooMachinePool = convert(&spoke, "infrastructure.foo.example.com/v1beta1");
        let mut back: v1alpha1::FooMachinePool = convert(&hub, "infrastructure.foo.example.com/v1alpha1");
        let removed = back.metadata.annotations.as_mut().and_then(|a| a.remove(CONVERSION_DATA_ANNOTATION));
        prop_assert!(removed.is_some());
        let mut expected = spoke;
        expected.metadata = semantic(expected.metadata);
        back.metadata = semantic(back.metadata);
        prop_assert_eq!(back, expected);
    }
}
