//! Parsing one YAML (or JSON) document into a JSON value, within limits.

use std::sync::Arc;

use capi_diagnostics::excerpt::Excerpt;
use serde_json::Value;

use crate::position::{self, Position, Positions};

use crate::split::{Documents, RawDocument};
use crate::{Limits, ManifestError, Source};

pub(crate) fn options(limits: &Limits) -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_nodes = limits.max_nodes;
    budget.max_depth = limits.max_depth;
    budget.max_events = limits.max_nodes.saturating_mul(2);
    budget.max_total_scalar_bytes = limits.max_document_bytes;
    budget.max_documents = 1;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    // kubectl reads manifests with sigs.k8s.io/yaml on go-yaml v2, a YAML 1.1 reader: `017`
    // is the octal 15 there (YAML 1.2 would read 17), and the API server gets 15.
    options.legacy_octal_numbers = true;
    // Errors must not quote the input (it may be a secret read through a hostile link).
    options.with_snippet = false;
    options
}

/// Parses the text of one document (see [`crate::split`]) into a value; `null` for a document
/// that holds only `null`.
///
/// # Errors
/// A syntax error, a duplicate key, or a broken limit, naming the document and its line in the
/// file; the parser's message is quoted as a short excerpt.
pub fn parse(text: &str, source: &Source, limits: &Limits) -> Result<Value, ManifestError> {
    serde_saphyr::from_str_with_options::<Option<Value>>(text, options(limits))
        .map(Option::unwrap_or_default)
        .map_err(|e| syntax_error(&e, source))
}

/// [`parse`], keeping where each value is written (see [`Positions`]), in lines of the file.
///
/// # Errors
/// See [`parse`].
pub fn parse_with_positions(
    text: &str,
    source: &Source,
    limits: &Limits,
) -> Result<(Value, Positions), ManifestError> {
    position::read_with(text, options(limits), source.line).map_err(|e| syntax_error(&e, source))
}

/// An error of a document parsed as if it started on line 1, at its place in the file.
fn relocated(error: ManifestError, source: &Source) -> ManifestError {
    match error {
        ManifestError::Syntax { line, message, .. } => ManifestError::Syntax {
            document: source.clone(),
            line: source.line + line.saturating_sub(1),
            message,
        },
        other => other,
    }
}

/// A parser error as a [`ManifestError::Syntax`] naming the file line.
fn syntax_error(e: &serde_saphyr::Error, source: &Source) -> ManifestError {
    let relative = e.location().map_or(1, |l| l.line());
    let message = e.to_string();
    // The parser prefixes its own (document-relative) position; the file line replaces it.
    let message = message
        .split_once(": ")
        .filter(|(head, _)| head.starts_with("line "))
        .map_or(message.as_str(), |(_, rest)| rest);
    ManifestError::Syntax {
        document: source.clone(),
        line: source.line + usize::try_from(relative).unwrap_or(1).saturating_sub(1),
        message: Excerpt::with_max_chars(message, 200).to_string(),
    }
}

/// Every document of a text (empty ones and `null`s left out), parsed one at a time.
///
/// # Errors
/// The first document that cannot be split or parsed (its file, document and line named).
///
/// ```
/// use capi_manifests::{Limits, parse::documents};
/// let docs = documents("a: 1\n--- {b: 2}\n", "s.yaml", &Limits::default()).unwrap();
/// assert_eq!((docs[1].source.document, docs[1].value["b"].as_i64()), (1, Some(2)));
/// ```
pub fn documents(text: &str, name: &str, limits: &Limits) -> Result<Vec<Document>, ManifestError> {
    let mut out = Vec::new();
    for raw in Documents::new(text.as_bytes(), name, *limits) {
        let raw = raw?;
        if let Some((value, positions)) = raw.parse_with_positions(limits)?
            && !value.is_null()
        {
            out.push(Document::new(raw.source, value).with_positions(positions));
        }
    }
    Ok(out)
}

