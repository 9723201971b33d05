//! `List` and `<Kind>List` documents (`kubectl get ... -o yaml`) read as kubectl reads them:
//! one object per item.
//!
//! kubectl decodes a document that has an `items` field as a list (apimachinery,
//! `unstructuredJSONScheme.decode`, which looks for `items` before anything else) and then
//! works on each item. Items of a typed list (`MachinePoolList` from the API server) carry no
//! `apiVersion` and `kind`; apimachinery's `decodeToList` gives such an item the list's
//! `apiVersion` and the list's kind without its `List` suffix, and only when both are missing.
//!
//! ```
//! use capi_manifests::{Document, Source, list::expand};
//! let list = serde_json::json!({
//!     "apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePoolList",
//!     "items": [{"metadata": {"name": "a"}}, {"kind": "Secret", "apiVersion": "v1"}]
//! });
//! let items = expand(Document::new(Source::new("l.yaml", 0, 1), list)).unwrap();
//! assert_eq!(items[0].value["kind"], "MachinePool");
//! assert_eq!(items[1].source.to_string(), "l.yaml#0.items[1]");
//! ```

use serde_json::Value;

use crate::{Document, ManifestError, Source};

/// Whether kubectl reads `value` as a list: a mapping with an `items` field that is not `null`.
#[must_use]
pub fn is_list(value: &Value) -> bool {
    value.get("items").is_some_and(|items| !items.is_null())
}

/// Gives an item of a typed list the type of the list (see the module docs).
fn typed(item: &mut Value, list_api_version: &Value, list_kind: &str) {
    let Some(object) = item.as_object_mut() else {
        return;
    };
    let missing = |v: Option<&Value>| v.and_then(Value::as_str).is_none_or(str::is_empty);
    if missing(object.get("kind")) && missing(object.get("apiVersion")) {
        let kind = list_kind.strip_suffix("List").unwrap_or(list_kind);
        object.insert("kind".to_owned(), Value::String(kind.to_owned()));
        object.insert("apiVersion".to_owned(), list_api_version.clone());
    }
}

/// The items of a list document, each with its source (`file#document.items[i]`); any other
/// document as it is.
///
/// # Errors
/// `items` is not a sequence, or an item is not a mapping (kubectl fails on both).
pub fn expand(doc: Document) -> Result<Vec<Document>, ManifestError> {
    let Document {
        source,
        mut value,
        caveats,
        set_by,
        positions,
    } = doc;
    if !is_list(&value) {
        return Ok(vec![Document {
            source,
            value,
            caveats,
            set_by,
            positions,
        }]);
    }
    let list_kind = value["kind"].as_str().unwrap_or_default().to_owned();
    let list_api_version = value["apiVersion"].clone();
    let Some(Value::Array(items)) = value.get_mut("items").map(Value::take) else {
        return Err(ManifestError::BadList {
            document: source,
            message: "items is not a sequence (kubectl reads a document with items as a List)"
                .to_owned(),
        });
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, mut item) in items.into_iter().enumerate() {
        let item_source = source.with_item(i);
        if !item.is_object() {
            return Err(ManifestError::BadList {
                document: item_source,
                message: "an item that is not a mapping (kubectl cannot decode it)".to_owned(),
            });
        }
        typed(&mut item, &list_api_version, &list_kind);
        let index = i.to_string();
        let item_positions = positions
            .as_deref()
            .and_then(|p| p.child(&["items", &index]))
            .map(|p| std::sync::Arc::new(p.clone()));
        out.push(Document {
            source: item_source,
            value: item,
            caveats: caveats.clone(),
            set_by: Vec::new(),
            positions: item_positions,
        });
    }
    Ok(out)
}

/// Like [`expand`] for a value and its source (standard input and other streams).
///
/// # Errors
/// See [`expand`].
pub fn items(source: &Source, value: Value) -> Result<Vec<(Source, Value)>, ManifestError> {
    Ok(expand(Document::new(source.clone(), value))?
        .into_iter()
        .map(|d| (d.source, d.value))
        .collect())
}

