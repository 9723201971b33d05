//! tests/fixtures/foo-provider/crds.yaml (read by the CLI's `--hide-derive-info` test) is what
//! `cargo run -p foo-provider --example crds` prints today.
#![allow(clippy::unwrap_used)]

#[test]
fn crds_fixture_is_current() {
    let fixture: Vec<serde_json::Value> = capi_test_support::yaml_docs("foo-provider/crds.yaml");
    let crds: Vec<serde_json::Value> = foo_provider::crds()
        .iter()
        .map(|c| serde_json::to_value(c).unwrap())
        .collect();
    assert_eq!(
        fixture, crds,
        "regenerate: cargo run -p foo-provider --example crds > tests/fixtures/foo-provider/crds.yaml"
    );
}
