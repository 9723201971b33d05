//! Where each value of a document is written: the line and column of its key (a mapping
//! entry) or of its entry (a list item), read in the same pass as the value (serde-saphyr's
//! [`serde_saphyr::Spanned`]), so a finding can point at the line the author edits.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use serde_saphyr::Spanned;

/// A line and column in a file (both from 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Position {
    /// The line (from 1).
    pub line: usize,
    /// The column (from 1, in characters).
    pub column: usize,
}

impl Position {
    /// The same place `lines` lines further down (a document's position in its file).
    #[must_use]
    pub fn down(self, lines: usize) -> Self {
        Self {
            line: self.line + lines,
            ..self
        }
    }

    fn of(location: serde_saphyr::Location) -> Self {
        Self {
            line: usize::try_from(location.line()).unwrap_or(0),
            column: usize::try_from(location.column()).unwrap_or(0),
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// The positions of a document's values, in the shape of the document: each mapping entry at
/// its key, each list item at its entry (and, for an item with a `name`, findable by it, as
/// finding paths name CRD versions: `spec.versions[v1beta2]`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Positions {
    at: Position,
    children: Children,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Children {
    #[default]
    None,
    Map(Vec<(String, Positions)>),
    Seq(Vec<(Option<String>, Positions)>),
}

/// Where the value at a path is, or the nearest value holding it that is present.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    /// The position.
    pub at: Position,
    /// How many keys of the path were found (all of them: the value itself is present).
    pub depth: usize,
}

impl Positions {
    /// The position of the document itself (its first node).
    #[must_use]
    pub fn at(&self) -> Position {
        self.at
    }

    /// The position of the value at `keys` (mapping keys; list items by index or by their
    /// `name`), or of the nearest present value holding it; `None` when not even the first key
    /// is present.
    ///
    /// ```
    /// use capi_manifests::position::read;
    /// let (_, p) = read("spec:\n  versions:\n  - name: v1\n    served: true\n", 1).unwrap();
    /// let served = p.find(&["spec", "versions", "v1", "served"]).unwrap();
    /// assert_eq!((served.at.line, served.at.column, served.depth), (4, 5, 4));
    /// let missing = p.find(&["spec", "versions", "v1", "schema", "x"]).unwrap();
    /// assert_eq!((missing.at.line, missing.depth), (3, 3));
    /// ```
    #[must_use]
    pub fn find(&self, keys: &[&str]) -> Option<Found> {
        let mut node = self;
        let mut found = None;
        for (depth, key) in keys.iter().enumerate() {
            let next = match &node.children {
                Children::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, p)| p),
                Children::Seq(items) => key
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| items.get(i))
                    .or_else(|| items.iter().find(|(name, _)| name.as_deref() == Some(key)))
                    .map(|(_, p)| p),
                Children::None => None,
            };
            let Some(next) = next else { break };
            node = next;
            found = Some(Found {
                at: node.at,
                depth: depth + 1,
            });
        }
        found
    }

    /// The same positions `lines` lines further down.
    #[must_use]
    pub fn shifted(self, lines: usize) -> Self {
        self.moved(lines, 0)
    }

    /// The same positions `lines` lines further down and `columns` columns to the right (a
    /// document written indented inside another, as an inline patch in a kustomization).
    #[must_use]
    pub fn moved(mut self, lines: usize, columns: usize) -> Self {
        self.shift(lines, columns);
        self
    }

    fn shift(&mut self, lines: usize, columns: usize) {
        self.at = self.at.down(lines);
        self.at.column += columns;
        match &mut self.children {
            Children::None => {}
            Children::Map(entries) => {
                entries
                    .iter_mut()
                    .for_each(|(_, p)| p.shift(lines, columns));
            }
            Children::Seq(items) => items.iter_mut().for_each(|(_, p)| p.shift(lines, columns)),
        }
    }

    /// The positions of the value at `keys` (a list item by index), when present.
    #[must_use]
    pub fn child(&self, keys: &[&str]) -> Option<&Self> {
        let mut node = self;
        for key in keys {
            node = match &node.children {
                Children::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, p)| p),
                Children::Seq(items) => key
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| items.get(i))
                    .map(|(_, p)| p),
                Children::None => None,
            }?;
        }
        Some(node)
    }
}

/// A value and its positions, read together.
struct Read(Value, Positions);

impl<'de> Deserialize<'de> for Read {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ReadVisitor)
    }
}

/// A [`Read`] at its own position.
fn placed(spanned: Spanned<Read>) -> (Value, Positions) {
    let Read(value, mut positions) = spanned.value;
    positions.at = Position::of(spanned.referenced);
    (value, positions)
}

