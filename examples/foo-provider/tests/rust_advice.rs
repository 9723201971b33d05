//! Issue 59: a Rust provider gets its fixes in Rust. A kube-derive CRD with serde's most
//! common slip, `rename_all = "camelCase"` writing `provider_id_list` as `providerIdList`, is
//! told that `providerIdList` is a near miss of the contract's `providerIDList` and how to fix
//! it with serde (never a Go struct tag or a kubebuilder marker), and each other fix is given
//! as serde, schemars or kube-derive attributes.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_machinepool::check::{Outcome, check};
use kube::{CustomResource, CustomResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A pool whose provider ID list is written `providerIdList` (the slip).
#[derive(CustomResource, Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "infrastructure.bar.example.com",
    version = "v1beta1",
    kind = "BarMachinePool",
    namespaced,
    status = "BarMachinePoolStatus",
    category = "cluster-api"
)]
#[serde(rename_all = "camelCase")]
pub struct BarMachinePoolSpec {
    /// Provider IDs of the instances.
    #[serde(default)]
    pub provider_id_list: Vec<String>,
}

/// Observed state, without initialization or conditions.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BarMachinePoolStatus {
    /// Observed number of instances.
    pub replicas: Option<i32>,
}

#[test]
fn a_kube_derive_crd_gets_the_near_miss_and_rust_fixes() {
    let mut crd = BarMachinePool::crd();
    crd.metadata
        .labels
        .get_or_insert_with(Default::default)
        .insert("cluster.x-k8s.io/v1beta2".into(), "v1beta1".into());
    let report = check(&[crd]);
    let finding = |rule: &str| {
        report
            .findings
            .iter()
            .find(|f| f.rule.id == rule && f.outcome != Outcome::Pass)
            .unwrap_or_else(|| panic!("no {rule} finding in\n{report}"))
    };
    let list = finding("provider-id-list");
    assert_eq!(list.outcome, Outcome::Fail);
    assert!(
        list.message
            .contains("`providerIdList` is there: a near miss of `providerIDList`")
            && list
                .message
                .contains("#[serde(rename = \"providerIDList\")]"),
        "{}",
        list.message
    );
    assert!(
        list.fix
            .contains("#[serde(rename = \"providerIDList\")] pub provider_id_list: Vec<String>"),
        "{}",
        list.fix
    );
    // The other fixes are Rust too: no Go struct tag, no kubebuilder marker anywhere.
    for f in report
        .findings
        .iter()
        .filter(|f| f.outcome != Outcome::Pass)
    {
        assert!(
            !f.fix.contains("json:\"")
                && !f.fix.contains("+kubebuilder")
                && !f.fix.contains("[]string"),
            "{}: {}",
            f.rule.id,
            f.fix
        );
    }
    let replicas = finding("replicas");
    assert!(
        replicas.fix.contains("pub replicas: i32") && replicas.fix.contains("schemars"),
        "{}",
        replicas.fix
    );
    let provisioned = finding("initialization-provisioned");
    assert!(
        provisioned.fix.contains("pub provisioned: Option<bool>"),
        "{}",
        provisioned.fix
    );
}
