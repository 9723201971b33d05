//! `capi-machinepool review`: ConversionReview JSON on stdin, response on stdout.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use capi_machinepool_conversion::{machine_pool_converter, review};

pub fn run(crds: &[PathBuf], map: &[String]) -> Result<ExitCode, String> {
    let resolver = super::resolver::build(crds, map)?;
    let converter = machine_pool_converter(&resolver);
    let mut body = Vec::new();
    std::io::stdin()
        .read_to_end(&mut body)
        .map_err(|e| format!("stdin: {e}"))?;
    let out = review::handle_json(&converter, &body);
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(&out)
        .and_then(|()| stdout.write_all(b"\n"))
        .map_err(|e| format!("stdout: {e}"))?;
    Ok(ExitCode::SUCCESS)
}
