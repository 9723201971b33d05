//! `decode_with_unknown_fields` (the fields a decode skips, found in the decode itself)
//! against the way this crate found them before, printing the typed object back and
//! comparing (kept here as the reference): on every MachinePool of the repository's fixtures
//! (upstream's conversion answers included) the two agree, except where the reference
//! reports a known field holding only zeros (`spec.template: {metadata: {}}` of upstream's
//! generated objects, which Go's `omitzero` does not print back; nothing is lost there). On
//! objects with unknown fields added where the typed API has a struct, the expected paths
//! are known by construction.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::Path;

use capi_machinepool_admission::{decode_with_unknown_fields, unknown_fields};
use capi_machinepool_api::{v1beta1, v1beta2};
use capi_manifests::Limits;
use capi_manifests::load::documents;
use capi_test_support::{proptest_cases, workspace_root, yaml};
use proptest::prelude::*;
use serde_json::{Value, json};

/// The fields a decode drops as this crate found them before `decode_with_unknown_fields`
/// (the reference): the typed object printed back and compared with the input, every key of
/// the input that the output lacks, unless its value is zero.
fn printed_back_reference<T: serde::de::DeserializeOwned + serde::Serialize>(
    object: &Value,
) -> Vec<String> {
    fn compare(path: &str, input: &Value, output: &Value, out: &mut Vec<String>) {
        match (input, output) {
            (Value::Object(a), Value::Object(b)) => {
                for (k, v) in a {
                    let at = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    match b.get(k) {
                        Some(w) => compare(&at, v, w, out),
                        None if !is_zero(v) => out.push(at),
                        None => {}
                    }
                }
            }
            (Value::Array(a), Value::Array(b)) => {
                for (i, (v, w)) in a.iter().zip(b).enumerate() {
                    compare(&format!("{path}[{i}]"), v, w, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Ok(typed) = serde_json::from_value::<T>(object.clone()) {
        compare("", object, &serde_json::to_value(&typed).unwrap(), &mut out);
    }
    out
}

/// Every leaf of `value` is zero (a known field holding nothing: Go prints nothing back).
fn only_zeros(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.values().all(only_zeros),
        Value::Array(items) => items.iter().all(only_zeros),
        leaf => is_zero(leaf),
    }
}

/// `decode_with_unknown_fields` and `unknown_fields` on `object` (a MachinePool of either
/// version) against the printed-back reference: the same success; every path reported is
/// the reference's; a path only the reference reports holds nothing but zeros. The paths.
fn agree(object: &Value, label: &str) -> Vec<String> {
    fn both<T: serde::de::DeserializeOwned + serde::Serialize>(
        object: &Value,
        label: &str,
    ) -> Vec<String> {
        let reference = printed_back_reference::<T>(object);
        let Ok((_, dropped)) = decode_with_unknown_fields::<T>(object) else {
            assert!(reference.is_empty(), "{label}");
            assert!(
                serde_json::from_value::<T>(object.clone()).is_err(),
                "{label}"
            );
            assert!(unknown_fields::<T>(object).is_empty(), "{label}");
            return Vec::new();
        };
        assert_eq!(unknown_fields::<T>(object), dropped, "{label}");
        let mut reference = reference.into_iter().peekable();
        for path in &dropped {
            // Both lists are in the input's key order; skip the reference's extra entries.
            loop {
                let Some(next) = reference.next() else {
                    panic!("{label}: {path} reported, not by the reference");
                };
                if &next == path {
                    break;
                }
                assert_only_zeros(object, &next, label);
            }
        }
        reference.for_each(|extra| assert_only_zeros(object, &extra, label));
        dropped
    }
    if object["apiVersion"] == "cluster.x-k8s.io/v1beta1" {
        both::<v1beta1::MachinePool>(object, label)
    } else {
        both::<v1beta2::MachinePool>(object, label)
    }
}

/// A path the reference reports alone holds only zeros.
fn assert_only_zeros(object: &Value, path: &str, label: &str) {
    let pointer = format!("/{}", path.replace(['.', '['], "/").replace(']', ""));
    let value = object.pointer(&pointer).unwrap();
    assert!(
        only_zeros(value),
        "{label}: {path} reported by the reference only: {value}"
    );
}

/// Every MachinePool (of either version, list items included) in a JSON or YAML text.
fn machine_pools(value: Value, out: &mut Vec<Value>) {
    match value {
        Value::Object(mut map) => {
            let is_pool = map.get("kind").is_some_and(|k| k == "MachinePool")
                && map.get("apiVersion").is_some_and(|v| {
                    v == "cluster.x-k8s.io/v1beta1" || v == "cluster.x-k8s.io/v1beta2"
                });
            if is_pool {
                out.push(Value::Object(map));
                return;
            }
            for key in ["items", "input"] {
                if let Some(inner) = map.remove(key) {
                    machine_pools(inner, out);
                }
            }
        }
        Value::Array(items) => items.into_iter().for_each(|i| machine_pools(i, out)),
        _ => {}
    }
}

fn walk(dir: &Path, out: &mut Vec<(String, Value)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, out);
            continue;
        }
        let Some(ext) = path.extension().and_then(|e| e.to_str()) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        if !matches!(ext, "json" | "yaml" | "yml") {
            continue;
        }
        let name = path.strip_prefix(workspace_root()).unwrap().display();
        // Fixtures that do not parse (malformed-input cases) hold no MachinePool to compare.
        let documents = documents(&text, &name.to_string(), &Limits::default()).unwrap_or_default();
        let mut pools = Vec::new();
        documents
            .into_iter()
            .for_each(|d| machine_pools(d.value, &mut pools));
        out.extend(pools.into_iter().map(|p| (name.to_string(), p)));
    }
}

#[test]
fn both_report_the_same_fields_on_every_fixture_machine_pool() {
    let mut pools = Vec::new();
    walk(&workspace_root().join("tests/fixtures"), &mut pools);
    let mut with_dropped = 0;
    for (file, pool) in &pools {
        with_dropped += usize::from(!agree(pool, file).is_empty());
    }
    // The upstream answers alone hold over 300; some fixtures carry fields the API lacks.
    assert!(
        pools.len() >= 300,
        "only {} MachinePools found",
        pools.len()
    );
    assert!(with_dropped > 0, "no fixture has a dropped field");
}

/// Where the typed API has a struct (every key not in the API is dropped) in the every-field
/// fixtures, in both versions.
const STRUCTS: [&str; 8] = [
    "",
    "metadata",
    "spec",
    "spec.template",
    "spec.template.spec",
    "spec.template.spec.bootstrap",
    "spec.template.spec.infrastructureRef",
    "status",
];

/// A JSON value, zero or not.
fn any_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        Just(json!(false)),
        Just(json!(0)),
        Just(json!("")),
        Just(json!([])),
        Just(json!({})),
        Just(json!(true)),
        (1i64..1000).prop_map(Value::from),
        "[a-z<>&\"]{1,8}".prop_map(Value::from),
        Just(json!([0])),
        Just(json!({"a": {"b": [1, {"c": null}]}})),
    ]
}

