//! The spec apply body owns `spec.providerIDList` only: a server-side apply body makes its
//! field manager own every field it holds ("Fields are owned by the manager that last
//! applied them", <https://kubernetes.io/docs/reference/using-api/server-side-apply/>), so the
//! user's `instanceType` and tags must not be in it.
#![allow(clippy::unwrap_used)]

use foo_provider::{provider_id_list_apply, v1beta1};
use serde_json::json;

#[test]
fn provider_id_list_body_holds_the_list_and_nothing_else_of_the_spec() {
    // The providerIDList of tests/fixtures/conversion/v1beta1-every-field.yaml.
    let pool_fixture = capi_test_support::yaml("conversion/v1beta1-every-field.yaml");
    let ids: Vec<String> =
        serde_json::from_value(pool_fixture["spec"]["providerIDList"].clone()).unwrap();
    assert_eq!(ids.len(), 3);
    let mut pool = v1beta1::FooMachinePool::new(
        "workers",
        v1beta1::FooMachinePoolSpec {
            instance_type: "large".into(),
            additional_tags: [("team".to_owned(), "infra".to_owned())].into(),
            ..Default::default()
        },
    );
    pool.metadata.namespace = Some("default".into());
    let body = provider_id_list_apply(&pool, &ids);
    assert_eq!(
        serde_json::to_value(&body).unwrap(),
        json!({"apiVersion": "infrastructure.foo.example.com/v1beta1", "kind": "FooMachinePool",
            "metadata": {"name": "workers", "namespace": "default"},
            "spec": {"providerIDList": ids}})
    );
    // An empty list is applied as empty (the manager still owns the field, now empty), not
    // left out (which would give the field up).
    let empty = provider_id_list_apply(&pool, &[]);
    assert_eq!(
        serde_json::to_value(&empty).unwrap()["spec"],
        json!({"providerIDList": []})
    );
}
