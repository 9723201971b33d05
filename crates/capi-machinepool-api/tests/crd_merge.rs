//! Each version's `crd()` is that version's CRD alone, and the multi-version CRD is their
//! merge, judged against kube-core's own `merge_crds` (the semantics followed; source:
//! kube-core 5 `src/crd.rs`, `merge_crds`: one version per input, same group, kind and
//! scope, the stored version's CRD as the base, every other version `storage: false`).
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_machinepool_api::crd::merge_crd_values;
use capi_machinepool_api::k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use capi_machinepool_api::{machine_pool_crd, machine_pool_crd_value, v1beta1, v1beta2};
use kube_core::CustomResourceExt;
use kube_core::crd::merge_crds;
use serde_json::json;

#[test]
fn each_version_crd_is_that_version_alone() {
    for (crd, name) in [
        (v1beta1::MachinePool::crd(), "v1beta1"),
        (v1beta2::MachinePool::crd(), "v1beta2"),
    ] {
        let names: Vec<_> = crd.spec.versions.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, [name]);
        // A CRD with one version stores it (the API server requires one storage version).
        assert!(crd.spec.versions[0].storage && crd.spec.versions[0].served);
        assert_eq!(
            crd.metadata.name.as_deref(),
            Some(v1beta2::MachinePool::crd_name())
        );
    }
    assert_eq!(
        v1beta1::MachinePool::crd().spec.versions[0].deprecated,
        Some(true)
    );
    assert_eq!(
        v1beta2::MachinePool::crd().spec.versions[0].deprecated,
        None
    );
}

/// kube-core puts the storage version first; ours keeps input order (upstream's CRD lists
/// v1beta1 then v1beta2). Everything else is kube-core's answer.
#[test]
fn the_merge_is_kube_cores_merge_in_upstream_order() {
    let kube = merge_crds(
        vec![v1beta1::MachinePool::crd(), v1beta2::MachinePool::crd()],
        "v1beta2",
    )
    .unwrap();
    let mut kube = serde_json::to_value(kube).unwrap();
    let versions = kube["spec"]["versions"].as_array_mut().unwrap();
    versions.sort_by_key(|v| v["name"].as_str().unwrap().to_owned());
    let ours = serde_json::to_value(machine_pool_crd()).unwrap();
    assert_eq!(ours, kube);
    // The JSON form is the typed one before integers become floats.
    let typed: CustomResourceDefinition = serde_json::from_value(machine_pool_crd_value()).unwrap();
    assert_eq!(serde_json::to_value(typed).unwrap(), ours);
}

#[test]
fn merge_refuses_what_kube_core_refuses() {
    let v1 = || v1beta1::MachinePool::crd_value();
    let v2 = || v1beta2::MachinePool::crd_value();
    let typed =
        |v: serde_json::Value| serde_json::from_value::<CustomResourceDefinition>(v).unwrap();
    let other_group = {
        let mut crd = v1();
        crd["spec"]["group"] = json!("example.com");
        crd
    };
    let other_scope = {
        let mut crd = v1();
        crd["spec"]["scope"] = json!("Cluster");
        crd
    };
    let other_kind = {
        let mut crd = v1();
        crd["spec"]["names"]["kind"] = json!("Other");
        crd
    };
    let no_version = {
        let mut crd = v1();
        crd["spec"]["versions"] = json!([]);
        crd
    };
    let cases: Vec<(Vec<serde_json::Value>, &str)> = vec![
        (vec![], "v1beta2"),
        (vec![v1()], "v1beta2"),
        (vec![v1(), v2()], "v1"),
        (vec![other_group, v2()], "v1beta2"),
        (vec![other_scope, v2()], "v1beta2"),
        (vec![other_kind, v2()], "v1beta2"),
        (vec![no_version, v2()], "v1beta2"),
        (vec![machine_pool_crd_value(), v2()], "v1beta2"),
    ];
    for (crds, stored) in cases {
        let theirs = merge_crds(crds.iter().cloned().map(typed).collect(), stored).unwrap_err();
        let ours = merge_crd_values(crds, stored).unwrap_err();
        assert_eq!(ours.to_string(), theirs.to_string());
    }
}