/// Streams the items of one `List` or `<Kind>List` document read from `reader`, one at a
/// time, without building the whole document: `kubectl get nodes -o yaml` of a large cluster is
/// one document larger than [`Limits::max_document_bytes`](crate::Limits::max_document_bytes)
/// (about 8 KB per Node), and memory stays bounded by the largest item. Each item must be a
/// mapping within the per-document node and depth limits; an item of a typed list gets the
/// list's type as [`expand`] does when the list's `kind` comes before `items` (kubectl prints
/// `items` first, with `apiVersion` and `kind` on every item). `each` gets the item's source
/// (`file#0.items[i]`) and value; its error stops the stream and is returned as `Ok(Err(e))`.
///
/// Each item is also held to the per-document byte limit
/// ([`Limits::max_document_bytes`](crate::Limits::max_document_bytes)) while it is read: the
/// bytes read since the previous item ended are counted at the reader, so an oversized item
/// stops the stream before it is built (counted within the parser's read-ahead, a few KiB).
///
/// # Errors
/// A syntax error, a document that is not a mapping with an `items` sequence, an item that is
/// not a mapping or breaks a per-document limit (nodes, depth or bytes).
///
/// ```
/// use capi_manifests::{Limits, list::for_each_item};
/// let yaml = "apiVersion: v1\nitems:\n- {kind: Node, metadata: {name: a}}\n- {kind: Node}\nkind: List\n";
/// let mut names = Vec::new();
/// let r = for_each_item(yaml.as_bytes(), "n.yaml", &Limits::default(), |source, item| {
///     names.push((source.to_string(), item["kind"].clone()));
///     Ok::<(), String>(())
/// });
/// assert!(matches!(r, Ok(Ok(()))));
/// assert_eq!(names[1].0, "n.yaml#0.items[1]");
/// ```
pub fn for_each_item<R: std::io::Read, E>(
    reader: R,
    file: &str,
    limits: &crate::Limits,
    mut each: impl FnMut(Source, Value) -> Result<(), E>,
) -> Result<Result<(), E>, ManifestError> {
    let mut budget = serde_saphyr::Budget::default();
    // The document as a whole is not limited (it is never held); each item is checked below.
    budget.max_reader_input_bytes = None;
    budget.max_nodes = usize::MAX;
    budget.max_events = usize::MAX;
    budget.max_total_scalar_bytes = usize::MAX;
    budget.max_depth = limits.max_depth;
    budget.max_documents = 1;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options.legacy_octal_numbers = true;
    options.with_snippet = false;
    let source = Source::new(file, 0, 1);
    let counter = ItemBytes::new(reader, limits.max_document_bytes as u64);
    let bytes = counter.state();
    let mut state = Stream {
        bytes: std::rc::Rc::clone(&bytes),
        source: &source,
        limits,
        each: &mut each,
        failed: None,
        problem: None,
        items: false,
        api_version: Value::Null,
        kind: String::new(),
    };
    let result = serde_saphyr::with_deserializer_from_reader_with_options(counter, options, |de| {
        serde::Deserializer::deserialize_map(de, &mut state)
    });
    if let Some(e) = state.failed.take() {
        return Ok(Err(e));
    }
    if let Some(index) = bytes.over.get() {
        return Err(ManifestError::BadList {
            document: source.with_item(index),
            message: format!(
                "an item of more than {} bytes (the per-document limit)",
                limits.max_document_bytes
            ),
        });
    }
    if let Some(problem) = state.problem.take() {
        return Err(problem);
    }
    match result {
        Err(e) => Err(ManifestError::Syntax {
            document: source.clone(),
            line: e
                .location()
                .map_or(1, |l| usize::try_from(l.line()).unwrap_or(1)),
            message: capi_diagnostics::excerpt::Excerpt::with_max_chars(&e.to_string(), 200)
                .to_string(),
        }),
        Ok(()) if !state.items => Err(ManifestError::BadList {
            document: source.clone(),
            message: "not a List: no items sequence".to_owned(),
        }),
        Ok(()) => Ok(Ok(())),
    }
}

/// What the reader of [`for_each_item`] counts: bytes read, where the current item began,
/// and the item that passed the limit.
#[derive(Default)]
struct ItemBytesState {
    read: std::cell::Cell<u64>,
    /// The byte count when the current item began, and its index (`None` outside `items`).
    item: std::cell::Cell<Option<(u64, usize)>>,
    over: std::cell::Cell<Option<usize>>,
}

/// A reader that fails once the current item has taken more than `limit` bytes.
struct ItemBytes<R> {
    inner: R,
    limit: u64,
    state: std::rc::Rc<ItemBytesState>,
}

