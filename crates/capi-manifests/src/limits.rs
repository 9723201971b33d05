//! Limits on what is read: inputs come from trees anyone can send a pull request to.

/// Limits applied while reading manifests. The defaults are generous for real provider trees
/// and rendered bundles (the largest real CRD is under 2 MB; a big provider's rendered
/// `infrastructure-components.yaml` is about 10 MB) and small enough that a hostile input
/// cannot exhaust memory or time.
///
/// ```
/// use capi_manifests::Limits;
/// let strict = Limits { max_file_bytes: 1 << 20, ..Limits::default() };
/// assert!(strict.max_file_bytes < Limits::default().max_file_bytes);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest file read from a directory tree or named on the command line (default 64 MiB).
    /// Standard input is a stream and is not limited as a whole.
    pub max_file_bytes: u64,
    /// Largest single YAML document (default 64 MiB).
    pub max_document_bytes: usize,
    /// Most YAML nodes (scalars, sequences, mappings) in one document (default 300,000). A node
    /// costs about 575 bytes of resident memory as a parsed tree (issue 31 measured 2.3 GB for
    /// 4,000,000), so 300,000 nodes stay under ~256 MB with the input; the largest real CRD
    /// (~2 MB) holds far fewer.
    pub max_nodes: usize,
    /// Deepest nesting of sequences and mappings in one document (default 256; CRD schemas
    /// nest about 30 levels).
    pub max_depth: usize,
    /// Most YAML nodes in all the documents one load keeps, patch results and every use of a
    /// patch included (default 300,000, the budget of one document: the largest real provider
    /// tree in the test corpus holds about 31,000). Per-document limits alone do not bound a
    /// directory of many alias-expanded documents, or a patch file named many times.
    pub max_total_nodes: usize,
    /// Most files read from directory trees in one run (default 100,000).
    pub max_files: usize,
    /// Deepest directory nesting walked (default 64).
    pub max_tree_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_file_bytes: 64 << 20,
            max_document_bytes: 64 << 20,
            max_nodes: 300_000,
            max_depth: 256,
            max_total_nodes: 300_000,
            max_files: 100_000,
            max_tree_depth: 64,
        }
    }
}
