//! `capi-machinepool convert`: rewrite every MachinePool of a YAML stream to one version, one
//! document at a time; other documents (and comment-only pieces) pass through byte for byte.
//!
//! Nothing is written until the whole stream is known good: with `| kubectl apply -f -` and no
//! `pipefail`, a partial output would be a partial set applied. The converted stream is spooled
//! to an anonymous temporary file (deleted by the system when closed, whatever happens) and
//! copied to standard output only once every document has converted. Memory stays bounded by
//! the largest document; the temporary directory holds one copy of the output.

use std::fs::File;
use std::io::{BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use capi_diagnostics::error_chain;
use capi_machinepool_api::constants::{API_VERSION_V1BETA1, API_VERSION_V1BETA2, is_machine_pool};
use capi_machinepool_conversion::{ObjectConverter, machine_pool_converter};

use crate::Version;
use crate::output::{Failure, Output};

/// The converted stream, held on disk until it is complete.
struct Spool {
    file: BufWriter<File>,
}

impl Spool {
    fn new() -> Result<Self, Failure> {
        let file = tempfile::tempfile()
            .map_err(|e| format!("cannot create a temporary file for the output: {e}"))?;
        Ok(Self {
            file: BufWriter::with_capacity(256 * 1024, file),
        })
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        self.file
            .write_all(bytes)
            .map_err(|e| Failure::from(format!("temporary output file: {e}")))
    }

    /// Copies the whole spool to standard output.
    fn copy_to(self, out: &mut Output, ok: ExitCode) -> Result<(), Failure> {
        let error = |e: std::io::Error| Failure::from(format!("temporary output file: {e}"));
        let mut file = self.file.into_inner().map_err(|e| error(e.into_error()))?;
        file.rewind().map_err(error)?;
        let mut buffer = vec![0; 256 * 1024];
        loop {
            let read = file.read(&mut buffer).map_err(error)?;
            if read == 0 {
                return Ok(());
            }
            out.write(&buffer[..read], ok)?;
        }
    }
}

pub fn run(
    to: Version,
    crds: &[PathBuf],
    map: &[String],
    file: &Path,
) -> Result<ExitCode, Failure> {
    let converter = machine_pool_converter(super::resolver(crds, map)?);
    let target = match to {
        Version::V1beta1 => API_VERSION_V1BETA1,
        Version::V1beta2 => API_VERSION_V1BETA2,
    };
    let ok = ExitCode::SUCCESS;
    let mut spool = Spool::new()?;
    crate::input::for_each_document(file, |doc| {
        if doc.raw.empty {
            // Comments and blank lines between documents stay where they were.
            spool.write(doc.raw.text.as_bytes())?;
            return Ok(());
        }
        spool.write(b"---\n")?;
        match doc.value {
            // Already at the target version: untouched, like every other document.
            Some(value) if is_machine_pool(&value) && value["apiVersion"] != target => {
                let converted = converter.convert_value(&value, target).map_err(|e| {
                    format!(
                        "{}: cannot convert to {target}: {}; nothing was written",
                        doc.raw.source,
                        error_chain(&e)
                    )
                })?;
                let yaml = serde_saphyr::to_string(&converted)
                    .map_err(|e| format!("{}: {e}; nothing was written", doc.raw.source))?;
                spool.write(yaml.as_bytes())?;
            }
            _ => {
                spool.write(doc.raw.text.as_bytes())?;
                if !doc.raw.text.ends_with('\n') {
                    spool.write(b"\n")?;
                }
            }
        }
        Ok(())
    })
    .map_err(|e| match e {
        Failure::Message(m) if !m.ends_with("nothing was written") => {
            Failure::Message(format!("{m}; nothing was written"))
        }
        other => other,
    })?;
    let mut out = Output::stdout();
    spool.copy_to(&mut out, ok)?;
    out.flush(ok)?;
    Ok(ok)
}
