//! FooMachinePool converts losslessly through the webhook, in both directions (upstream's
//! `util/conversion` FuzzTestFunc: "hub-spoke-hub" and "spoke-hub-spoke"), with
//! `capi_machinepool::testing::assert_lossless`; and that helper finds a spoke that drops a
//! field without saving it in the conversion-data annotation.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_machinepool::conversion::{
    ApiVersionResolver, ConversionError, HubSpokeConverter, LosslessSpoke, StaticResolver,
};
use capi_machinepool::testing::strategies::{condition, key, legacy_condition, list, map, meta, s};
use capi_machinepool::testing::{Options, assert_lossless, check_lossless};
use foo_provider::{converter, v1alpha1, v1beta1};
use proptest::option;
use proptest::prelude::*;

fn hubs() -> impl Strategy<Value = v1beta1::FooMachinePool> {
    let status = (
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
        });
    (meta(), list(s()), s(), s(), map(key()), option::of(status)).prop_map(
        |(metadata, ids, provider_id, instance_type, tags, status)| {
            let spec = v1beta1::FooMachinePoolSpec {
                provider_id_list: ids.unwrap_or_default(),
                provider_id,
                instance_type,
                additional_tags: tags.unwrap_or_default(),
            };
            v1beta1::FooMachinePool {
                metadata,
                spec,
                status,
            }
        },
    )
}

fn spokes() -> impl Strategy<Value = v1alpha1::FooMachinePool> {
    let status =
        (any::<bool>(), any::<i32>(), list(legacy_condition())).prop_map(|(ready, replicas, c)| {
            v1alpha1::FooMachinePoolStatus {
                ready,
                replicas,
                conditions: c.unwrap_or_default(),
            }
        });
    (meta(), list(s()), s(), s(), option::of(status)).prop_map(
        |(metadata, ids, provider_id, instance_type, status)| {
            let spec = v1alpha1::FooMachinePoolSpec {
                provider_id_list: ids.unwrap_or_default(),
                provider_id,
                instance_type,
            };
            v1alpha1::FooMachinePool {
                metadata,
                spec,
                status,
            }
        },
    )
}

/// Both round trips, `PROPTEST_CASES` (default 256) cases each.
#[test]
fn foo_machine_pool_is_lossless() {
    assert_lossless(&converter(StaticResolver::new()), hubs(), spokes());
}

/// A planted bug: a v1alpha1 look-alike whose `restore` forgets `spec.additionalTags`
/// (v1alpha1 has no such field, so only the annotation can bring it back). The helper must
/// report the hub -> spoke -> hub direction and the field.
mod forgetful {
    use super::*;

    /// v1alpha1's spec, under a spoke that restores too little.
    #[derive(
        kube::CustomResource,
        Clone,
        Debug,
        Default,
        PartialEq,
        serde::Serialize,
        serde::Deserialize,
        schemars::JsonSchema,
    )]
    #[kube(
        group = "infrastructure.foo.example.com",
        version = "v1alpha1",
        kind = "FooMachinePool",
        namespaced,
        derive = "PartialEq"
    )]
    #[serde(rename_all = "camelCase", default)]
    pub struct Spec {
        #[serde(rename = "providerIDList", skip_serializing_if = "Vec::is_empty")]
        pub provider_id_list: Vec<String>,
        #[serde(skip_serializing_if = "String::is_empty")]
        pub instance_type: String,
    }

    impl LosslessSpoke<v1beta1::FooMachinePool> for FooMachinePool {
        fn to_hub_fields(
            self,
            _: &dyn ApiVersionResolver,
        ) -> Result<v1beta1::FooMachinePool, ConversionError> {
            let spec = v1beta1::FooMachinePoolSpec {
                provider_id_list: self.spec.provider_id_list,
                instance_type: self.spec.instance_type,
                ..Default::default()
            };
            Ok(v1beta1::FooMachinePool::new("", spec))
        }
        fn from_hub_fields(
            hub: &v1beta1::FooMachinePool,
            _: &dyn ApiVersionResolver,
        ) -> Result<Self, ConversionError> {
            Ok(FooMachinePool::new(
                "",
                Spec {
                    provider_id_list: hub.spec.provider_id_list.clone(),
                    instance_type: hub.spec.instance_type.clone(),
                },
            ))
        }
        fn restore(hub: &mut v1beta1::FooMachinePool, saved: v1beta1::FooMachinePool) {
            hub.spec.provider_id = saved.spec.provider_id; // but not additional_tags
        }
    }
}

#[test]
fn a_spoke_that_drops_a_field_is_found() {
    let converter = HubSpokeConverter::<v1beta1::FooMachinePool>::new(StaticResolver::new())
        .with_spoke::<forgetful::FooMachinePool>();
    // Hubs without status (the look-alike has none) whose tags are the only difference.
    let hubs = (meta(), s(), map(key())).prop_map(|(metadata, instance_type, tags)| {
        let spec = v1beta1::FooMachinePoolSpec {
            instance_type,
            additional_tags: tags.unwrap_or_default(),
            ..Default::default()
        };
        v1beta1::FooMachinePool {
            metadata,
            spec,
            status: None,
        }
    });
    let spokes = meta().prop_map(|metadata| forgetful::FooMachinePool {
        metadata,
        spec: forgetful::Spec::default(),
    });
    let options = Options {
        cases: 256,
        ..Options::default()
    };
    let err = check_lossless(&converter, hubs, spokes, &options).unwrap_err();
    assert_eq!(err.direction, "hub -> spoke -> hub");
    // The minimal case proptest shrinks to has one tag, which did not come back.
    assert!(err.message.contains("\"additionalTags\""), "{err}");
}
