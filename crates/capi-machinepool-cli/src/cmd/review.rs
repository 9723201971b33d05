//! `capi-machinepool review`: ConversionReview JSON on stdin, response on stdout.
//!
//! The response is printed whatever it says; the exit status is 0 when it answers the request
//! (its `result` says whether the conversion succeeded) and 2 when the input could not be read
//! as a ConversionReview (the 400 Failure a webhook would answer) or the response could not be
//! printed, as the exit status list of `--help` documents for unreadable input.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use capi_machinepool_conversion::{machine_pool_converter, review};

use crate::output::{Failure, Output};

/// Largest review read (the API server sends at most 3 MiB by default).
const MAX_REVIEW_BYTES: u64 = 64 << 20;

pub fn run(crds: &[PathBuf], map: &[String]) -> Result<ExitCode, Failure> {
    // The review is read from standard input: `--crds -` would leave it nothing.
    crate::input::stdin_once(
        crds.iter()
            .map(PathBuf::as_path)
            .chain([std::path::Path::new("-")]),
    )?;
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
    let code = if response.status == 200 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    };
    let mut out = Output::stdout();
    out.write(&response.body, code)?;
    out.write(b"\n", code)?;
    out.flush(code)?;
    Ok(code)
}
