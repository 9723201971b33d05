//! Reading files from a directory tree someone else controls: never through a symbolic link
//! that leaves the tree, never twice the same file, never in a loop, only regular files, and
//! never more than the limits.

use std::collections::BTreeSet;
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::budget::Budget;
use crate::error::display_path as display;
use crate::{Limits, ManifestError};

/// File names kustomize looks for in a directory.
pub const KUSTOMIZATION_FILES: [&str; 3] =
    ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// The kustomization file of `dir`, if any.
#[must_use]
pub fn kustomization_file(dir: &Path) -> Option<PathBuf> {
    KUSTOMIZATION_FILES
        .iter()
        .map(|name| dir.join(name))
        .find(|p| p.is_file())
}

/// What makes `path` (a path under `root`, as given) lead outside the tree, for messages.
fn how_outside(root: &Path, path: &Path) -> &'static str {
    use std::path::Component;
    match path.strip_prefix(root) {
        Ok(rest) if rest.components().any(|c| matches!(c, Component::ParentDir)) => {
            "path through `..`"
        }
        Err(_) if path.is_absolute() => "absolute path",
        _ => "symbolic link",
    }
}

/// What a path is, for messages.
fn kind(meta: &Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    if meta.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Reads one regular file as text, at most `limits.max_file_bytes`.
///
/// # Errors
/// When the path is not a regular file (devices, FIFOs and sockets are refused before they
/// are opened), is too large, cannot be read, or is not UTF-8.
pub fn read_file(path: &Path, limits: &Limits) -> Result<String, ManifestError> {
    let meta = std::fs::metadata(path).map_err(|e| ManifestError::io(path, e))?;
    if !meta.is_file() {
        return Err(ManifestError::NotRegular {
            path: display(path),
            kind: kind(&meta),
        });
    }
    let too_large = |size| ManifestError::FileTooLarge {
        path: display(path),
        size,
        limit: limits.max_file_bytes,
    };
    if meta.len() > limits.max_file_bytes {
        return Err(too_large(meta.len()));
    }
    let file = File::open(path).map_err(|e| ManifestError::io(path, e))?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    // The size can change after `metadata` (or be wrong, as for /proc files): read one byte
    // more than the limit to know.
    file.take(limits.max_file_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ManifestError::io(path, e))?;
    if bytes.len() as u64 > limits.max_file_bytes {
        return Err(too_large(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        ManifestError::Utf8 {
            path: display(path),
            line: valid.iter().filter(|b| **b == b'\n').count() + 1,
        }
    })
}

/// A directory tree being read: its root and what was already read.
#[derive(Debug)]
pub struct Tree {
    root: PathBuf,
    shown_root: PathBuf,
    visited_dirs: BTreeSet<PathBuf>,
    visited_files: BTreeSet<PathBuf>,
    files_read: usize,
    limits: Limits,
    budget: Budget,
}

impl Tree {
    /// A tree rooted at `root` (which may itself be a symbolic link: the root is whatever it
    /// resolves to).
    ///
    /// # Errors
    /// When the root cannot be resolved.
    pub fn new(root: &Path, limits: Limits) -> Result<Self, ManifestError> {
        let canonical = root
            .canonicalize()
            .map_err(|e| ManifestError::io(root, e))?;
        Ok(Self {
            root: canonical,
            shown_root: root.to_path_buf(),
            visited_dirs: BTreeSet::new(),
            visited_files: BTreeSet::new(),
            files_read: 0,
            limits,
            budget: Budget::new(&limits),
        })
    }

    /// The limits in force.
    #[must_use]
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The node budget of what was read from the tree so far.
    pub fn budget(&mut self) -> &mut Budget {
        &mut self.budget
    }

    /// Carries on counting from `budget` (one budget for several trees of one load).
    #[must_use]
    pub fn with_budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Resolves `path` (inside the tree) to its real path, refusing one outside the tree.
    ///
    /// # Errors
    /// When the path cannot be resolved or leads outside the tree.
    pub fn resolve(&self, path: &Path) -> Result<PathBuf, ManifestError> {
        let real = path
            .canonicalize()
            .map_err(|e| ManifestError::io(path, e))?;
        if real.starts_with(&self.root) {
            Ok(real)
        } else {
            Err(ManifestError::OutsideTree {
                path: display(path),
                how: how_outside(&self.shown_root, path),
                target: display(&real),
                root: display(&self.shown_root),
            })
        }
    }

    /// Reads a file of the tree; `Ok(None)` when the same file (by real path) was read before.
    ///
    /// # Errors
    /// See [`Tree::resolve`] and [`read_file`]; also when more than
    /// [`Limits::max_files`] files are read.
    pub fn read(&mut self, path: &Path) -> Result<Option<String>, ManifestError> {
        let real = self.resolve(path)?;
        if !self.visited_files.insert(real) {
            return Ok(None);
        }
        self.files_read += 1;
        if self.files_read > self.limits.max_files {
            return Err(ManifestError::TreeTooLarge {
                path: display(&self.shown_root),
                what: format!("more than {} files", self.limits.max_files),
            });
        }
        read_file(path, &self.limits).map(Some)
    }

    /// The subdirectories and manifest files (`*.yaml`, `*.yml`, `*.json`, other than
    /// kustomization files) of `dir`, sorted; `Ok(None)` when the directory was walked before
    /// (reached again through a link: a loop, or two links to one place).
    ///
    /// # Errors
    /// A link leaving the tree, a device, FIFO or socket named like a manifest, an unreadable
    /// directory, or a tree deeper than the limits.
    pub fn entries(
        &mut self,
        dir: &Path,
        depth: usize,
    ) -> Result<Option<Vec<Entry>>, ManifestError> {
        if depth > self.limits.max_tree_depth {
            return Err(ManifestError::TreeTooLarge {
                path: display(dir),
                what: format!("deeper than {} directories", self.limits.max_tree_depth),
            });
        }
        let real = self.resolve(dir)?;
        if !self.visited_dirs.insert(real) {
            return Ok(None);
        }
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| ManifestError::io(dir, e))?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .map_err(|e| ManifestError::io(dir, e))?;
        paths.sort();
        let mut entries = Vec::new();
        for path in paths {
            // Where a link points must stay in the tree, whatever it is.
            let real = self.resolve(&path)?;
            let meta = std::fs::metadata(&real).map_err(|e| ManifestError::io(&path, e))?;
            if meta.is_dir() {
                entries.push(Entry::Dir(path));
            } else if is_manifest_name(&path) {
                if !meta.is_file() {
                    return Err(ManifestError::NotRegular {
                        path: display(&path),
                        kind: kind(&meta),
                    });
                }
                entries.push(Entry::File(path));
            }
        }
        Ok(Some(entries))
    }
}

/// An entry of a directory of the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// A subdirectory.
    Dir(PathBuf),
    /// A manifest file.
    File(PathBuf),
}

/// `*.yaml`, `*.yml` or `*.json`, other than a kustomization file.
fn is_manifest_name(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    !KUSTOMIZATION_FILES.contains(&name)
        && matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json")
        )
}
