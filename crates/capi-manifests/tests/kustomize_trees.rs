//! The kustomize emulation renders each real provider tree into what `kubectl kustomize`
//! renders (`tests/fixtures/provider-trees/*/rendered.yaml`, see the README there): the same
//! resources, equal value for value.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_test_support::{Numbers, first_difference};
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
            if let Some(diff) = first_difference(got, expected, "kustomize", Numbers::ByValue) {
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
