//! SARIF 2.1.0 (OASIS Static Analysis Results Interchange Format), for code scanning
//! (`github/codeql-action/upload-sarif`): one run of the tool `capi-machinepool`, every rule the
//! report used with its contract-page link, and one result per FAIL, WARN and INFO finding with
//! its level, message, the line and column of its field (or of the patch or kustomization
//! entry that set the value), the rendered document as a related location, and a fingerprint
//! of what identifies it (see [`fingerprints`](super::fingerprints)).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::report::{Finding, Outcome, Report};

use super::{FINGERPRINT_KEY, printable};

/// The SARIF schema the output declares (the OASIS standard's, 2.1.0).
pub const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// SARIF's `level` for an outcome (`none` for a pass, which is not reported).
fn level(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Fail => "error",
        Outcome::Warn => "warning",
        Outcome::Info => "note",
        Outcome::Pass => "none",
    }
}

/// A `file:` path as a SARIF artifact URI: relative paths stay relative (resolved against the
/// repository root by code scanning), characters outside RFC 3986's unreserved and `/` are
/// percent-encoded.
fn artifact_uri(file: &str) -> String {
    let mut out = String::new();
    for b in file.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// One SARIF result: level, message, the finding's location (the field's line and column,
/// or the entry that set it), the rendered document as a related location, and the
/// finding's fingerprint.
fn result(f: &Finding, rule_index: usize, print: &str) -> Value {
    let mut text = format!(
        "{} {} {}: {}",
        f.level,
        printable(&f.subject.to_string()),
        printable(&f.path),
        printable(&f.message)
    );
    if !f.fix.is_empty() {
        text.push_str(&format!("\nFix: {}", printable(&f.fix)));
    }
    let mut result = json!({
        "ruleId": f.rule.id,
        "ruleIndex": rule_index,
        "level": level(f.outcome),
        "message": {"text": text},
        "partialFingerprints": {FINGERPRINT_KEY: print},
        "properties": {"contract": f.contract.to_string(), "path": f.path},
    });
    if let Some(at) = f.location() {
        result["locations"] = json!([{
            "physicalLocation": {
                "artifactLocation": {"uri": artifact_uri(&at.file)},
                "region": {
                    "startLine": at.line.max(1),
                    "endLine": at.line.max(1),
                    "startColumn": at.column.max(1),
                },
            },
            "logicalLocations": [{"fullyQualifiedName": format!("{}/{}", printable(&f.subject.to_string()), f.path)}],
        }]);
    }
    if let Some(source) = &f.subject.source {
        result["relatedLocations"] = json!([{
            "id": 1,
            "physicalLocation": {
                "artifactLocation": {"uri": artifact_uri(&source.file)},
                "region": {"startLine": source.line.max(1)},
            },
            "message": {"text": "the rendered document"},
        }]);
    }
    result
}

/// The report as a SARIF 2.1.0 log (pretty-printed JSON, one trailing newline).
#[must_use]
pub fn sarif(report: &Report) -> String {
    let reported: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.outcome != Outcome::Pass)
        .collect();
    let mut rule_index: BTreeMap<&str, usize> = BTreeMap::new();
    let mut rules = Vec::new();
    for f in &reported {
        if !rule_index.contains_key(f.rule.id) {
            rule_index.insert(f.rule.id, rules.len());
            rules.push(json!({
                "id": f.rule.id,
                "name": f.rule.id,
                "shortDescription": {"text": f.rule.title()},
                "fullDescription": {"text": format!("{} ({}): {}", f.rule.title(), f.rule.level, f.rule.when_absent())},
                "helpUri": f.url,
                "help": {"text": format!("{}: {}", f.rule.field, f.rule.shape())},
                "properties": {"contractLevel": f.rule.level.to_string()},
            }));
        }
    }
    let prints = super::fingerprints(&reported);
    let results: Vec<Value> = reported
        .iter()
        .zip(prints)
        .map(|(f, print)| result(f, rule_index.get(f.rule.id).copied().unwrap_or(0), &print))
        .collect();
    let log = json!({
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "capi-machinepool",
                "informationUri": "https://github.com/capi-machinepool-rs/capi-machinepool-rs",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": results,
        }],
    });
    let mut text = serde_json::to_string_pretty(&log).unwrap_or_else(|_| "{}".to_owned());
    text.push('\n');
    capi_diagnostics::excerpt::escape_json_text(&text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_relative_uris() {
        assert_eq!(
            artifact_uri("config/crd/bases/x.yaml"),
            "config/crd/bases/x.yaml"
        );
        assert_eq!(artifact_uri("my dir/a#b.yaml"), "my%20dir/a%23b.yaml");
        assert_eq!(level(Outcome::Info), "note");
    }
}
