//! JSON report: `{"summary": {...}, "findings": [...], "skipped": [...]}`.

use capi_contract::{Outcome, Report};
use serde_json::json;

pub fn render(report: &Report) -> String {
    let value = json!({
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
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}
