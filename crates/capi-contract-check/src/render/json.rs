//! The JSON report: `{"summary": {...}, "findings": [...], "skipped": [...]}`.

use serde_json::json;

use crate::report::{Outcome, Report};

/// The JSON report. Each finding names its rule, outcome, subject (with `source`: file,
/// document index and line), contract, path, message, fix and link, and `setBy` (file,
/// document, line and kustomization field) when a kustomization set the value at its path.
#[must_use]
pub fn json(report: &Report) -> String {
    let mut value = json!({
        "summary": {
            "fail": report.count(Outcome::Fail),
            "warn": report.count(Outcome::Warn),
            "info": report.count(Outcome::Info),
            "pass": report.count(Outcome::Pass),
            "failed": report.has_failures(),
        },
        "findings": report.findings,
        "skipped": report.skipped,
    });
    // What was left not judged, CRD by CRD: only when there is some (older readers see the
    // same document otherwise).
    if !report.unjudged.is_empty() {
        value["notJudged"] = json!(report.unjudged);
    }
    // A report of strings and numbers always serializes.
    let mut text =
        serde_json::to_string_pretty(&value).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    text.push('\n');
    // Bidi overrides and line separators from the input are escaped as the other formats do.
    capi_diagnostics::excerpt::escape_json_text(&text).into_owned()
}
