//! `capi-machinepool crd`.

use std::process::ExitCode;

pub fn run() -> Result<ExitCode, String> {
    let crd = capi_machinepool_api::machine_pool_crd_value();
    let yaml = serde_saphyr::to_string(&crd).map_err(|e| format!("cannot render the CRD: {e}"))?;
    print!("---\n{yaml}");
    Ok(ExitCode::SUCCESS)
}
