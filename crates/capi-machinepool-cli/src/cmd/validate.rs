//! `capi-machinepool validate`: default and validate every MachinePool of a file, as the API
//! server would (structural schema of the version, then conversion to v1beta2 and upstream's
//! defaulting and validating webhook).

use std::path::Path;
use std::process::ExitCode;

use capi_machinepool_api::admission::{FeatureGates, default_machine_pool, validate_machine_pool};
use capi_machinepool_api::constants::{
    API_VERSION_V1BETA1, API_VERSION_V1BETA2, GROUP, KIND, V1BETA1, V1BETA2,
};
use capi_machinepool_api::{crd, v1beta1, v1beta2};
use capi_machinepool_conversion::{error_chain, machine_pool::to_hub};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::documents::{read_input, split};

/// Findings of one document.
#[derive(Default)]
struct Findings {
    errors: Vec<String>,
    warnings: Vec<String>,
}

fn decode<T: DeserializeOwned>(value: Value) -> Result<T, String> {
    serde_path_to_error::deserialize::<_, T>(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            inner.to_string()
        } else {
            format!("{path}: {inner}")
        }
    })
}

fn pointer_to_path(pointer: &str) -> String {
    let mut out = String::new();
    for part in pointer.split('/').skip(1) {
        let part = part.replace("~1", "/").replace("~0", "~");
        if part.chars().all(|c| c.is_ascii_digit()) && !part.is_empty() {
            out.push_str(&format!("[{part}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&part);
        }
    }
    if out.is_empty() { "<root>".into() } else { out }
}

fn schema_errors(version: &str, value: &Value, findings: &mut Findings) {
    let Some(schema) = crd::version_schema(version) else {
        return;
    };
    match jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .build(&schema)
    {
        Ok(validator) => {
            for e in validator.iter_errors(value) {
                findings.errors.push(format!(
                    "{}: {e} (schema)",
                    pointer_to_path(e.instance_path().as_str())
                ));
            }
        }
        Err(e) => findings
            .errors
            .push(format!("<internal>: schema does not compile: {e}")),
    }
}

fn is_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

/// Fields of `input` that the typed object does not carry (they would be dropped).
fn dropped(path: &str, input: &Value, output: &Value, out: &mut Vec<String>) {
    match (input, output) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match b.get(k) {
                    Some(w) => dropped(&p, v, w, out),
                    None if !is_zero(v) => out.push(p),
                    None => {}
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (v, w)) in a.iter().zip(b).enumerate() {
                dropped(&format!("{path}[{i}]"), v, w, out);
            }
        }
        _ => {}
    }
}

fn round_trip<T: DeserializeOwned + Serialize>(
    value: &Value,
    findings: &mut Findings,
) -> Option<T> {
    match decode::<T>(value.clone()) {
        Ok(typed) => {
            if let Ok(out) = serde_json::to_value(&typed) {
                let mut lost = Vec::new();
                dropped("", value, &out, &mut lost);
                for p in lost {
                    findings.warnings.push(format!(
                        "{p}: unknown field, not part of the MachinePool API (dropped)"
                    ));
                }
            }
            Some(typed)
        }
        Err(e) => {
            findings.errors.push(e);
            None
        }
    }
}

fn check(value: &Value, findings: &mut Findings) {
    let api_version = value["apiVersion"].as_str().unwrap_or_default();
    let hub = match api_version {
        API_VERSION_V1BETA2 => {
            schema_errors(V1BETA2, value, findings);
            round_trip::<v1beta2::MachinePool>(value, findings)
        }
        API_VERSION_V1BETA1 => {
            schema_errors(V1BETA1, value, findings);
            round_trip::<v1beta1::MachinePool>(value, findings).and_then(|spoke| {
                match to_hub(spoke) {
                    Ok(hub) => Some(hub),
                    Err(e) => {
                        findings
                            .errors
                            .push(format!("<conversion to v1beta2>: {}", error_chain(&e)));
                        None
                    }
                }
            })
        }
        other => {
            findings.errors.push(format!("apiVersion: {other:?} is not served (expected {API_VERSION_V1BETA2} or {API_VERSION_V1BETA1})"));
            None
        }
    };
    let Some(mut hub) = hub else { return };
    if let Err(e) = default_machine_pool(&mut hub, None) {
        findings.errors.push(format!("metadata.annotations: {e}"));
        return;
    }
    for e in validate_machine_pool(&hub, None, &FeatureGates::default()) {
        findings.errors.push(e.to_string());
    }
}

pub fn run(file: &Path) -> Result<ExitCode, String> {
    let name = file.display().to_string();
    let docs = split(&name, &read_input(file)?)?;
    let (mut pools, mut invalid) = (0usize, 0usize);
    for (index, doc) in docs.iter().enumerate() {
        let Some(value) = &doc.value else { continue };
        let group_ok = value["apiVersion"]
            .as_str()
            .is_some_and(|a| a.starts_with(&format!("{GROUP}/")));
        if value["kind"] != KIND || !group_ok {
            continue;
        }
        pools += 1;
        let mut findings = Findings::default();
        check(value, &mut findings);
        let meta = &value["metadata"];
        let id = match (
            meta["namespace"].as_str(),
            meta["name"].as_str().unwrap_or("<no name>"),
        ) {
            (Some(ns), n) => format!("{ns}/{n}"),
            (None, n) => n.to_owned(),
        };
        let verdict = if findings.errors.is_empty() {
            "ok"
        } else {
            "invalid"
        };
        println!(
            "{name}#{index} MachinePool {id} ({}): {verdict}",
            value["apiVersion"].as_str().unwrap_or("?")
        );
        for e in &findings.errors {
            println!("  error   {e}");
        }
        for w in &findings.warnings {
            println!("  warning {w}");
        }
        if !findings.errors.is_empty() {
            invalid += 1;
        }
    }
    println!("{name}: {pools} MachinePool(s), {invalid} invalid");
    Ok(if invalid > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_become_dotted_paths() {
        assert_eq!(
            pointer_to_path("/spec/template/spec/readinessGates/0/conditionType"),
            "spec.template.spec.readinessGates[0].conditionType"
        );
        assert_eq!(pointer_to_path(""), "<root>");
    }

    #[test]
    fn dropped_fields_are_listed() {
        let input = serde_json::json!({"spec": {"a": 1, "b": "", "c": {"d": true}}});
        let output = serde_json::json!({"spec": {"c": {}}});
        let mut out = Vec::new();
        dropped("", &input, &output, &mut out);
        assert_eq!(out, ["spec.a", "spec.c.d"]);
    }
}
