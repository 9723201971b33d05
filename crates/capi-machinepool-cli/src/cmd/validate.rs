//! `capi-machinepool validate`: the library's [`Validation`] over a stream (and, with
//! `--old`, the stored objects it updates), printed, with the exit code of its verdict.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use capi_machinepool_admission::Admission;
use capi_machinepool_rollout::skew::{SkewRule, VersionAt};
use capi_machinepool_rollout::{PoolFinding, Validation};

use crate::output::{Failure, Output};

/// What `--control-plane-version` is called where a finding quotes it.
const FLAG: &str = "--control-plane-version";

/// Reads `--control-plane-version`: a semantic version (`v1.34.0`), `v` prefix optional.
pub fn parse_control_plane_version(text: &str) -> Result<String, String> {
    capi_machinepool_rollout::skew::parse_version(text)
        .map(|_| text.to_owned())
        .map_err(|e| format!("not a Kubernetes version such as v1.34.0 ({})", e.reason))
}

pub fn run(
    file: &Path,
    old: Option<&Path>,
    control_plane_version: Option<&str>,
) -> Result<ExitCode, Failure> {
    let admission = Admission::new().map_err(|e| e.to_string())?;
    let mut validation = Validation::new(&admission);
    if let Some(version) = control_plane_version {
        validation = validation.with_control_plane_version(VersionAt::new(version, FLAG));
    }
    if let Some(old) = old {
        crate::input::stdin_once([file, old])?;
        crate::input::for_each_object(old, |_, value| {
            validation.add_stored(&value);
            Ok(())
        })?;
    }
    crate::input::for_each_object(file, |source, value| {
        validation.add(source.to_string(), &value);
        Ok(())
    })?;
    let report = validation.finish();
    let mut text = String::new();
    for pool in &report.pools {
        let _ = write!(text, "{pool}");
        let unchecked = pool
            .findings
            .iter()
            .any(|f| matches!(f, PoolFinding::Skew(skew) if skew.rule == SkewRule::NotChecked && skew.severity.is_some()));
        if unchecked {
            let _ = writeln!(text, "  hint    pass {FLAG} to check the version skew");
        }
    }
    let _ = writeln!(
        text,
        "{}: {} MachinePool(s), {} invalid",
        file.display(),
        report.pools.len(),
        report.invalid()
    );
    let code = if report.passes() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    let mut out = Output::stdout();
    out.write(text.as_bytes(), code)?;
    out.flush(code)?;
    Ok(code)
}