/// A parsed document with its source.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    /// Where it is.
    pub source: Source,
    /// Its value.
    pub value: Value,
    /// Kustomization fields that were not emulated and could have changed this document
    /// (`path: field`); empty for documents read as they are.
    pub caveats: Vec<String>,
    /// Values a kustomization set rather than the document's own file, in the order they were
    /// set (see [`SetBy`]); empty for documents read as they are.
    pub set_by: Vec<SetBy>,
    /// Where each value of the document is written in its file (see [`Positions`]); `None`
    /// when not known (a document built from a value, or rendered by another program).
    pub positions: Option<Arc<Positions>>,
}

/// A value of a rendered document that a kustomization set: by a patch (its file and
/// document, or the kustomization for an inline patch) or by `labels`, `commonLabels` or
/// `commonAnnotations` (the kustomization file). Kustomize's own build metadata
/// (`buildMetadata: [transformerAnnotations]`) names only the transformer that touched a
/// resource, not the field or the patch file; this names both.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SetBy {
    /// The keys of the field set, from the root (`["metadata", "labels", "app"]`). Only
    /// fields reached through mappings are recorded; a list a patch merges is not.
    pub path: Vec<String>,
    /// The patch document, or the kustomization file.
    pub source: Source,
    /// The kustomization field that set it (`patches[0]`, `labels[1].pairs`).
    pub field: String,
    /// The line and column in `source`'s file where it is set: the key in a strategic merge
    /// patch, the operation of a JSON patch, the entry of `labels`; `None` when only the
    /// document is known.
    pub at: Option<Position>,
}

impl Document {
    /// What set the value at `keys` (the field itself or a mapping holding it), the last
    /// setter winning; `None` when the document's own file did.
    ///
    /// ```
    /// use capi_manifests::{Document, SetBy, Source};
    /// let mut doc = Document::new(Source::new("base.yaml", 0, 1), serde_json::json!({}));
    /// doc.set_by.push(SetBy {
    ///     path: vec!["metadata".into(), "labels".into(), "a".into()],
    ///     source: Source::new("patch.yaml", 0, 1),
    ///     field: "patches[0]".into(),
    ///     at: None,
    /// });
    /// assert_eq!(doc.set_by_at(&["metadata", "labels", "a"]).unwrap().field, "patches[0]");
    /// assert!(doc.set_by_at(&["metadata", "labels", "b"]).is_none());
    /// ```
    #[must_use]
    pub fn set_by_at(&self, keys: &[&str]) -> Option<&SetBy> {
        set_by_at(&self.set_by, keys)
    }
}

/// The last of `set_by` that set the value at `keys` (or a mapping holding it); else the last
/// that set a keyword of the schema at `keys` (a JSON patch replacing a schema field's `type`
/// set that field).
#[must_use]
pub fn set_by_at<'s>(set_by: &'s [SetBy], keys: &[&str]) -> Option<&'s SetBy> {
    let under = |s: &SetBy, depth: usize| s.path.iter().zip(keys).take(depth).all(|(a, b)| a == b);
    let keyword = |s: &SetBy| {
        s.path
            .last()
            .is_some_and(|k| SCHEMA_KEYWORDS.contains(&k.as_str()))
    };
    set_by
        .iter()
        .rev()
        .find(|s| s.path.len() <= keys.len() && under(s, s.path.len()))
        .or_else(|| {
            set_by
                .iter()
                .rev()
                .find(|s| s.path.len() == keys.len() + 1 && under(s, keys.len()) && keyword(s))
        })
}

/// The keywords of a structural schema that define a field's shape (what a finding on the
/// field is about when a patch changes one of them).
const SCHEMA_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "nullable",
    "items",
    "enum",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minProperties",
    "maxProperties",
    "required",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-int-or-string",
    "x-kubernetes-preserve-unknown-fields",
];

impl Document {
    /// A document with no caveat.
    #[must_use]
    pub fn new(source: Source, value: Value) -> Self {
        Self {
            source,
            value,
            caveats: Vec::new(),
            set_by: Vec::new(),
            positions: None,
        }
    }

