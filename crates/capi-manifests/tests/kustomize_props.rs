//! The property half of the differential suite (issue 27): kustomizations generated from the
//! emulated feature set (`labels`, `commonLabels`, `patches` with regular-expression targets,
//! strategic merge and JSON 6902 patches, `patchesJson6902`, a nested base, a `Component`)
//! over the real CRDs of `tests/fixtures/kustomize-trees/base/bases` (Cluster API's test
//! provider, see the SOURCE note in that README), written into a temporary directory and
//! rendered by the emulator and by `kubectl kustomize`. The expectation is kubectl's output,
//! not the emulator's: both must refuse the tree, or both render the same objects with the
//! same kind, name, labels and spec (versions and schemas: what the checker reads). Without
//! kubectl it prints "skipped: kubectl not found", and fails when `CI=true`.
#![allow(clippy::unwrap_used, clippy::panic, clippy::expect_used)]

use std::fmt::Write as _;
use std::path::Path;

use capi_manifests::{Limits, ManifestError, kustomize::require_emulated, load::load};
use capi_test_support::fixture;
use capi_test_support::kubectl::{self, checked_parts as read};
use proptest::prelude::*;
use serde_json::Value;

/// `kubectl kustomize DIR`: the rendered objects, or `Err(stderr)` when kustomize refuses.
fn kubectl_render(dir: &Path) -> Result<Vec<Value>, String> {
    let text = kubectl::kustomize(dir).map_err(|refused| refused.stderr)?;
    Ok(
        capi_manifests::load::documents(&text, "kubectl", &Limits::default())
            .unwrap()
            .into_iter()
            .map(|d| d.value)
            .collect(),
    )
}

const KEYS: &[&str] = &["cluster.x-k8s.io/v1beta2", "example.com/tier"];
const VALUES: &[&str] = &["v1beta2", "v1beta9"];
const KINDS: &[&str] = &[
    "CustomResourceDefinition",
    "CustomResource.*",
    "Custom",
    ".*Definition",
    "Dev.*",
];
const NAMES: &[&str] = &[
    "devmachinepools.*",
    "devmachinepools.infrastructure.cluster.x-k8s.io",
    "dev.*",
    "devmachinepool",
    ".*templates.*",
];
const GROUPS: &[&str] = &[
    "apiextensions.k8s.io",
    "apiextensions\\..*",
    "apps",
    "apiext",
];
const VERSIONS: &[&str] = &["v1", "v.", "v1beta1", "v"];
const CRD_NAMES: &[&str] = &[
    "devmachinepools.infrastructure.cluster.x-k8s.io",
    "devmachinepooltemplates.infrastructure.cluster.x-k8s.io",
    "nosuch.infrastructure.cluster.x-k8s.io",
];

/// One generated patch.
#[derive(Clone, Debug)]
enum Patch {
    /// A JSON 6902 patch under `patches` (or `patchesJson6902`) with a target.
    Json {
        legacy: bool,
        target: TargetSpec,
        op: JsonOp,
    },
    /// A strategic merge patch under `patches`, with or without a target.
    Smp {
        target: Option<TargetSpec>,
        name: usize,
        label: (usize, usize),
        version: bool,
    },
}

#[derive(Clone, Debug)]
struct TargetSpec {
    kind: Option<usize>,
    name: Option<usize>,
    group: Option<usize>,
    version: Option<usize>,
}

#[derive(Clone, Debug)]
enum JsonOp {
    RenameVersion,
    AddLabel(usize, usize),
    RemoveLabel(usize),
    TestNull,
}

#[derive(Clone, Debug)]
struct Layer {
    labels: Option<(usize, usize)>,
    common: Option<(usize, usize)>,
    patches: Vec<Patch>,
}

#[derive(Clone, Debug)]
struct Case {
    top: Layer,
    /// A nested base (`mid/`) with its own layer, instead of listing the CRD files directly.
    nested: Option<Layer>,
    /// A `Component` (`comp/`) with its own patches: not emulated, so the emulator must refuse
    /// the tree naming `components`.
    component: Option<Vec<Patch>>,
}

fn pair() -> impl Strategy<Value = (usize, usize)> {
    (0..KEYS.len(), 0..VALUES.len())
}

