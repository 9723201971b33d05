//! `capi-machinepool validate`: the library's [`Validation`] over a stream (and, with
//! `--old`, the stored objects it updates), printed, with the exit code of its verdict.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use capi_machinepool_admission::Admission;
use capi_machinepool_rollout::skew::{SkewRule, VersionAt};
use capi_machinepool_rollout::{PoolFinding, PoolReport, Validation, ValidationReport};

use capi_diagnostics::excerpt::printable;

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
    server: Option<crate::server::ServerArgs>,
) -> Result<ExitCode, Failure> {
    let server = server
        .as_ref()
        .map(crate::server::ApiServer::connect)
        .transpose()?;
    // `--server`: the server's own verdict on each MachinePool, by source.
    let mut verdicts: std::collections::BTreeMap<String, ServerAnswer> = Default::default();
    let admission = Admission::new().map_err(|e| e.to_string())?;
    let mut validation = Validation::new(&admission);
    if let Some(version) = control_plane_version {
        validation = validation.with_control_plane_version(VersionAt::new(version, FLAG));
    }
    if let Some(old) = old {
        crate::input::stdin_once([file, old])?;
        crate::input::for_each_object_as_sent(old, |_, value| {
            validation.add_stored(&value);
            Ok(())
        })?;
    }
    crate::input::for_each_object_as_sent(file, |source, value| {
        if let Some(server) = &server
            && value["kind"] == "MachinePool"
            && value["apiVersion"]
                .as_str()
                .is_some_and(|v| v.starts_with("cluster.x-k8s.io/"))
        {
            verdicts.insert(source.to_string(), ask(server, &value)?);
        }
        validation.add(source.to_string(), &value);
        Ok(())
    })?;
    let report = validation.finish();
    let mut text = String::new();
    let mut refused = 0;
    for pool in &report.pools {
        let _ = write!(text, "{pool}");
        if let (Some(server), Some(answer)) = (&server, verdicts.get(&pool.source)) {
            refused += usize::from(!answer.is_empty());
            if answer.is_empty() {
                let _ = writeln!(
                    text,
                    "  server  the API server {} accepts it (server-side dry run)",
                    server.url()
                );
            }
            // The server's causes quote the input (field names, values): escaped.
            for line in answer {
                let _ = writeln!(text, "  server  error   {}", printable(line));
            }
        }
        text.push_str(&hint(pool));
    }
    let _ = writeln!(
        text,
        "{}: {} MachinePool(s), {} invalid",
        printable(&file.display().to_string()),
        report.pools.len(),
        report.invalid()
    );
    if server.is_some() {
        let _ = writeln!(text, "{refused} refused by the API server");
    }
    let code = if report.passes() && refused == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    let mut out = Output::stdout();
    out.write(text.as_bytes(), code)?;
    out.flush(code)?;
    Ok(code)
}

/// The hint line under a pool whose skew was not checked (empty otherwise).
fn hint(pool: &PoolReport) -> String {
    let unchecked = pool
        .findings
        .iter()
        .any(|f| matches!(f, PoolFinding::Skew(skew) if skew.rule == SkewRule::NotChecked && skew.severity.is_some()));
    if unchecked {
        format!("  hint    pass {FLAG} to check the version skew\n")
    } else {
        String::new()
    }
}

/// The verdicts `validate -f` gives for objects already read (`(source, object)`, in stream
/// order; no `--old`, no `--server`): the report and its text, one block per MachinePool as
/// `validate` prints it.
pub fn verdicts<'a>(
    objects: impl IntoIterator<Item = (String, &'a serde_json::Value)>,
) -> Result<(ValidationReport, String), Failure> {
    let admission = Admission::new().map_err(|e| e.to_string())?;
    let mut validation = Validation::new(&admission);
    for (source, value) in objects {
        validation.add(source, value);
    }
    let report = validation.finish();
    let mut text = String::new();
    for pool in &report.pools {
        let _ = write!(text, "{pool}");
        text.push_str(&hint(pool));
    }
    Ok((report, text))
}

/// The server's causes for refusing one MachinePool (empty: accepted).
type ServerAnswer = Vec<String>;

/// A dry-run create of `object` at its own version, in its namespace (`default` when none).
fn ask(
    server: &crate::server::ApiServer,
    object: &serde_json::Value,
) -> Result<ServerAnswer, Failure> {
    let version = object["apiVersion"]
        .as_str()
        .and_then(|v| v.split_once('/'))
        .map_or("", |(_, v)| v);
    let namespace = object["metadata"]["namespace"]
        .as_str()
        .unwrap_or("default");
    let path = format!("/apis/cluster.x-k8s.io/{version}/namespaces/{namespace}/machinepools");
    match server.dry_run_create(&path, object) {
        Ok(crate::server::Answer::Accepted) => Ok(Vec::new()),
        Ok(crate::server::Answer::Refused(status)) if status.code == 404 && status.details.as_ref().is_none_or(|d| d.kind != "namespaces") => {
            Err(format!(
                "--server: the API server {} does not serve MachinePools at cluster.x-k8s.io/{version} ({}); install the MachinePool CRD first (`capi-machinepool crd | kubectl apply -f -`)",
                server.url(),
                status.message
            )
            .into())
        }
        Ok(crate::server::Answer::Refused(status)) => {
            let causes = crate::server::causes(&status);
            if causes.is_empty() {
                return Ok(vec![status.message]);
            }
            Ok(causes
                .into_iter()
                .map(|c| format!("{}: {}", c.field, c.message))
                .collect())
        }
        Err(reason) => Err(format!("--server: {reason}").into()),
    }
}