    /// The same document, with the positions of its values.
    #[must_use]
    pub fn with_positions(mut self, positions: Positions) -> Self {
        self.positions = Some(Arc::new(positions));
        self
    }
}

impl RawDocument {
    /// Parses the piece; `None` for an empty piece (comments only).
    ///
    /// # Errors
    /// See [`parse`].
    pub fn parse(&self, limits: &Limits) -> Result<Option<Value>, ManifestError> {
        self.parse_by(|text, source| parse(text, source, limits))
    }

    /// [`RawDocument::parse`], keeping where each value is written (lines of the file).
    ///
    /// # Errors
    /// See [`parse`].
    pub fn parse_with_positions(
        &self,
        limits: &Limits,
    ) -> Result<Option<(Value, Positions)>, ManifestError> {
        // With directives, the parser counts lines from the first directive: the document's
        // own line 1 is the line after them and the `---` added.
        let header_lines = if self.directives.is_empty() {
            0
        } else {
            self.directives.matches('\n').count() + 1
        };
        let parsed = self.parse_by(|text, source| {
            parse_with_positions(text, &Source::new(source.file.clone(), 0, 1), limits)
                .map_err(|e| relocated(e, source))
        })?;
        Ok(parsed.map(|(value, positions)| {
            let shift = self
                .source
                .line
                .saturating_sub(1)
                .saturating_sub(header_lines);
            (value, positions.shifted(shift))
        }))
    }

    /// Parses the piece with `parse` (directives first, when it has any).
    fn parse_by<T>(
        &self,
        parse: impl Fn(&str, &Source) -> Result<T, ManifestError>,
    ) -> Result<Option<T>, ManifestError> {
        if self.empty {
            return Ok(None);
        }
        if self.directives.is_empty() {
            return parse(&self.text, &self.source).map(Some);
        }
        // The directives, then the document: the parser counts lines from the first
        // directive, the source from the document's first line.
        let header_lines = self.directives.matches('\n').count() + 1;
        let text = format!("{}---\n{}", self.directives, self.text);
        parse(&text, &self.source).map(Some).map_err(|e| match e {
            ManifestError::Syntax {
                document,
                line,
                message,
            } => ManifestError::Syntax {
                document,
                line: line.saturating_sub(header_lines).max(self.source.line),
                message,
            },
            other => other,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_name_the_file_line_and_no_input() {
        let source = Source::new("x.yaml", 3, 10);
        let err = parse("a: b\n  c: d: e\n", &source, &Limits::default()).unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("x.yaml#3 (line 11): "), "{text}");
    }

    #[test]
    fn tag_directives_before_the_marker_are_applied() {
        let docs = documents(
            "%TAG !e! tag:example.com,2000:\n--- !e!foo\na: 1\n",
            "t.yaml",
            &Limits::default(),
        )
        .unwrap();
        assert_eq!(docs.len(), 1);
        assert_eq!(docs[0].value["a"], 1);
    }

    #[test]
    fn leading_zero_integers_are_octal_as_kubectl_reads_them() {
        // go-yaml v2 (YAML 1.1, under sigs.k8s.io/yaml and so kubectl): `017` is 0o17 = 15.
        let source = Source::new("o.yaml", 0, 1);
        let value = parse(
            "a: 017\nb: 0o17\nc: 17\nd: '017'\n",
            &source,
            &Limits::default(),
        )
        .unwrap();
        assert_eq!(
            value,
            serde_json::json!({"a": 15, "b": 15, "c": 17, "d": "017"})
        );
    }

    #[test]
    fn duplicate_keys_are_rejected() {
        let source = Source::new("d.yaml", 0, 1);
        assert!(parse("a: 1\na: 2\n", &source, &Limits::default()).is_err());
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let source = Source::new("deep.yaml", 0, 1);
        assert!(parse(&deep, &source, &Limits::default()).is_err());
    }
}
