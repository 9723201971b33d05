//! What a kustomization sets in a resource, for [`crate::SetBy`]: the fields a strategic
//! merge patch or a JSON patch writes, recorded on the document with the patch's source and
//! the line in it that sets each one.

use serde_json::Value;

use crate::parse::Document;
use crate::{Position, Positions, Source};

/// A path a kustomization set, and where in the setter's file it is set (when known).
pub(super) type SetPath = (Vec<String>, Option<Position>);

/// Records that `field` (its document at `source`) set the values at `paths` of `doc`.
pub(super) fn record(doc: &mut Document, paths: Vec<SetPath>, source: &Source, field: &str) {
    doc.set_by
        .extend(paths.into_iter().map(|(path, at)| crate::SetBy {
            path,
            source: source.clone(),
            field: field.to_owned(),
            at,
        }));
}

/// The keys of every value a strategic merge patch sets, through mappings: a scalar, a
/// `null` (a deletion) or an empty mapping; a list is merged item by item, not recorded.
/// The keys that select the resource (`apiVersion`, `kind`, `metadata.name`,
/// `metadata.namespace`) and `$patch` directives are not values it sets. Each with the
/// position of its key in the patch, when `positions` are known.
pub(super) fn merge_patch_paths(patch: &Value, positions: Option<&Positions>) -> Vec<SetPath> {
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
    out.into_iter()
        .map(|path| {
            let keys: Vec<&str> = path.iter().map(String::as_str).collect();
            let at = positions.and_then(|p| p.child(&keys)).map(Positions::at);
            (path, at)
        })
        .collect()
}

/// `path` with each list index replaced by the `name` of the item there in `doc`, when it
/// has one: findings name list items by name (`spec.versions[v1beta2]`).
pub(super) fn named(doc: &Value, path: Vec<String>) -> Vec<String> {
    let mut node = Some(doc);
    path.into_iter()
        .map(|key| {
            let here = node;
            node = here.and_then(|n| match n {
                Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
                other => other.get(&key),
            });
            match (
                here,
                node.and_then(|n| n.get("name")).and_then(Value::as_str),
            ) {
                (Some(Value::Array(_)), Some(name)) => name.to_owned(),
                _ => key,
            }
        })
        .collect()
}

/// The keys of the paths a JSON patch's operations write (`add`, `replace`, `remove`,
/// `copy`, `move`), decoded from their JSON pointers; each with the position of the
/// operation's `value` (its `path` for an operation without one) in the patch, when known.
pub(super) fn json_patch_paths(patch: &Value, positions: Option<&Positions>) -> Vec<SetPath> {
    patch
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .enumerate()
        .filter(|(_, op)| op["op"] != "test")
        .filter_map(|(i, op)| Some((i, op, op["path"].as_str()?)))
        .map(|(i, op, pointer)| {
            let index = i.to_string();
            let key = if op.get("value").is_some() {
                "value"
            } else {
                "path"
            };
            let at = positions
                .and_then(|p| p.child(&[&index, key]).or_else(|| p.child(&[&index])))
                .map(Positions::at);
            let path = pointer
                .split('/')
                .skip(1)
                .map(|k| k.replace("~1", "/").replace("~0", "~"))
                .collect();
            (path, at)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn keys(paths: &[SetPath]) -> Vec<String> {
        paths.iter().map(|(p, _)| p.join("/")).collect()
    }

    fn unplaced(paths: &[&[&str]]) -> Vec<SetPath> {
        paths
            .iter()
            .map(|p| (p.iter().map(|k| (*k).to_owned()).collect(), None))
            .collect()
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
            keys(&merge_patch_paths(&patch, None)),
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
        assert_eq!(
            keys(&json_patch_paths(&patch, None)),
            [
                "metadata/labels/cluster.x-k8s.io/v1beta2",
                "spec/versions/0",
                "a~b"
            ]
        );
    }

    #[test]
    fn the_last_setter_wins_and_a_setter_covers_what_it_holds() {
        let mut doc = Document::new(Source::new("base.yaml", 0, 1), json!({}));
        let patch = Source::new("patch.yaml", 1, 8);
        let kustomization = Source::new("kustomization.yaml", 0, 4);
        record(
            &mut doc,
            unplaced(&[&["metadata", "labels", "a"]]),
            &patch,
            "patches[0]",
        );
        record(
            &mut doc,
            unplaced(&[&["metadata", "labels", "a"]]),
            &kustomization,
            "labels",
        );
        record(
            &mut doc,
            unplaced(&[&["spec", "conversion"]]),
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
        // A patch of a schema field's `type` set that field, not the fields holding it.
        let field = ["spec", "versions", "v1", "properties", "replicas"];
        let mut typed: Vec<&str> = field.to_vec();
        typed.push("type");
        record(&mut doc, unplaced(&[&typed]), &patch, "patchesJson6902[0]");
        assert_eq!(doc.set_by_at(&field).unwrap().field, "patchesJson6902[0]");
        assert!(doc.set_by_at(&field[..4]).is_none());
        assert!(doc.set_by_at(&["metadata", "labels", "b"]).is_none());
    }
}
