//! Differential suite: every kustomization tree under `tests/fixtures` (the real provider trees
//! and `kustomize-trees`) rendered by the emulator and by `kubectl kustomize`: where kubectl
//! renders, the emulator renders the same objects with the same names, labels and spec (what
//! the checker reads); where kubectl refuses the tree, the emulator refuses it too (an error,
//! `NotEmulated` included). Without kubectl it prints "skipped: kubectl not found", and fails
//! when `CI=true`.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;

use capi_manifests::{Limits, ManifestError, kustomize::require_emulated, load::load};
use capi_test_support::fixture;
use capi_test_support::kubectl::{self, checked_parts as read};
use serde_json::Value;

fn kubectl_render(dir: &std::path::Path) -> Option<Vec<Value>> {
    let text = kubectl::kustomize(dir).ok()?;
    Some(
        capi_manifests::load::documents(&text, "kubectl", &Limits::default())
            .unwrap()
            .into_iter()
            .map(|d| d.value)
            .collect(),
    )
}

#[test]
fn every_fixture_tree_renders_like_kubectl_kustomize() {
    if !kubectl::available() {
        return;
    }
    let mut trees: Vec<PathBuf> = ["capz", "capa", "capi-dev"]
        .iter()
        .map(|t| fixture(&format!("provider-trees/{t}/config/crd")))
        .collect();
    let mut classes: Vec<PathBuf> = std::fs::read_dir(fixture("kustomize-trees"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && !p.ends_with("preflight-remote-resource"))
        .collect();
    classes.sort();
    trees.extend(classes);
    for dir in trees {
        let theirs = kubectl_render(&dir);
        let ours = load(std::slice::from_ref(&dir), Limits::default())
            .and_then(|l| require_emulated(&l.notes).map(|()| l));
        match (theirs, ours) {
            (Some(theirs), Ok(ours)) => {
                let ours: Vec<Value> = ours.documents.into_iter().map(|d| d.value).collect();
                assert_eq!(read(&ours), read(&theirs), "{}", dir.display());
            }
            (None, Ok(_)) => panic!(
                "{}: kubectl refuses it, the emulator renders it",
                dir.display()
            ),
            // kubectl renders it: the emulator may only say what it does not emulate.
            (Some(_), Err(e)) => assert!(
                matches!(e, ManifestError::NotEmulated { .. }),
                "{}: kubectl renders it, the emulator fails: {e}",
                dir.display()
            ),
            // Refused by both.
            (None, Err(_)) => {}
        }
    }
}

/// kustomize applies a kustomization's `components` before its own patches, so a patch may
/// remove what a component added (tests/fixtures/kustomize-trees/components-then-patch,
/// recorded in its README: kubectl renders it, and refuses the same tree without the
/// component). The emulator does not run components: its patch fails, and it reports the
/// component as not emulated rather than the patch as refused.
#[test]
fn a_patch_relying_on_a_component_is_reported_as_the_component_not_emulated() {
    let dir = fixture("kustomize-trees/components-then-patch");
    match load(std::slice::from_ref(&dir), Limits::default()) {
        Err(ManifestError::NotEmulated { path, field }) => {
            assert_eq!(field, "components");
            assert!(
                path.ends_with("components-then-patch/kustomization.yaml"),
                "{path}"
            );
        }
        other => panic!("expected components not emulated, got {other:?}"),
    }
    if kubectl::available() {
        let rendered = kubectl_render(&dir).expect("kubectl renders the tree");
        assert_eq!(rendered.len(), 2);
        for crd in &rendered {
            assert!(
                crd["metadata"]["annotations"]
                    .get("example.com/from-component")
                    .is_none()
            );
        }
    }
}

/// A patch whose explicit target matches nothing: `kubectl kustomize` (v5.5.0) renders the tree
/// unchanged without a message (recorded in tests/fixtures/kustomize-trees/README.md, re-run
/// above by `every_fixture_tree_renders_like_kubectl_kustomize`). The emulator renders it the
/// same (the labels of `base`, patch not applied) and says so in an INFO that cannot change
/// the resources, so `--kustomize never` does not refuse it.
#[test]
fn explicit_target_matching_nothing_is_skipped_like_kustomize() {
    let base = load(&[fixture("kustomize-trees/base")], Limits::default()).unwrap();
    let base: Vec<Value> = base.documents.into_iter().map(|d| d.value).collect();
    for tree in ["smp-target-no-match", "json-target-no-match"] {
        let loaded = load(
            &[fixture(&format!("kustomize-trees/{tree}"))],
            Limits::default(),
        )
        .unwrap();
        require_emulated(&loaded.notes).unwrap();
        assert_eq!(loaded.notes.len(), 1, "{tree}: {:?}", loaded.notes);
        assert!(
            loaded.notes[0].message.contains("matches no resource")
                && !loaded.notes[0].may_change_resources,
            "{tree}: {:?}",
            loaded.notes
        );
        let ours: Vec<Value> = loaded.documents.into_iter().map(|d| d.value).collect();
        assert_eq!(read(&ours), read(&base), "{tree}");
    }
}