impl<R> ItemBytes<R> {
    fn new(inner: R, limit: u64) -> Self {
        Self {
            inner,
            limit,
            state: std::rc::Rc::default(),
        }
    }

    fn state(&self) -> std::rc::Rc<ItemBytesState> {
        std::rc::Rc::clone(&self.state)
    }
}

impl<R: std::io::Read> std::io::Read for ItemBytes<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if let Some((start, index)) = self.state.item.get()
            && self.state.read.get() - start > self.limit
        {
            self.state.over.set(Some(index));
            return Err(std::io::Error::other("a List item over the byte limit"));
        }
        let n = self.inner.read(buf)?;
        self.state.read.set(self.state.read.get() + n as u64);
        Ok(n)
    }
}

/// The state of [`for_each_item`]: a serde visitor of the list mapping.
struct Stream<'a, F, E> {
    /// The reader's byte counts.
    bytes: std::rc::Rc<ItemBytesState>,
    source: &'a Source,
    limits: &'a crate::Limits,
    each: &'a mut F,
    /// The error `each` returned.
    failed: Option<E>,
    /// A list or limit error found while streaming.
    problem: Option<ManifestError>,
    /// Whether an `items` sequence was read.
    items: bool,
    api_version: Value,
    kind: String,
}

impl<'de, F, E> serde::de::Visitor<'de> for &mut Stream<'_, F, E>
where
    F: FnMut(Source, Value) -> Result<(), E>,
{
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a List mapping with an items sequence")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "items" => {
                    self.items = true;
                    map.next_value_seed(Items(&mut *self))?;
                }
                "kind" => {
                    let v: Value = map.next_value()?;
                    self.kind = v.as_str().unwrap_or_default().to_owned();
                }
                "apiVersion" => self.api_version = map.next_value()?,
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// The `items` sequence of a [`Stream`].
struct Items<'s, 'a, F, E>(&'s mut Stream<'a, F, E>);

impl<'de, F, E> serde::de::DeserializeSeed<'de> for Items<'_, '_, F, E>
where
    F: FnMut(Source, Value) -> Result<(), E>,
{
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        de.deserialize_seq(self)
    }
}