fn target() -> impl Strategy<Value = TargetSpec> {
    (
        proptest::option::of(0..KINDS.len()),
        proptest::option::of(0..NAMES.len()),
        proptest::option::of(0..GROUPS.len()),
        proptest::option::of(0..VERSIONS.len()),
    )
        .prop_map(|(kind, name, group, version)| TargetSpec {
            kind,
            name,
            group,
            version,
        })
}

fn patch() -> impl Strategy<Value = Patch> {
    let op = prop_oneof![
        Just(JsonOp::RenameVersion),
        pair().prop_map(|(k, v)| JsonOp::AddLabel(k, v)),
        (0..KEYS.len()).prop_map(JsonOp::RemoveLabel),
        Just(JsonOp::TestNull),
    ];
    prop_oneof![
        (any::<bool>(), target(), op).prop_map(|(legacy, target, op)| Patch::Json {
            legacy,
            target,
            op
        }),
        (
            proptest::option::of(target()),
            0..CRD_NAMES.len(),
            pair(),
            any::<bool>()
        )
            .prop_map(|(target, name, label, version)| Patch::Smp {
                target,
                name,
                label,
                version
            }),
    ]
}

fn layer() -> impl Strategy<Value = Layer> {
    (
        proptest::option::of(pair()),
        proptest::option::of(pair()),
        proptest::collection::vec(patch(), 0..3),
    )
        .prop_map(|(labels, common, patches)| Layer {
            labels,
            common,
            patches,
        })
}

fn case() -> impl Strategy<Value = Case> {
    (
        layer(),
        proptest::option::of(layer()),
        // Components are not emulated (an error naming `components`): rarely.
        proptest::option::weighted(0.15, proptest::collection::vec(patch(), 1..3)),
    )
        .prop_map(|(top, nested, component)| Case {
            top,
            nested,
            component,
        })
}

fn target_yaml(t: &TargetSpec, out: &mut String) {
    out.push_str("  target:\n");
    let mut any = false;
    for (field, table, choice) in [
        ("kind", KINDS, t.kind),
        ("name", NAMES, t.name),
        ("group", GROUPS, t.group),
        ("version", VERSIONS, t.version),
    ] {
        if let Some(i) = choice {
            writeln!(out, "    {field}: '{}'", table[i]).unwrap();
            any = true;
        }
    }
    if !any {
        out.push_str("    kind: CustomResourceDefinition\n");
    }
}

/// A JSON pointer token for a label key (`/` is `~1`).
fn pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn patches_yaml(patches: &[Patch], out: &mut String) {
    let (legacy, rest): (Vec<&Patch>, Vec<&Patch>) = patches
        .iter()
        .partition(|p| matches!(p, Patch::Json { legacy: true, .. }));
    for (field, list) in [("patches", rest), ("patchesJson6902", legacy)] {
        if list.is_empty() {
            continue;
        }
        writeln!(out, "{field}:").unwrap();
        for p in list {
            out.push_str("-\n");
            match p {
                Patch::Json { target, op, .. } => {
                    let mut t = target.clone();
                    if field == "patchesJson6902" && t.name.is_none() {
                        // patchesJson6902 needs a name.
                        t.name = Some(0);
                    }
                    target_yaml(&t, out);
                    out.push_str("  patch: |-\n");
                    let text = match op {
                        JsonOp::RenameVersion => {
                            "- op: replace\n  path: /spec/versions/0/name\n  value: v1beta9"
                                .to_owned()
                        }
                        JsonOp::AddLabel(k, v) => format!(
                            "- op: add\n  path: /metadata/labels/{}\n  value: {}",
                            pointer(KEYS[*k]),
                            VALUES[*v]
                        ),
                        JsonOp::RemoveLabel(k) => format!(
                            "- op: remove\n  path: /metadata/labels/{}",
                            pointer(KEYS[*k])
                        ),
                        JsonOp::TestNull => "- op: test\n  path: /spec/nosuch\n  value: null\n- op: replace\n  path: /spec/versions/0/name\n  value: v1beta8".to_owned(),
                    };
                    for line in text.lines() {
                        writeln!(out, "    {line}").unwrap();
                    }
                }
                Patch::Smp {
                    target,
                    name,
                    label,
                    version,
                } => {
                    if let Some(t) = target {
                        target_yaml(t, out);
                    }
                    out.push_str("  patch: |-\n");
                    writeln!(out, "    apiVersion: apiextensions.k8s.io/v1").unwrap();
                    writeln!(out, "    kind: CustomResourceDefinition").unwrap();
                    writeln!(out, "    metadata:\n      name: {}", CRD_NAMES[*name]).unwrap();
                    writeln!(
                        out,
                        "      labels:\n        {}: {}",
                        KEYS[label.0], VALUES[label.1]
                    )
                    .unwrap();
                    if *version {
                        out.push_str("    spec:\n      versions:\n      - name: v1beta2\n        served: false\n");
                    }
                }
            }
        }
    }
}

