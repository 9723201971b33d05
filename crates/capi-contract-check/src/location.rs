//! Where to fix a finding: the line and column of the field it is about, in the file the
//! author edits. A value a kustomization set is at its entry in the patch or kustomization
//! (see [`capi_manifests::SetBy`]); any other at its key in the document it was read from
//! (see [`capi_manifests::Positions`]); a missing field at its nearest present parent; a
//! finding about the whole document at its `metadata.name`. The types only: the report
//! places each finding (`report::locate`), so this module uses nothing of it.

use std::fmt;

use serde::Serialize;

/// A place in a file: the file, the document in it, the line and the column (both from 1).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Location {
    /// The file (`-` for standard input).
    pub file: String,
    /// Index of the document in the file (from 0).
    pub document: usize,
    /// The line (from 1).
    pub line: usize,
    /// The column (from 1).
    pub column: usize,
    /// What is at that place, relative to the finding's path.
    pub at: Anchor,
}

/// What a [`Location`] points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Anchor {
    /// The field of the finding's path.
    Field,
    /// Its nearest present parent: the field itself is missing.
    Parent,
    /// The document's `metadata.name`: the finding is about the whole document.
    Name,
    /// The entry of a patch or kustomization that set the value.
    Setter,
    /// The document's first line: where its values are is not known.
    Document,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}
