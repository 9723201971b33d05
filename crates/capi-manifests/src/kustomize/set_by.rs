//! What a kustomization sets in a resource, for [`crate::SetBy`]: the fields a strategic
//! merge patch or a JSON patch writes, recorded on the document with the patch's source.

use serde_json::Value;

use crate::Source;
use crate::parse::Document;

/// Records that `field` (its document at `source`) set the values at `paths` of `doc`.
pub(super) fn record(doc: &mut Document, paths: Vec<Vec<String>>, source: &Source, field: &str) {
    doc.set_by
        .extend(paths.into_iter().map(|path| crate::SetBy {
            path,
            source: source.clone(),
            field: field.to_owned(),
        }));
}

/// The keys of every value a strategic merge patch sets, through mappings: a scalar, a
/// `null` (a deletion) or an empty mapping; a list is merged item by item, not recorded.
/// The keys that select the resource (`apiVersion`, `kind`, `metadata.name`,
/// `metadata.namespace`) and `$patch` directives are not values it sets.
pub(super) fn merge_patch_paths(patch: &Value) -> Vec<Vec<String>> {
    fn walk(node: &Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        match node {
            Value::Object(map) if !map.is_empty() => {
                for (key, child) in map {
                    let selects =
                        matches!((path.as_slice(), key.as_str()), ([], "apiVersion" | "kind"))
                            || (path.len() == 1
                                && path[0] == "metadata"
                                && matches!(key.as_str(), "name" | "namespace"));
                    if selects || key.starts_with('$') {
                        continue;
                    }
                    path.push(key.clone());
                    walk(child, path, out);
                    path.pop();
                }
            }
            Value::Array(_) => {}
            _ => out.push(path.clone()),
        }
    }
    let mut out = Vec::new();
    walk(patch, &mut Vec::new(), &mut out);
    out
}

/// The keys of the paths a JSON patch's operations write (`add`, `replace`, `remove`,
/// `copy`, `move`), decoded from their JSON pointers.
pub(super) fn json_patch_paths(patch: &Value) -> Vec<Vec<String>> {
    patch
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter(|op| op["op"] != "test")
        .filter_map(|op| op["path"].as_str())
        .map(|pointer| {
            pointer
                .split('/')
                .skip(1)
                .map(|k| k.replace("~1", "/").replace("~0", "~"))
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn keys(paths: &[Vec<String>]) -> Vec<String> {
        paths.iter().map(|p| p.join("/")).collect()
    }

    #[test]
    fn a_merge_patch_sets_its_scalars_and_nulls_not_what_selects_or_lists() {
        let patch = json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "n", "namespace": "x", "labels": {"a": "1", "b": null},
                         "annotations": {}},
            "spec": {"versions": [{"name": "v1"}], "conversion": {"strategy": "None"}},
            "$patch": "merge"
        });
        assert_eq!(
            keys(&merge_patch_paths(&patch)),
            [
                "metadata/annotations",
                "metadata/labels/a",
                "metadata/labels/b",
                "spec/conversion/strategy"
            ]
        );
    }

    #[test]
    fn a_json_patch_sets_the_paths_of_its_operations() {
        let patch = json!([
            {"op": "add", "path": "/metadata/labels/cluster.x-k8s.io~1v1beta2", "value": "v1"},
            {"op": "remove", "path": "/spec/versions/0"},
            {"op": "test", "path": "/t", "value": 1},
            {"op": "replace", "path": "/a~0b", "value": 1}
        ]);
        let expected: Vec<Vec<&str>> = vec![
            vec!["metadata", "labels", "cluster.x-k8s.io/v1beta2"],
            vec!["spec", "versions", "0"],
            vec!["a~b"],
        ];
        assert_eq!(json_patch_paths(&patch), expected);
    }

    #[test]
    fn the_last_setter_wins_and_a_setter_covers_what_it_holds() {
        let mut doc = Document::new(Source::new("base.yaml", 0, 1), json!({}));
        let patch = Source::new("patch.yaml", 1, 8);
        let kustomization = Source::new("kustomization.yaml", 0, 4);
        record(
            &mut doc,
            vec![vec!["metadata".into(), "labels".into(), "a".into()]],
            &patch,
            "patches[0]",
        );
        record(
            &mut doc,
            vec![vec!["metadata".into(), "labels".into(), "a".into()]],
            &kustomization,
            "labels",
        );
        record(
            &mut doc,
            vec![vec!["spec".into(), "conversion".into()]],
            &patch,
            "patches[1]",
        );
        assert_eq!(
            doc.set_by_at(&["metadata", "labels", "a"]).unwrap().field,
            "labels"
        );
        assert_eq!(
            doc.set_by_at(&["spec", "conversion", "strategy"])
                .unwrap()
                .field,
            "patches[1]"
        );
        assert!(doc.set_by_at(&["spec"]).is_none());
        assert!(doc.set_by_at(&["metadata", "labels", "b"]).is_none());
    }
}