fn is_zero(v: &Value) -> bool {
    matches!(v, Value::Null | Value::Bool(false))
        || v.as_f64() == Some(0.0)
        || v.as_str() == Some("")
        || v.as_array().is_some_and(Vec::is_empty)
        || v.as_object().is_some_and(serde_json::Map::is_empty)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(128)))]

    /// Unknown keys (`zz…`, a prefix no Cluster API field has) added at struct positions:
    /// exactly the non-zero ones are reported, in path order, by both functions.
    #[test]
    fn added_unknown_fields_are_reported(
        v1beta1 in any::<bool>(),
        added in proptest::collection::vec((0..STRUCTS.len(), "zz[a-z]{1,4}", any_value()), 0..6),
    ) {
        let file = if v1beta1 { "conversion/v1beta1-every-field.yaml" } else { "conversion/v1beta2-every-field.yaml" };
        let mut object = yaml(file);
        let mut expected = Vec::new();
        for (at, key, value) in added {
            let parent = STRUCTS[at]
                .split('.')
                .filter(|s| !s.is_empty())
                .fold(&mut object, |v, k| &mut v[k]);
            let path = if STRUCTS[at].is_empty() { key.clone() } else { format!("{}.{key}", STRUCTS[at]) };
            expected.retain(|p| p != &path);
            if !is_zero(&value) {
                expected.push(path);
            }
            parent.as_object_mut().unwrap().insert(key, value);
        }
        // Keys are visited sorted at every level: the paths come out sorted by segment.
        expected.sort_by(|a, b| a.split('.').cmp(b.split('.')));
        let dropped = agree(&object, file);
        prop_assert_eq!(dropped, expected);
    }
}
