//! `capi-machinepool validate`: default and validate every MachinePool of a stream as the API
//! server would, and check each one's Kubernetes version skew against its control plane.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use capi_machinepool_admission::rollout::{self, ControlPlanes};
use capi_machinepool_admission::{Admission, Severity};
use capi_machinepool_api::constants::is_machine_pool;
use capi_machinepool_api::excerpt::excerpt;
use capi_machinepool_api::skew;
use capi_machinepool_api::v1beta2;

use crate::output::{Failure, Output};

/// What is printed for one MachinePool, once the whole stream is read (skew needs the
/// control planes, which may come after the pools).
struct Pool {
    heading: String,
    errors: Vec<String>,
    warnings: Vec<String>,
    admitted: Option<v1beta2::MachinePool>,
}

pub fn run(file: &Path, control_plane_version: Option<&str>) -> Result<ExitCode, Failure> {
    let name = file.display().to_string();
    let admission = Admission::new().map_err(|e| e.to_string())?;
    let mut control_planes = ControlPlanes::new();
    let mut pools = Vec::new();
    crate::input::for_each_document(file, |doc| {
        let Some(value) = doc.value else {
            return Ok(());
        };
        if control_planes.add(&value) || !is_machine_pool(&value) {
            return Ok(());
        }
        let admitted = admission.admit(&value);
        let meta = &value["metadata"];
        let id = match (
            meta["namespace"].as_str(),
            meta["name"].as_str().unwrap_or("<no name>"),
        ) {
            (Some(ns), n) => format!("{}/{}", excerpt(ns), excerpt(n)),
            (None, n) => excerpt(n),
        };
        let render = |severity| -> Vec<String> {
            admitted
                .findings_of(severity)
                .map(ToString::to_string)
                .collect()
        };
        pools.push(Pool {
            heading: format!(
                "{} MachinePool {id} ({})",
                doc.raw.source,
                excerpt(value["apiVersion"].as_str().unwrap_or("?"))
            ),
            errors: render(Severity::Error),
            warnings: render(Severity::Warning),
            admitted: admitted.machine_pool,
        });
        Ok(())
    })?;
    let mut text = String::new();
    let (total, mut invalid) = (pools.len(), 0usize);
    for mut pool in pools {
        if let Some(mp) = &pool.admitted {
            for finding in rollout::check_pool(mp, &control_planes, control_plane_version) {
                let line = format!("version skew: {finding}");
                match finding.severity {
                    skew::Severity::Error => pool.errors.push(line),
                    skew::Severity::Warning => pool.warnings.push(line),
                }
            }
        }
        let verdict = if pool.errors.is_empty() {
            "ok"
        } else {
            "invalid"
        };
        let _ = writeln!(text, "{}: {verdict}", pool.heading);
        for e in &pool.errors {
            let _ = writeln!(text, "  error   {e}");
        }
        for w in &pool.warnings {
            let _ = writeln!(text, "  warning {w}");
        }
        if !pool.errors.is_empty() {
            invalid += 1;
        }
    }
    let _ = writeln!(text, "{name}: {total} MachinePool(s), {invalid} invalid");
    let code = if invalid > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    let mut out = Output::stdout();
    out.write(text.as_bytes(), code)?;
    out.flush(code)?;
    Ok(code)
}
