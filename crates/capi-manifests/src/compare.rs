//! Reconciling what the real kustomize rendered with what the emulator rendered: the
//! rendered objects are kept (the verdict follows kustomize), each takes the source file and
//! line of the emulated object with the same API group, kind and name, and every difference in
//! what a checker reads (the name, the labels, the spec) is reported in one line.

use std::collections::HashMap;

use serde_json::Value;

use crate::Document;

/// `(group, kind, name)` of an object.
fn key(value: &Value) -> (String, String, String) {
    let api = value["apiVersion"].as_str().unwrap_or_default();
    let group = capi_versions::GroupVersion::split(api).group;
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    (
        group.to_owned(),
        text(&value["kind"]),
        text(&value["metadata"]["name"]),
    )
}

/// The rendered documents, with the emulator's sources where it has the same object, and one
/// line for each object whose name, labels or spec the two renderings disagree on (or which
/// only one of them has).
#[must_use]
pub fn reconcile(
    rendered: Vec<Document>,
    emulated: Option<&[Document]>,
) -> (Vec<Document>, Vec<String>) {
    let Some(emulated) = emulated else {
        return (rendered, Vec::new());
    };
    let mut by_key: HashMap<_, &Document> = emulated.iter().map(|d| (key(&d.value), d)).collect();
    let mut differences = Vec::new();
    let mut out = Vec::with_capacity(rendered.len());
    for mut doc in rendered {
        let k = key(&doc.value);
        match by_key.remove(&k) {
            Some(emu) => {
                let differs = ["labels"]
                    .iter()
                    .any(|f| doc.value["metadata"][f] != emu.value["metadata"][f])
                    || doc.value["spec"] != emu.value["spec"];
                if differs {
                    differences.push(format!(
                        "{} {} renders differently in the emulator ({}): labels or spec differ; its findings point at that base file, not at a patch or kustomization entry",
                        k.1,
                        k.2,
                        emu.source.location()
                    ));
                }
                doc.source = emu.source.clone();
                // Where each value is written in the base file holds either way.
                doc.positions.clone_from(&emu.positions);
                // What set a value is the emulator's account: kept only where it renders the
                // same labels and spec as kustomize.
                if !differs {
                    doc.set_by = emu.set_by.clone();
                }
            }
            None => differences.push(format!(
                "{} {} is rendered by kustomize but not by the emulator",
                k.1, k.2
            )),
        }
        out.push(doc);
    }
    let mut left: Vec<_> = by_key.into_values().collect();
    left.sort_by(|a, b| a.source.cmp(&b.source));
    for emu in left {
        let k = key(&emu.value);
        differences.push(format!(
            "{} {} is rendered by the emulator ({}) but not by kustomize",
            k.1,
            k.2,
            emu.source.location()
        ));
    }
    (out, differences)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Source;
    use serde_json::json;

    #[test]
    fn sources_come_from_the_emulator_and_values_from_kustomize() {
        let crd = |label: &str| {
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "metadata": {"name": "a.x", "labels": {"l": label}}, "spec": {}})
        };
        let rendered = vec![Document::new(
            Source::new("kustomize", 0, 1),
            crd("v1beta9"),
        )];
        let emulated = vec![Document::new(
            Source::new("bases/a.yaml", 0, 3),
            crd("v1beta2"),
        )];
        let (docs, diffs) = reconcile(rendered, Some(&emulated));
        assert_eq!(docs[0].source.location(), "bases/a.yaml:3");
        assert_eq!(docs[0].value["metadata"]["labels"]["l"], "v1beta9");
        assert_eq!(diffs.len(), 1, "{diffs:?}");
        let (_, none) = reconcile(
            docs,
            Some(&[Document::new(Source::new("b", 0, 1), crd("v1beta9"))]),
        );
        assert!(none.is_empty(), "{none:?}");
    }
}
