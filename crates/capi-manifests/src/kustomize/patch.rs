//! The two patch formats of kustomize: strategic merge patches (as kustomize applies them to
//! kinds it has no merge keys for, CustomResourceDefinitions included: maps merge, `null`
//! deletes, lists are replaced, `$patch: replace` / `$patch: delete` directives) and JSON
//! patches (RFC 6902), whose results stay within the limits of a parsed document.

use serde_json::{Map, Value};

use crate::Limits;
use crate::budget::{depth, nodes};

/// Applies a strategic merge patch to a resource as kustomize does: a `$patch: replace` at the
/// root of the patch is ignored (`kubectl kustomize` leaves the resource unchanged, checked on
/// kubectl v1.32 (kustomize v5.5.0) with a patch holding only `metadata`), everything else as [`strategic_merge`].
pub fn patch_resource(resource: &mut Value, patch: &Value) {
    if patch.get("$patch").and_then(Value::as_str) == Some("replace") {
        return;
    }
    strategic_merge(resource, patch);
}

/// Merges a strategic merge patch into `target` (see the module docs).
pub fn strategic_merge(target: &mut Value, patch: &Value) {
    match (target, patch) {
        (Value::Object(t), Value::Object(p)) => {
            if p.get("$patch").and_then(Value::as_str) == Some("replace") {
                *t = without_directives(p);
                return;
            }
            for (key, value) in p {
                if key.starts_with('$') {
                    continue;
                }
                let delete = value.is_null()
                    || value.get("$patch").and_then(Value::as_str) == Some("delete");
                if delete {
                    t.remove(key);
                    continue;
                }
                match t.get_mut(key) {
                    Some(existing) if existing.is_object() && value.is_object() => {
                        strategic_merge(existing, value);
                    }
                    _ => {
                        t.insert(key.clone(), clean(value));
                    }
                }
            }
        }
        (t, p) => *t = clean(p),
    }
}

fn without_directives(map: &Map<String, Value>) -> Map<String, Value> {
    map.iter()
        .filter(|(k, _)| !k.starts_with('$'))
        .map(|(k, v)| (k.clone(), clean(v)))
        .collect()
}

/// A patch value as it lands in the target: directives and `null`s removed.
fn clean(value: &Value) -> Value {
    match value {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, v)| !k.starts_with('$') && !v.is_null())
                .map(|(k, v)| (k.clone(), clean(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(clean).collect()),
        other => other.clone(),
    }
}

/// True when a strategic merge patch deletes the whole resource (`$patch: delete` at its root).
#[must_use]
pub fn deletes_resource(patch: &Value) -> bool {
    patch.get("$patch").and_then(Value::as_str) == Some("delete")
}

/// Why a JSON patch could not be applied.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("operation {index} ({op} {path}): {reason}")]
pub struct JsonPatchError {
    /// Index of the operation.
    pub index: usize,
    /// The operation.
    pub op: String,
    /// Its path.
    pub path: String,
    /// What went wrong.
    pub reason: String,
}

fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

fn tokens(pointer: &str) -> Result<Vec<String>, String> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let rest = pointer
        .strip_prefix('/')
        .ok_or_else(|| "a path must start with /".to_owned())?;
    Ok(rest.split('/').map(unescape).collect())
}

fn parent<'a>(doc: &'a mut Value, tokens: &[String]) -> Result<&'a mut Value, String> {
    let mut node = doc;
    for token in tokens {
        node = match node {
            Value::Object(m) => m
                .get_mut(token)
                .ok_or_else(|| format!("{token:?} does not exist"))?,
            Value::Array(a) => {
                let i: usize = token
                    .parse()
                    .map_err(|_| format!("{token:?} is not an index"))?;
                a.get_mut(i)
                    .ok_or_else(|| format!("index {i} is out of range"))?
            }
            _ => return Err(format!("{token:?} is inside a scalar")),
        };
    }
    Ok(node)
}

fn get<'a>(doc: &'a Value, tokens: &[String]) -> Result<&'a Value, String> {
    let mut node = doc;
    for token in tokens {
        node = match node {
            Value::Object(m) => m
                .get(token)
                .ok_or_else(|| format!("{token:?} does not exist"))?,
            Value::Array(a) => {
                let i: usize = token
                    .parse()
                    .map_err(|_| format!("{token:?} is not an index"))?;
                a.get(i)
                    .ok_or_else(|| format!("index {i} is out of range"))?
            }
            _ => return Err(format!("{token:?} is inside a scalar")),
        };
    }
    Ok(node)
}