struct ReadVisitor;

fn leaf<E>(value: Value) -> Result<Read, E> {
    Ok(Read(value, Positions::default()))
}

impl<'de> Visitor<'de> for ReadVisitor {
    type Value = Read;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Read, E> {
        leaf(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Read, E> {
        leaf(Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Read, E> {
        leaf(Value::from(v))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Read, E> {
        // As serde_json's own `Value` reads it: within 64 bits, or refused.
        match (i64::try_from(v), u64::try_from(v)) {
            (Ok(i), _) => leaf(Value::from(i)),
            (_, Ok(u)) => leaf(Value::from(u)),
            _ => Err(E::custom("number out of range")),
        }
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Read, E> {
        match u64::try_from(v) {
            Ok(u) => leaf(Value::from(u)),
            Err(_) => Err(E::custom("number out of range")),
        }
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Read, E> {
        leaf(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Read, E> {
        leaf(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Read, E> {
        leaf(Value::String(v))
    }

    fn visit_none<E: de::Error>(self) -> Result<Read, E> {
        leaf(Value::Null)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Read, E> {
        leaf(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Read, D::Error> {
        Read::deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Read, A::Error> {
        let mut values = Vec::new();
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Spanned<Read>>()? {
            let (value, positions) = placed(item);
            let name = value.get("name").and_then(Value::as_str).map(str::to_owned);
            values.push(value);
            items.push((name, positions));
        }
        Ok(Read(
            Value::Array(values),
            Positions {
                at: Position::default(),
                children: Children::Seq(items),
            },
        ))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Read, A::Error> {
        let mut values = Map::new();
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<String>>()? {
            let (value, mut positions) = placed(map.next_value::<Spanned<Read>>()?);
            // A mapping entry is where its key is written.
            positions.at = Position::of(key.referenced);
            values.insert(key.value.clone(), value);
            entries.push((key.value, positions));
        }
        Ok(Read(
            Value::Object(values),
            Positions {
                at: Position::default(),
                children: Children::Map(entries),
            },
        ))
    }
}

/// Reads a document into its value and its positions, with the parser's `options`; line 1
/// of `text` is line `first_line` of the file.
///
/// # Errors
/// The parser's error.
pub(crate) fn read_with(
    text: &str,
    options: serde_saphyr::Options,
    first_line: usize,
) -> Result<(Value, Positions), serde_saphyr::Error> {
    let read: Option<Spanned<Read>> = serde_saphyr::from_str_with_options(text, options)?;
    Ok(read.map_or_else(
        || (Value::Null, Positions::default()),
        |r| {
            let (value, positions) = placed(r);
            (value, positions.shifted(first_line.saturating_sub(1)))
        },
    ))
}

/// Reads a document (default options) into its value and positions; line 1 of `text` is line
/// `first_line` of its file.
///
/// # Errors
/// The parser's error.
pub fn read(text: &str, first_line: usize) -> Result<(Value, Positions), serde_saphyr::Error> {
    read_with(text, serde_saphyr::Options::default(), first_line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_items_are_where_they_are_written() {
        let text = "apiVersion: v1\nmetadata:\n  name: a\n  labels:\n    x: \"y\"\nspec:\n  versions:\n  - name: v1\n    served: true\n  - {name: v2, served: false}\n";
        let (value, p) = read(text, 10).unwrap();
        assert_eq!(value["spec"]["versions"][1]["name"], "v2");
        let at = |keys: &[&str]| p.find(keys).map(|f| (f.at.line, f.at.column, f.depth));
        assert_eq!(at(&["metadata", "labels", "x"]), Some((14, 5, 3)));
        assert_eq!(at(&["spec", "versions", "v2"]), Some((19, 5, 3)));
        assert_eq!(at(&["spec", "versions", "1", "served"]), Some((19, 16, 4)));
        assert_eq!(at(&["spec", "versions", "v1", "schema"]), Some((17, 5, 3)));
        assert_eq!(at(&["status"]), None);
        assert_eq!(p.at().line, 10);
    }

    #[test]
    fn the_value_is_the_one_the_plain_reader_gives() {
        let text = "a: 017\nb: [1, -2, 1.5, ~, true, '017']\nc: {1: x}\nd: &x {k: v}\ne: *x\n";
        let (value, _) =
            read_with(text, crate::parse::options(&crate::Limits::default()), 1).unwrap();
        let plain: Value = serde_saphyr::from_str_with_options(
            text,
            crate::parse::options(&crate::Limits::default()),
        )
        .unwrap();
        assert_eq!(value, plain);
    }
}
