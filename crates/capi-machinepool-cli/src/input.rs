//! Reading the command line's inputs: files, directories and standard input, one document
//! at a time where the input is a stream.

use std::io::BufRead;
use std::path::Path;

use capi_manifests::load::{StreamDocument, stream};
use capi_manifests::{Limits, ManifestError, Source};

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
    each: impl FnMut(StreamDocument) -> Result<(), crate::output::Failure>,
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
    for_each_document_in(reader, &name, each)
}

/// [`for_each_document`] of a stream already opened (named `name` in sources).
pub fn for_each_document_in(
    reader: Box<dyn BufRead + '_>,
    name: &str,
    mut each: impl FnMut(StreamDocument) -> Result<(), crate::output::Failure>,
) -> Result<(), crate::output::Failure> {
    for item in stream(reader, name, limits()) {
        each(item.map_err(|e| message(&e))?)?;
    }
    Ok(())
}

/// Calls `each` with every object of the stream of `path`: each document, and each item of a
/// `List` or `<Kind>List` document (as kubectl reads them, see `capi_manifests::list`), in
/// order; empty documents and `null`s are left out.
pub fn for_each_object(
    path: &Path,
    each: impl FnMut(Source, serde_json::Value) -> Result<(), crate::output::Failure>,
) -> Result<(), crate::output::Failure> {
    objects(path, false, each)
}

/// [`for_each_object`] with the numbers of YAML documents as `kubectl apply` sends them
/// (`capi_manifests::numbers`: `replicas: 3.0` in YAML reaches the server as 3; a JSON
/// document's numbers are kept as written).
pub fn for_each_object_as_sent(
    path: &Path,
    each: impl FnMut(Source, serde_json::Value) -> Result<(), crate::output::Failure>,
) -> Result<(), crate::output::Failure> {
    objects(path, true, each)
}

/// The objects of `path`, their YAML numbers as kubectl sends them when `as_sent`.
fn objects(
    path: &Path,
    as_sent: bool,
    mut each: impl FnMut(Source, serde_json::Value) -> Result<(), crate::output::Failure>,
) -> Result<(), crate::output::Failure> {
    for_each_document(path, |doc| {
        let Some(mut value) = doc.value.filter(|v| !v.is_null()) else {
            return Ok(());
        };
        if as_sent && !capi_manifests::numbers::is_json(&doc.raw.text) {
            capi_manifests::numbers::as_kubectl_sends(&mut value);
        }
        let items = capi_manifests::list::items(&doc.raw.source, value).map_err(|e| message(&e))?;
        for (source, value) in items {
            each(source, value)?;
        }
        Ok(())
    })
}

/// Refuses a command line that names standard input (`-`) more than once: the first reader
/// would drain it and the others would silently read nothing.
pub fn stdin_once<'a>(
    paths: impl IntoIterator<Item = &'a Path>,
) -> Result<(), crate::output::Failure> {
    let named = paths.into_iter().filter(|p| *p == Path::new("-")).count();
    if named > 1 {
        return Err(format!(
            "standard input (`-`) is named {named} times; it can be read only once"
        )
        .into());
    }
    Ok(())
}
