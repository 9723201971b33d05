//! `capi-machinepool convert`: rewrite every MachinePool of a YAML stream to one version.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use capi_machinepool_api::constants::{API_VERSION_V1BETA1, API_VERSION_V1BETA2, GROUP, KIND};
use capi_machinepool_conversion::{ObjectConverter, error_chain, machine_pool_converter};

use crate::Version;
use crate::documents::{read_input, split};

fn is_machine_pool(value: &serde_json::Value) -> bool {
    value["kind"] == KIND
        && value["apiVersion"]
            .as_str()
            .is_some_and(|a| a.starts_with(&format!("{GROUP}/")))
}

pub fn run(to: Version, crds: &[PathBuf], map: &[String], file: &Path) -> Result<ExitCode, String> {
    let name = file.display().to_string();
    let text = read_input(file)?;
    let docs = split(&name, &text)?;
    let resolver = super::resolver::build(crds, map)?;
    let converter = machine_pool_converter(&resolver);
    let target = match to {
        Version::V1beta1 => API_VERSION_V1BETA1,
        Version::V1beta2 => API_VERSION_V1BETA2,
    };
    let mut out = String::new();
    for (index, doc) in docs.into_iter().enumerate() {
        out.push_str("---\n");
        match doc.value {
            // Already at the target version: untouched, like every other document.
            Some(value) if is_machine_pool(&value) && value["apiVersion"] != target => {
                let converted = converter.convert(value, target).map_err(|e| {
                    format!(
                        "{name}#{index}: cannot convert to {target}: {}",
                        error_chain(&e)
                    )
                })?;
                let yaml = serde_saphyr::to_string(&converted)
                    .map_err(|e| format!("{name}#{index}: {e}"))?;
                out.push_str(&yaml);
            }
            _ => {
                out.push_str(&doc.text);
                if !doc.text.ends_with('\n') {
                    out.push('\n');
                }
            }
        }
    }
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}
