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
    /// A `List` document whose items kubectl could not read.
    #[error("{document}: {message}")]
    BadList {
        /// The document (or its item).
        document: Source,
        /// What is wrong.
        message: String,
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
    /// A path inside a tree (a symbolic link, a path through `..`, an absolute path) leads
    /// outside the tree.
    #[error("{path}: {how} to {target}, outside {root}; not read")]
    OutsideTree {
        /// The path.
        path: String,
        /// What leads out: `symbolic link`, `path through ..` or `absolute path`.
        how: &'static str,
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
    /// The documents of one load hold more nodes than [`crate::Limits::max_total_nodes`].
    #[error("{path}: more than {limit} YAML nodes in all documents read and patches applied")]
    TooManyNodes {
        /// The file or patch that passed the limit.
        path: String,
        /// The limit.
        limit: usize,
    },
    /// A kustomization field that the real kustomize must not be run on (it would fetch
    /// from the network or run code): refused before rendering.
    #[error("{path}: {field}: refused before running kustomize: {why}")]
    Refused {
        /// The file.
        path: String,
        /// The field.
        field: String,
        /// Why.
        why: String,
    },
    /// A kustomization field the emulator does not reproduce exactly (`--kustomize never`).
    #[error(
        "{path}: {field}: not emulated; render with the real kustomize (`--kustomize auto` or PATH) or pipe `kustomize build DIR | capi-machinepool check -`"
    )]
    NotEmulated {
        /// The kustomization file.
        path: String,
        /// The field.
        field: String,
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
            path: display_path(path),
            source,
        }
    }
}

/// A path for messages and sources, with control characters escaped and bytes that are not
/// UTF-8 written as `\xNN` (two different file names never print alike).
///
/// ```
/// let shown = capi_manifests::display_path(std::path::Path::new("a\u{1b}.yaml"));
/// assert_eq!(shown, "a\\u{1b}.yaml");
/// ```
#[must_use]
pub fn display_path(path: &Path) -> String {
    let text = path_text(path);
    Excerpt::with_max_chars(&text, 400).to_string()
}

/// The text of a path; on Unix, bytes that are not UTF-8 become `\xNN`.
fn path_text(path: &Path) -> String {
    #[cfg(unix)]
    {
        use std::fmt::Write;
        use std::os::unix::ffi::OsStrExt;
        let mut out = String::new();
        for chunk in path.as_os_str().as_bytes().utf8_chunks() {
            out.push_str(chunk.valid());
            for byte in chunk.invalid() {
                let _ = write!(out, "\\x{byte:02X}");
            }
        }
        out
    }
    #[cfg(not(unix))]
    {
        path.to_string_lossy().into_owned()
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn names_that_are_not_utf8_print_their_bytes() {
        use std::os::unix::ffi::OsStrExt;
        let path = Path::new(std::ffi::OsStr::from_bytes(b"a\xffb.yaml"));
        assert_eq!(path_text(path), "a\\xFFb.yaml");
    }
}
