//! Reading the command line's inputs: files, directories and standard input, one document
//! at a time where the input is a stream.

use std::io::BufRead;
use std::path::Path;

use capi_manifests::load::{StreamDocument, stream};
use capi_manifests::{Limits, ManifestError};

/// The limits of every input (see `capi_manifests::Limits` for the values and why).
pub fn limits() -> Limits {
    Limits::default()
}

/// A one-line message for an input error, with its causes.
pub fn message(e: &ManifestError) -> String {
    capi_diagnostics::error_chain(e)
}

/// Calls `each` with every piece of the stream of `path` (`-` is standard input), one at a
/// time; an error stops the stream.
pub fn for_each_document(
    path: &Path,
    mut each: impl FnMut(StreamDocument) -> Result<(), crate::output::Failure>,
) -> Result<(), crate::output::Failure> {
    // Names as sources and annotations show them: bytes that are not UTF-8 as `\xNN`.
    let name = capi_manifests::display_path(path);
    let reader: Box<dyn BufRead> = if path == Path::new("-") {
        Box::new(std::io::stdin().lock())
    } else {
        // A file named on the command line is streamed (any size; each document is limited),
        // so pipes such as `<(kustomize build ...)` work too. Directories are trees, read
        // with `capi_manifests::load`.
        let meta = std::fs::metadata(path).map_err(|e| format!("{name}: cannot read: {e}"))?;
        if meta.is_dir() {
            return Err(format!("{name}: a directory, not a file").into());
        }
        let file = std::fs::File::open(path).map_err(|e| format!("{name}: cannot read: {e}"))?;
        Box::new(std::io::BufReader::with_capacity(256 * 1024, file))
    };
    for item in stream(reader, &name, limits()) {
        each(item.map_err(|e| message(&e))?)?;
    }
    Ok(())
}
