//! Why manifests could not be read.

use std::path::Path;

use capi_diagnostics::excerpt::Excerpt;

use crate::Source;

/// Why a manifest could not be read. Messages quote input only as short, escaped excerpts.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The file or directory cannot be read.
    #[error("{path}: cannot read")]
    Io {
        /// The path.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A line is not UTF-8.
    #[error("{path}:{line}: not valid UTF-8")]
    Utf8 {
        /// The path.
        path: String,
        /// The line (1-based).
        line: usize,
    },
    /// A file is larger than the limit.
    #[error("{path}: {size} bytes, more than the limit of {limit} bytes")]
    FileTooLarge {
        /// The path.
        path: String,
        /// Its size.
        size: u64,
        /// The limit ([`crate::Limits::max_file_bytes`]).
        limit: u64,
    },
    /// A document is larger than the limit.
    #[error("{document}: document larger than the limit of {limit} bytes")]
    DocumentTooLarge {
        /// The document.
        document: Source,
        /// The limit ([`crate::Limits::max_document_bytes`]).
        limit: usize,
    },
    /// A document is not valid YAML (or breaks a parser limit).
    #[error("{document} (line {line}): {message}")]
    Syntax {
        /// The document.
        document: Source,
        /// The line of the problem (1-based, in the file).
        line: usize,
        /// The parser's message, as a short excerpt.
        message: String,
    },
    /// A symbolic link inside a tree points outside the tree.
    #[error("{path}: symbolic link to {target}, outside {root}; not read")]
    OutsideTree {
        /// The link.
        path: String,
        /// Where it points.
        target: String,
        /// The tree it must stay in.
        root: String,
    },
    /// A path is not a regular file or directory (a device, FIFO or socket).
    #[error("{path}: not a regular file ({kind}); not read")]
    NotRegular {
        /// The path.
        path: String,
        /// What it is.
        kind: &'static str,
    },
    /// A tree is larger than the limits.
    #[error("{path}: {what}")]
    TreeTooLarge {
        /// The tree.
        path: String,
        /// Which limit.
        what: String,
    },
    /// A kustomization cannot be used.
    #[error("{path}: {message}")]
    Kustomization {
        /// The kustomization file.
        path: String,
        /// What is wrong.
        message: String,
    },
}

impl ManifestError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        Self::Io {
            path: display(path),
            source,
        }
    }
}

/// A path for messages, with control characters escaped.
#[must_use]
pub(crate) fn display(path: &Path) -> String {
    let text = path.to_string_lossy();
    Excerpt::with_max_chars(&text, 400).to_string()
}
