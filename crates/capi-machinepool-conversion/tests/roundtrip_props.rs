//! proptest round trips in both directions, with the normalisations upstream's fuzz tests use
//! (they define which losses are accepted).
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use capi_machinepool_api::constants::CONVERSION_DATA_ANNOTATION;
use capi_machinepool_api::k8s_openapi::api::core::v1::ObjectReference;
use capi_machinepool_api::{Duration, v1beta1, v1beta2};
use capi_machinepool_conversion::machine_pool::{from_hub, to_hub};
use capi_machinepool_testing::go_normalized;
use capi_machinepool_testing::strategies::{v1beta1_pool, v1beta2_pool};
use common::{GVKS, resolver};
use proptest::prelude::*;

fn realistic_ref(r: &mut ObjectReference, pick: usize, namespace: Option<&String>) {
    let (_, kind, api_version) = GVKS[pick % GVKS.len()];
    r.api_version = Some(api_version.to_owned());
    r.kind = Some(kind.to_owned());
    r.namespace = namespace.filter(|n| !n.is_empty()).cloned();
    r.uid = None;
    r.resource_version = None;
    r.field_path = None;
    if r.name.as_deref() == Some("") {
        r.name = None;
    }
}

fn whole_seconds(d: &mut Option<Duration>) {
    if let Some(v) = d {
        *v = Duration::from_secs(v.as_nanos().rem_euclid(i64::from(i32::MAX)));
    }
}

/// The normalisations of upstream's spoke fuzzer.
fn normalize_spoke(mut mp: v1beta1::MachinePool, pick: usize) -> v1beta1::MachinePool {
    let ns = mp.metadata.namespace.clone();
    let spec = &mut mp.spec.template.spec;
    realistic_ref(&mut spec.infrastructure_ref, pick, ns.as_ref());
    if let Some(r) = spec.bootstrap.config_ref.as_mut() {
        realistic_ref(r, pick + 1, ns.as_ref());
    }
    for s in [
        &mut spec.version,
        &mut spec.provider_id,
        &mut spec.failure_domain,
    ] {
        if s.as_deref() == Some("") {
            *s = None;
        }
    }
    whole_seconds(&mut spec.node_drain_timeout);
    whole_seconds(&mut spec.node_volume_detach_timeout);
    whole_seconds(&mut spec.node_deletion_timeout);
    go_normalized::empty_v1beta2_status(&mut mp);
    mp
}

fn realistic_contract_ref(r: &mut v1beta2::ContractVersionedObjectReference, pick: usize) {
    let (group, kind, _) = GVKS[pick % GVKS.len()];
    r.api_group = group.to_owned();
    r.kind = kind.to_owned();
}

/// Upstream's hub fuzzer makes references realistic (they must resolve) and also allocates
/// `status.deprecated.v1beta1` and sets `status.replicas` to `Some(0)`: those two losses are
/// recovered here through the conversion-data annotation, so they are not normalised away.
fn normalize_hub(mut mp: v1beta2::MachinePool, pick: usize) -> v1beta2::MachinePool {
    let spec = &mut mp.spec.template.spec;
    realistic_contract_ref(&mut spec.infrastructure_ref, pick);
    if spec.bootstrap.config_ref.is_defined() {
        realistic_contract_ref(&mut spec.bootstrap.config_ref, pick + 1);
    }
    mp
}

fn drop_conversion_data(meta: &mut kube_core::ObjectMeta) {
    if let Some(a) = meta.annotations.as_mut() {
        a.remove(CONVERSION_DATA_ANNOTATION);
        if a.is_empty() {
            meta.annotations = None;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(capi_test_support::proptest_cases(1000)))]

    #[test]
    fn spoke_hub_spoke(mp in v1beta1_pool(), pick in 0usize..4) {
        let original = normalize_spoke(mp, pick);
        let hub = to_hub(original.clone()).unwrap();
        let mut back = from_hub(&hub, &resolver()).unwrap();
        drop_conversion_data(&mut back.metadata);
        // Nil and empty lists and maps are equal, as in Kubernetes' semantic equality.
        prop_assert_eq!(go_normalized::v1beta1(back), go_normalized::v1beta1(original));
    }

    #[test]
    fn hub_spoke_hub(mp in v1beta2_pool(), pick in 0usize..4) {
        let original = normalize_hub(mp, pick);
        let spoke = from_hub(&original, &resolver()).unwrap();
        // The API server sometimes sends objects with only metadata: must not fail.
        let bare = v1beta1::MachinePool { metadata: spoke.metadata.clone(), ..Default::default() };
        to_hub(bare).unwrap();
        let back = to_hub(spoke).unwrap();
        // Nil and empty lists and maps are equal, as in Kubernetes' semantic equality.
        prop_assert_eq!(go_normalized::v1beta2(back), go_normalized::v1beta2(original));
    }

    #[test]
    fn unstructured_round_trip_through_the_converter(mp in v1beta2_pool(), pick in 0usize..4) {
        use capi_machinepool_conversion::{ObjectConverter, machine_pool_converter};
        // An object as the API server sends it: already in Go's normal form.
        let original = serde_json::to_value(normalize_hub(go_normalized::v1beta2(mp), pick)).unwrap();
        let converter = machine_pool_converter(resolver());
        let spoke = converter.convert_value(&original.clone(), "cluster.x-k8s.io/v1beta1").unwrap();
        let back = converter.convert_value(&spoke, "cluster.x-k8s.io/v1beta2").unwrap();
        prop_assert_eq!(back, original);
    }
}

fn unchanged_at_its_own_version(object: &str, version: &str) -> Result<(), TestCaseError> {
    use capi_machinepool_conversion::{ObjectConverter, machine_pool_converter};
    let converter = machine_pool_converter(resolver());
    let raw = serde_json::value::RawValue::from_string(object.to_owned()).unwrap();
    let out = converter.convert(&raw, version).unwrap();
    prop_assert_eq!(out.get(), object);
    Ok(())
}

proptest! {
    /// An object already at the desired version comes back as it was sent, byte for byte.
    #[test]
    fn hubs_already_at_the_target_version_are_unchanged(hub in v1beta2_pool()) {
        unchanged_at_its_own_version(&capi_machinepool_api::wire::to_string(&hub).unwrap(), "cluster.x-k8s.io/v1beta2")?;
    }

    #[test]
    fn spokes_already_at_the_target_version_are_unchanged(spoke in v1beta1_pool()) {
        unchanged_at_its_own_version(&capi_machinepool_api::wire::to_string(&spoke).unwrap(), "cluster.x-k8s.io/v1beta1")?;
    }
}
