//! Where a document came from: file, document index, line.

use std::fmt;
use std::sync::Arc;

/// The origin of one document: its file (or `-` for standard input), its index among the
/// documents of that file (from 0, counting only non-empty documents, as a YAML parser does),
/// and the line (from 1) where it starts.
///
/// ```
/// use capi_manifests::Source;
/// let s = Source::new("config/crd/bases/a.yaml", 2, 41);
/// assert_eq!(s.to_string(), "config/crd/bases/a.yaml#2");
/// assert_eq!(s.location(), "config/crd/bases/a.yaml:41");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Source {
    /// The file, as given or found (relative paths stay relative).
    pub file: Arc<str>,
    /// Index of the document in the file.
    pub document: usize,
    /// First line of the document (1-based).
    pub line: usize,
    /// Index of the item, for an object read from the `items` of a `List` document (see
    /// [`crate::list`]); `None` for a document read as it is.
    pub item: Option<usize>,
}

impl Source {
    /// A source.
    #[must_use]
    pub fn new(file: impl Into<Arc<str>>, document: usize, line: usize) -> Self {
        Self {
            file: file.into(),
            document,
            line,
            item: None,
        }
    }

    /// The source of item `index` of the `List` document at this source.
    #[must_use]
    pub fn with_item(&self, index: usize) -> Self {
        Self {
            item: Some(index),
            ..self.clone()
        }
    }

    /// `file:line`, the form editors and CI annotations understand.
    #[must_use]
    pub fn location(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.file, self.document)?;
        match self.item {
            Some(item) => write!(f, ".items[{item}]"),
            None => Ok(()),
        }
    }
}
