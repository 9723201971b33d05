//! Loading manifests from files, directories (with kustomizations) and standard input.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use crate::budget::Budget;
use crate::kustomize::{self, Note};
use crate::parse::Document;
use crate::split::{Documents, RawDocument};
use crate::tree::{Entry, Tree, kustomization_file};
use crate::{Limits, ManifestError};

/// Every document read, and what kustomizations did that was not emulated.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Loaded {
    /// The documents (empty ones and `null`s left out), in input order.
    pub documents: Vec<Document>,
    /// Kustomization fields that were not emulated.
    pub notes: Vec<Note>,
}

/// A document of a stream together with its raw piece (for rewriting a stream in place).
#[derive(Clone, Debug, PartialEq)]
pub struct StreamDocument {
    /// The raw piece (its text is what to write back for an untouched document).
    pub raw: RawDocument,
    /// The parsed value; `None` for a piece with only comments.
    pub value: Option<serde_json::Value>,
}

/// Reads a YAML stream one document at a time: each item is parsed as soon as its piece is
/// complete, so memory stays bounded by the largest document.
///
/// ```
/// use capi_manifests::{Limits, load::stream};
/// let text = "a: 1\n---\n# only a comment\n---\nb: 2\n";
/// let values: Vec<_> = stream(text.as_bytes(), "-", Limits::default())
///     .map(|d| d.unwrap().value).collect();
/// assert_eq!(values, [Some(serde_json::json!({"a": 1})), None, Some(serde_json::json!({"b": 2}))]);
/// ```
pub fn stream<R: BufRead>(
    reader: R,
    name: &str,
    limits: Limits,
) -> impl Iterator<Item = Result<StreamDocument, ManifestError>> {
    Documents::new(reader, name, limits).map(move |raw| {
        let raw = raw?;
        let value = raw.parse(&limits)?;
        Ok(StreamDocument { raw, value })
    })
}

pub use crate::parse::documents;

/// Keeps a document, counting its nodes against the load's budget.
/// A `List` document is kept item by item (see [`crate::list`]).
fn keep(out: &mut Loaded, budget: &mut Budget, doc: Document) -> Result<(), ManifestError> {
    budget.charge_value(&doc.value, &doc.source.to_string())?;
    out.documents.extend(crate::list::expand(doc)?);
    Ok(())
}

/// Keeps every document of a text.
fn push_text(
    out: &mut Loaded,
    budget: &mut Budget,
    text: &str,
    name: &str,
    limits: &Limits,
) -> Result<(), ManifestError> {
    for doc in documents(text, name, limits)? {
        keep(out, budget, doc)?;
    }
    Ok(())
}

/// Reads a directory of a tree: its kustomization when it has one, else its manifest files
/// and subdirectories (each subdirectory with a kustomization built as one).
fn load_dir(
    tree: &mut Tree,
    dir: &Path,
    depth: usize,
    out: &mut Loaded,
) -> Result<(), ManifestError> {
    if kustomization_file(dir).is_some() {
        let built = kustomize::build(tree, dir, depth)?;
        out.documents.extend(built.documents);
        out.notes.extend(built.notes);
        return Ok(());
    }
    let Some(entries) = tree.entries(dir, depth)? else {
        return Ok(());
    };
    for entry in entries {
        match entry {
            Entry::Dir(sub) => load_dir(tree, &sub, depth + 1, out)?,
            Entry::File(file) => {
                if let Some(text) = tree.read(&file)? {
                    let name = crate::error::display_path(&file);
                    let limits = *tree.limits();
                    push_text(out, tree.budget(), &text, &name, &limits)?;
                }
            }
        }
    }
    Ok(())
}

/// Keeps every document of a stream, parsed one at a time.
fn push_stream<R: BufRead>(
    out: &mut Loaded,
    budget: &mut Budget,
    reader: R,
    name: &str,
    limits: Limits,
) -> Result<(), ManifestError> {
    for raw in Documents::new(reader, name, limits) {
        let raw = raw?;
        if let Some((value, positions)) = raw.parse_with_positions(&limits)?
            && !value.is_null()
        {
            keep(
                out,
                budget,
                Document::new(raw.source, value).with_positions(positions),
            )?;
        }
    }
    Ok(())
}

/// Reads every path: `-` is standard input, a directory is read as a tree (see the crate
/// docs: its kustomization is rendered, links may not leave it, limits apply), any other path
/// named here is streamed as a multi-document file (any length, and pipes such as
/// `<(kustomize build DIR)` too: the caller chose it; files *inside* a tree must be regular
/// files within the size limit). Everything kept counts against one
/// [`Limits::max_total_nodes`] budget; each document against the per-document limits.
///
/// # Errors
/// The first path or document that cannot be read, or a broken limit.
pub fn load(paths: &[PathBuf], limits: Limits) -> Result<Loaded, ManifestError> {
    let mut out = Loaded::default();
    let mut budget = Budget::new(&limits);
    for path in paths {
        if path == Path::new("-") {
            push_stream(&mut out, &mut budget, std::io::stdin().lock(), "-", limits)?;
            continue;
        }
        let meta = std::fs::metadata(path).map_err(|e| ManifestError::io(path, e))?;
        if meta.is_dir() {
            let mut tree = Tree::new(path, limits)?.with_budget(budget);
            load_dir(&mut tree, path, 0, &mut out)?;
            budget = *tree.budget();
        } else {
            let file = std::fs::File::open(path).map_err(|e| ManifestError::io(path, e))?;
            let reader = std::io::BufReader::with_capacity(256 * 1024, file);
            let name = crate::error::display_path(path);
            push_stream(&mut out, &mut budget, reader, &name, limits)?;
        }
    }
    Ok(out)
}
