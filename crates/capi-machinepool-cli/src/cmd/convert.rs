//! `capi-machinepool convert`: rewrite every MachinePool of a YAML stream to one version, one
//! document at a time; other documents (and comment-only pieces) pass through byte for byte.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use capi_diagnostics::error_chain;
use capi_machinepool_api::constants::{API_VERSION_V1BETA1, API_VERSION_V1BETA2, is_machine_pool};
use capi_machinepool_conversion::{ObjectConverter, machine_pool_converter};

use crate::Version;
use crate::output::{Failure, Output};

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
    let mut out = Output::stdout();
    crate::input::for_each_document(file, |doc| {
        if doc.raw.empty {
            // Comments and blank lines between documents stay where they were.
            out.write(doc.raw.text.as_bytes(), ok)?;
            return Ok(());
        }
        out.write(b"---\n", ok)?;
        match doc.value {
            // Already at the target version: untouched, like every other document.
            Some(value) if is_machine_pool(&value) && value["apiVersion"] != target => {
                let converted = converter.convert_value(&value, target).map_err(|e| {
                    format!(
                        "{}: cannot convert to {target}: {}",
                        doc.raw.source,
                        error_chain(&e)
                    )
                })?;
                let yaml = serde_saphyr::to_string(&converted)
                    .map_err(|e| format!("{}: {e}", doc.raw.source))?;
                out.write(yaml.as_bytes(), ok)?;
            }
            _ => {
                out.write(doc.raw.text.as_bytes(), ok)?;
                if !doc.raw.text.ends_with('\n') {
                    out.write(b"\n", ok)?;
                }
            }
        }
        Ok(())
    })?;
    out.flush(ok)?;
    Ok(ok)
}
