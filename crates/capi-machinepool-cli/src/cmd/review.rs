//! `capi-machinepool review`: ConversionReview JSON on stdin, response on stdout.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use capi_machinepool_conversion::{machine_pool_converter, review};

use crate::output::{Failure, Output};

/// Largest review read (the API server sends at most 3 MiB by default).
const MAX_REVIEW_BYTES: u64 = 64 << 20;

pub fn run(crds: &[PathBuf], map: &[String]) -> Result<ExitCode, Failure> {
    let converter = machine_pool_converter(super::resolver(crds, map)?);
    let mut body = Vec::new();
    std::io::stdin()
        .take(MAX_REVIEW_BYTES + 1)
        .read_to_end(&mut body)
        .map_err(|e| format!("stdin: {e}"))?;
    if body.len() as u64 > MAX_REVIEW_BYTES {
        return Err(format!("stdin: larger than {MAX_REVIEW_BYTES} bytes").into());
    }
    let response = review::handle_bytes(&converter, &body);
    let mut out = Output::stdout();
    out.write(&response.body, ExitCode::SUCCESS)?;
    out.write(b"\n", ExitCode::SUCCESS)?;
    out.flush(ExitCode::SUCCESS)?;
    Ok(ExitCode::SUCCESS)
}