fn layer_yaml(layer: &Layer, resources: &[&str], components: bool) -> String {
    let mut out = String::from("resources:\n");
    for r in resources {
        writeln!(out, "- {r}").unwrap();
    }
    if let Some((k, v)) = layer.labels {
        writeln!(out, "labels:\n- pairs:\n    {}: {}", KEYS[k], VALUES[v]).unwrap();
    }
    if let Some((k, v)) = layer.common {
        writeln!(out, "commonLabels:\n  {}: {}", KEYS[k], VALUES[v]).unwrap();
    }
    patches_yaml(&layer.patches, &mut out);
    if components {
        out.push_str("components:\n- comp\n");
    }
    out
}

fn copy_bases(dir: &Path) {
    let bases = fixture("kustomize-trees/base/bases");
    std::fs::create_dir_all(dir.join("bases")).unwrap();
    for file in ["pools.yaml", "pooltemplates.yaml"] {
        std::fs::copy(bases.join(file), dir.join("bases").join(file)).unwrap();
    }
}

/// Writes the tree of `case` into `root`; returns the files, for a failure message.
fn write(case: &Case, root: &Path) -> String {
    let files = ["bases/pools.yaml", "bases/pooltemplates.yaml"];
    let top_resources: Vec<&str> = if let Some(mid) = &case.nested {
        let dir = root.join("mid");
        copy_bases(&dir);
        let text = layer_yaml(mid, &files, false);
        std::fs::write(dir.join("kustomization.yaml"), &text).unwrap();
        vec!["mid"]
    } else {
        copy_bases(root);
        files.to_vec()
    };
    let mut shown = String::new();
    if let Some(patches) = &case.component {
        let dir = root.join("comp");
        std::fs::create_dir_all(&dir).unwrap();
        let mut text =
            String::from("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n");
        patches_yaml(patches, &mut text);
        std::fs::write(dir.join("kustomization.yaml"), &text).unwrap();
        writeln!(shown, "--- comp/kustomization.yaml\n{text}").unwrap();
    }
    let text = layer_yaml(&case.top, &top_resources, case.component.is_some());
    std::fs::write(root.join("kustomization.yaml"), &text).unwrap();
    writeln!(shown, "--- kustomization.yaml\n{text}").unwrap();
    if case.nested.is_some() {
        let mid = std::fs::read_to_string(root.join("mid/kustomization.yaml")).unwrap();
        writeln!(shown, "--- mid/kustomization.yaml\n{mid}").unwrap();
    }
    shown
}

proptest! {
    // kubectl kustomize takes ~50 ms a run: a modest number of cases.
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn generated_kustomizations_render_like_kubectl_kustomize(case in case()) {
        if !kubectl::available() {
            return Ok(());
        }
        let root = tempfile::tempdir().unwrap();
        let shown = write(&case, root.path());
        let theirs = kubectl_render(root.path());
        let dir = root.path().to_path_buf();
        let ours = load(std::slice::from_ref(&dir), Limits::default())
            .and_then(|l| require_emulated(&l.notes).map(|()| l));
        match (theirs, ours) {
            (Ok(theirs), Ok(ours)) => {
                let ours: Vec<Value> = ours.documents.into_iter().map(|d| d.value).collect();
                prop_assert_eq!(read(&ours), read(&theirs), "{}", shown);
            }
            (Err(why), Ok(_)) => {
                prop_assert!(false, "kubectl refuses it ({}), the emulator renders it:\n{}", why, shown);
            }
            // Not emulated: `components` (issue 27: an error naming the field, never a pass).
            (Ok(_), Err(ManifestError::NotEmulated { field, .. }))
                if case.component.is_some() && field == "components" => {}
            (Ok(_), Err(e)) => {
                prop_assert!(false, "kubectl renders it, the emulator refuses it ({}):\n{}", e, shown);
            }
            (Err(_), Err(_)) => {}
        }
    }
}
