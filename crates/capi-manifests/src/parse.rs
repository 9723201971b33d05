//! Parsing one YAML (or JSON) document into a JSON value, within limits.

use capi_machinepool_api::excerpt::Excerpt;
use serde_json::Value;

use crate::split::{Documents, RawDocument};
use crate::{Limits, ManifestError, Source};

fn options(limits: &Limits) -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_nodes = limits.max_nodes;
    budget.max_depth = limits.max_depth;
    budget.max_events = limits.max_nodes.saturating_mul(2);
    budget.max_total_scalar_bytes = limits.max_document_bytes;
    budget.max_documents = 1;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
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
        .map_err(|e| {
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
        })
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
        if let Some(value) = raw.parse(limits)?.filter(|v| !v.is_null()) {
            out.push(Document::new(raw.source, value));
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
}

impl Document {
    /// A document with no caveat.
    #[must_use]
    pub fn new(source: Source, value: Value) -> Self {
        Self {
            source,
            value,
            caveats: Vec::new(),
        }
    }
}

impl RawDocument {
    /// Parses the piece; `None` for an empty piece (comments only).
    ///
    /// # Errors
    /// See [`parse`].
    pub fn parse(&self, limits: &Limits) -> Result<Option<Value>, ManifestError> {
        if self.empty {
            return Ok(None);
        }
        parse(&self.text, &self.source, limits).map(Some)
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
