//! `capi-machinepool crd`.

use std::process::ExitCode;

use crate::output::{Failure, Output};

pub fn run() -> Result<ExitCode, Failure> {
    let crd = capi_machinepool_api::machine_pool_crd_value();
    let yaml = serde_saphyr::to_string(&crd).map_err(|e| format!("cannot render the CRD: {e}"))?;
    let mut out = Output::stdout();
    out.write(format!("---\n{yaml}").as_bytes(), ExitCode::SUCCESS)?;
    out.flush(ExitCode::SUCCESS)?;
    Ok(ExitCode::SUCCESS)
}
