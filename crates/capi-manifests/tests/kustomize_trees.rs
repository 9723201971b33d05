//! The kustomize emulation renders each real provider tree into what `kubectl kustomize`
//! renders (`tests/fixtures/provider-trees/*/rendered.yaml`, see the README there): the same
//! resources, equal value for value.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::collections::BTreeMap;

use capi_manifests::{Limits, load::load};
use capi_test_support::{fixture, yaml_docs};
use serde_json::Value;

fn key(v: &Value) -> (String, String) {
    (
        v["kind"].as_str().unwrap_or_default().to_owned(),
        v["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    )
}

fn first_difference(path: &str, ours: &Value, theirs: &Value) -> Option<String> {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| match (a.get(k), b.get(k)) {
                (Some(x), Some(y)) => first_difference(&format!("{path}.{k}"), x, y),
                (x, y) => Some(format!("{path}.{k}: ours {x:?}, kustomize {y:?}")),
            })
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| first_difference(&format!("{path}[{i}]"), x, y)),
        // kustomize prints some numbers as floats and some as ints: compare as numbers.
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => None,
        _ if ours == theirs => None,
        _ => Some(format!("{path}: ours {ours}, kustomize {theirs}")),
    }
}

#[test]
fn trees_render_like_kubectl_kustomize() {
    for tree in ["capz", "capa", "capi-dev"] {
        let loaded = load(
            &[fixture(&format!("provider-trees/{tree}/config/crd"))],
            Limits::default(),
        )
        .unwrap();
        let ours: BTreeMap<_, _> = loaded
            .documents
            .iter()
            .map(|d| (key(&d.value), &d.value))
            .collect();
        let theirs: Vec<Value> = yaml_docs(&format!("provider-trees/{tree}/rendered.yaml"));
        assert_eq!(ours.len(), theirs.len(), "{tree}: number of resources");
        for expected in &theirs {
            let k = key(expected);
            let got = ours
                .get(&k)
                .unwrap_or_else(|| panic!("{tree}: {k:?} not rendered"));
            if let Some(diff) = first_difference("", got, expected) {
                panic!("{tree}: {k:?} differs at {diff}");
            }
        }
        // Both trees use `configurations:` (transformer configs): named, harmless for CRDs.
        assert!(
            loaded
                .notes
                .iter()
                .any(|n| n.field == "configurations" && !n.may_change_resources),
            "{tree}: {:?}",
            loaded.notes
        );
    }
}