fn add(doc: &mut Value, tokens: &[String], value: Value) -> Result<(), String> {
    let Some((last, init)) = tokens.split_last() else {
        *doc = value;
        return Ok(());
    };
    match parent(doc, init)? {
        Value::Object(m) => {
            m.insert(last.clone(), value);
            Ok(())
        }
        Value::Array(a) if last == "-" => {
            a.push(value);
            Ok(())
        }
        Value::Array(a) => {
            let i: usize = last
                .parse()
                .map_err(|_| format!("{last:?} is not an index"))?;
            if i > a.len() {
                return Err(format!("index {i} is out of range"));
            }
            a.insert(i, value);
            Ok(())
        }
        _ => Err("the parent is a scalar".into()),
    }
}

fn remove(doc: &mut Value, tokens: &[String]) -> Result<Value, String> {
    let (last, init) = tokens
        .split_last()
        .ok_or_else(|| "cannot remove the whole document".to_owned())?;
    match parent(doc, init)? {
        Value::Object(m) => m
            .remove(last)
            .ok_or_else(|| format!("{last:?} does not exist")),
        Value::Array(a) => {
            let i: usize = last
                .parse()
                .map_err(|_| format!("{last:?} is not an index"))?;
            if i >= a.len() {
                return Err(format!("index {i} is out of range"));
            }
            Ok(a.remove(i))
        }
        _ => Err("the parent is a scalar".into()),
    }
}

/// The size of a document being patched: its nodes, kept within the limits.
struct Size<'l> {
    nodes: usize,
    added: usize,
    limits: &'l Limits,
}

impl Size<'_> {
    /// Counts a value put at `path`: the document must stay within the node and depth limits.
    fn put(&mut self, path: &[String], value: &Value) -> Result<(), String> {
        let added = nodes(value);
        self.nodes = self.nodes.saturating_add(added);
        self.added = self.added.saturating_add(added);
        if self.nodes > self.limits.max_nodes {
            return Err(format!(
                "the result would hold more than {} nodes",
                self.limits.max_nodes
            ));
        }
        if path.len() + depth(value) > self.limits.max_depth {
            return Err(format!(
                "the result would nest deeper than {}",
                self.limits.max_depth
            ));
        }
        Ok(())
    }

    fn take(&mut self, value: &Value) {
        self.nodes = self.nodes.saturating_sub(nodes(value));
    }
}

fn apply_one(doc: &mut Value, op: &Value, size: &mut Size<'_>) -> Result<(), String> {
    let name = op["op"].as_str().ok_or("no op")?;
    let path = tokens(op["path"].as_str().ok_or("no path")?)?;
    let from = || tokens(op["from"].as_str().unwrap_or_default());
    match name {
        "add" => {
            let value = op.get("value").cloned().ok_or("no value")?;
            size.put(&path, &value)?;
            add(doc, &path, value)
        }
        "remove" => remove(doc, &path).map(|old| size.take(&old)),
        "replace" => {
            let value = op.get("value").cloned().ok_or("no value")?;
            size.put(&path, &value)?;
            let target = parent(doc, &path)?;
            let old = std::mem::replace(target, value);
            size.take(&old);
            Ok(())
        }
        "move" => {
            let value = remove(doc, &from()?)?;
            size.take(&value);
            size.put(&path, &value)?;
            add(doc, &path, value)
        }
        "copy" => {
            let value = get(doc, &from()?)?;
            size.put(&path, value)?;
            let value = value.clone();
            add(doc, &path, value)
        }
        "test" => {
            let expected = op.get("value").ok_or("no value")?;
            // Go json-patch (evanphx/json-patch, as kustomize v5.5.0 uses it): a missing key of
            // an existing object tests equal to `null`
            // (tests/fixtures/kustomize-trees/json-test-null).
            if expected.is_null()
                && let Some((last, init)) = path.split_last()
                && get(doc, init).is_ok_and(|p| p.is_object() && p.get(last).is_none())
            {
                return Ok(());
            }
            if get(doc, &path)? == expected {
                Ok(())
            } else {
                Err("the value differs".into())
            }
        }
        other => Err(format!("unknown op {other:?}")),
    }
}