impl<'de, F, E> serde::de::Visitor<'de> for Items<'_, '_, F, E>
where
    F: FnMut(Source, Value) -> Result<(), E>,
{
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an items sequence")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        use serde::de::Error as _;
        let state = self.0;
        let mut index = 0;
        loop {
            state.bytes.item.set(Some((state.bytes.read.get(), index)));
            let next = seq.next_element::<Value>();
            state.bytes.item.set(None);
            let Some(mut item) = next? else { break };
            let source = state.source.with_item(index);
            index += 1;
            let problem = if !item.is_object() {
                Some("an item that is not a mapping (kubectl cannot decode it)".to_owned())
            } else if crate::budget::nodes(&item) > state.limits.max_nodes {
                Some(format!(
                    "an item of more than {} YAML nodes (the per-document limit)",
                    state.limits.max_nodes
                ))
            } else {
                None
            };
            if let Some(message) = problem {
                state.problem = Some(ManifestError::BadList {
                    document: source,
                    message,
                });
                return Err(A::Error::custom("stopped"));
            }
            if !state.kind.is_empty() {
                typed(&mut item, &state.api_version, &state.kind);
            }
            if let Err(e) = (state.each)(source, item) {
                state.failed = Some(e);
                return Err(A::Error::custom("stopped"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stream(
        text: &str,
        limits: &crate::Limits,
    ) -> Result<Result<Vec<(String, Value)>, String>, ManifestError> {
        let mut out = Vec::new();
        let r = for_each_item(text.as_bytes(), "n.yaml", limits, |source, item| {
            if item["metadata"]["name"] == "stop" {
                return Err("stopped by the caller".to_owned());
            }
            out.push((source.to_string(), item));
            Ok(())
        })?;
        Ok(r.map(|()| out))
    }

    #[test]
    fn streamed_items_match_the_expanded_document() {
        // The same List read whole (expand) and streamed gives the same items and sources.
        let text = "apiVersion: v1\nkind: NodeList\nitems:\n- metadata: {name: a}\n- {kind: Node, apiVersion: v1, metadata: {name: b}}\n";
        let limits = crate::Limits::default();
        let whole = crate::parse::parse(text, &Source::new("n.yaml", 0, 1), &limits).unwrap();
        let expected: Vec<(String, Value)> = items(&Source::new("n.yaml", 0, 1), whole)
            .unwrap()
            .into_iter()
            .map(|(s, v)| (s.to_string(), v))
            .collect();
        assert_eq!(stream(text, &limits).unwrap().unwrap(), expected);
    }

    #[test]
    fn streaming_refuses_what_kubectl_refuses_and_what_breaks_a_limit() {
        let limits = crate::Limits {
            max_nodes: 5,
            ..crate::Limits::default()
        };
        let bad = |text: &str| stream(text, &limits).unwrap_err().to_string();
        assert!(bad("kind: Node\nmetadata: {name: a}\n").contains("not a List"));
        assert!(bad("items:\n- 1\n").contains("not a mapping"));
        assert!(bad("items:\n- {a: 1, b: 2, c: 3}\n").contains("more than 5 YAML nodes"));
        assert!(bad("items: [").contains("n.yaml"));
        let stopped = stream("items:\n- {metadata: {name: stop}}\n", &limits).unwrap();
        assert_eq!(stopped, Err("stopped by the caller".to_owned()));
    }

    fn src() -> Source {
        Source::new("f.yaml", 2, 7)
    }

    /// Issue 31: streamed items are held to the per-document byte limit while they are read.
    /// The expectation is computed from the text: the second item alone is 4 MiB, over a
    /// 256 KiB limit; the first and third are small.
    #[test]
    fn a_streamed_item_over_the_byte_limit_stops_the_stream() {
        let limits = crate::Limits {
            max_document_bytes: 256 * 1024,
            ..crate::Limits::default()
        };
        let big = "x".repeat(4 << 20);
        let text = format!(
            "apiVersion: v1\nkind: List\nitems:\n- {{kind: Node, metadata: {{name: a}}}}\n- {{kind: Node, metadata: {{name: b, annotations: {{big: {big}}}}}}}\n- {{kind: Node, metadata: {{name: c}}}}\n"
        );
        let mut seen = Vec::new();
        let r = for_each_item(text.as_bytes(), "n.yaml", &limits, |source, _| {
            seen.push(source.to_string());
            Ok::<(), String>(())
        });
        let e = r.unwrap_err().to_string();
        assert!(e.contains("n.yaml#0.items[1]"), "{e}");
        assert!(e.contains("more than 262144 bytes"), "{e}");
        assert_eq!(seen, ["n.yaml#0.items[0]"]);
        // Within the limit, the same list streams whole.
        let roomy = crate::Limits {
            max_document_bytes: 8 << 20,
            ..crate::Limits::default()
        };
        let r = for_each_item(text.as_bytes(), "n.yaml", &roomy, |_, _| {
            Ok::<(), String>(())
        });
        assert!(matches!(r, Ok(Ok(()))));
    }

    #[test]
    fn an_item_with_one_of_kind_and_api_version_keeps_what_it_has() {
        // decodeToList sets both only `if len(GetKind()) == 0 && len(GetAPIVersion()) == 0`.
        let list = json!({"apiVersion": "v1", "kind": "NodeList", "items": [{"kind": "Node"}]});
        let out = items(&src(), list).unwrap();
        assert_eq!(out[0].1, json!({"kind": "Node"}));
    }

    #[test]
    fn a_plain_list_gives_items_no_type() {
        let list = json!({"apiVersion": "v1", "kind": "List", "items": [{"metadata": {}}]});
        let out = items(&src(), list).unwrap();
        assert_eq!(out[0].1["kind"], "");
        assert_eq!(out[0].0.to_string(), "f.yaml#2.items[0]");
        assert_eq!(out[0].0.line, 7);
    }

    #[test]
    fn an_empty_list_has_no_items_and_a_null_items_is_no_list() {
        assert!(
            items(&src(), json!({"kind": "List", "items": []}))
                .unwrap()
                .is_empty()
        );
        let not = json!({"kind": "ConfigMap", "items": null});
        assert_eq!(items(&src(), not.clone()).unwrap(), vec![(src(), not)]);
    }

    #[test]
    fn items_that_are_not_a_sequence_of_mappings_are_errors() {
        assert!(items(&src(), json!({"kind": "List", "items": {"a": 1}})).is_err());
        let err = items(&src(), json!({"kind": "List", "items": [{}, 3]})).unwrap_err();
        assert!(err.to_string().starts_with("f.yaml#2.items[1]"), "{err}");
    }
}