/// Applies a JSON patch (a list of operations) to `doc`, all or nothing; the result must stay
/// within `limits.max_nodes` and `limits.max_depth`, as a parsed document does (a chain of
/// `copy` operations would otherwise double the document with each one). Returns the number
/// of nodes the operations put into the document (for a load's total budget).
///
/// # Errors
/// The first operation that cannot be applied or breaks a limit (the document is then
/// unchanged).
///
/// ```
/// use capi_manifests::{Limits, kustomize::patch::json_patch};
/// let mut doc = serde_json::json!({"metadata": {"labels": {"a": "1"}}});
/// let ops = serde_json::json!([{"op": "add", "path": "/metadata/labels/b~1c", "value": "2"}]);
/// json_patch(&mut doc, &ops, &Limits::default()).unwrap();
/// assert_eq!(doc["metadata"]["labels"]["b/c"], "2");
/// ```
pub fn json_patch(doc: &mut Value, ops: &Value, limits: &Limits) -> Result<usize, JsonPatchError> {
    let list = ops.as_array().map(Vec::as_slice).unwrap_or_default();
    let mut work = doc.clone();
    let mut size = Size {
        nodes: nodes(doc),
        added: 0,
        limits,
    };
    for (index, op) in list.iter().enumerate() {
        apply_one(&mut work, op, &mut size).map_err(|reason| JsonPatchError {
            index,
            op: op["op"].as_str().unwrap_or("?").to_owned(),
            path: op["path"].as_str().unwrap_or("?").to_owned(),
            reason,
        })?;
    }
    *doc = work;
    Ok(size.added)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strategic_merge_replaces_lists_and_deletes_nulls() {
        let mut crd = json!({"metadata": {"labels": {"a": "1", "b": "2"}},
            "spec": {"versions": [{"name": "v1"}, {"name": "v2"}]}});
        strategic_merge(
            &mut crd,
            &json!({"metadata": {"labels": {"b": null, "c": "3"}}, "spec": {"versions": [{"name": "v1", "served": false}]}}),
        );
        assert_eq!(
            crd,
            json!({"metadata": {"labels": {"a": "1", "c": "3"}}, "spec": {"versions": [{"name": "v1", "served": false}]}})
        );
    }

    #[test]
    fn strategic_merge_directives() {
        let mut doc = json!({"spec": {"a": 1, "b": {"c": 2}}});
        strategic_merge(&mut doc, &json!({"spec": {"$patch": "replace", "x": 1}}));
        assert_eq!(doc, json!({"spec": {"x": 1}}));
        strategic_merge(&mut doc, &json!({"spec": {"$patch": "delete"}}));
        assert_eq!(doc, json!({}));
        assert!(deletes_resource(&json!({"$patch": "delete"})));
    }

    #[test]
    fn a_root_replace_leaves_the_resource_as_it_was() {
        // `kubectl kustomize` (kubectl v1.32, kustomize v5.5.0) prints the CRD unchanged for a patch of
        // `$patch: replace` with only apiVersion, kind and metadata.
        let crd = json!({"kind": "CustomResourceDefinition", "metadata": {"name": "a"}, "spec": {"group": "g"}});
        let mut doc = crd.clone();
        patch_resource(
            &mut doc,
            &json!({"$patch": "replace", "kind": "CustomResourceDefinition", "metadata": {"name": "a", "labels": {"x": "y"}}}),
        );
        assert_eq!(doc, crd);
    }

    #[test]
    fn copies_that_double_the_document_stop_at_the_node_limit() {
        let limits = Limits {
            max_nodes: 1000,
            ..Limits::default()
        };
        let mut doc = json!({"spec": {"a": [1, 2, 3, 4, 5, 6, 7, 8]}});
        let ops: Vec<Value> = (0..40)
            .map(|i| json!({"op": "copy", "from": "/spec", "path": format!("/spec/x{i}")}))
            .collect();
        let err = json_patch(&mut doc, &Value::Array(ops), &limits).unwrap_err();
        assert!(err.reason.contains("more than 1000 nodes"), "{err}");
        // The document has 13 nodes, /spec 11; each copy adds /spec's nodes to the document
        // and /spec grows to twice itself plus the new key: 11, 23, 47, 95, 191, 383, 767 added
        // gives 24, 47, 94, 189, 380, 763, 1530: operation 6 passes 1000.
        assert_eq!(err.index, 6);
        assert_eq!(doc, json!({"spec": {"a": [1, 2, 3, 4, 5, 6, 7, 8]}}));
    }

    #[test]
    fn json_patch_ops_and_atomicity() {
        let mut doc = json!({"a": [1, 2], "b": {"c": 1}});
        json_patch(
            &mut doc,
            &json!([
                {"op": "add", "path": "/a/-", "value": 3},
                {"op": "add", "path": "/a/0", "value": 0},
                {"op": "move", "from": "/b/c", "path": "/d"},
                {"op": "copy", "from": "/d", "path": "/e"},
                {"op": "replace", "path": "/b", "value": "x"},
                {"op": "test", "path": "/e", "value": 1},
                {"op": "remove", "path": "/a/1"}
            ]),
            &Limits::default(),
        )
        .unwrap();
        assert_eq!(doc, json!({"a": [0, 2, 3], "b": "x", "d": 1, "e": 1}));
        let before = doc.clone();
        let err = json_patch(
            &mut doc,
            &json!([{"op": "remove", "path": "/a/0"}, {"op": "remove", "path": "/nope"}]),
            &Limits::default(),
        )
        .unwrap_err();
        assert_eq!(err.index, 1);
        assert_eq!(doc, before, "all or nothing");
    }
}
