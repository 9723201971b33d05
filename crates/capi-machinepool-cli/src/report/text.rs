//! Human readable report, grouped by CRD and version.

use std::fmt::Write;

use capi_contract::{Outcome, Report};

use super::grouped;

pub fn render(report: &Report, verbose: bool) -> String {
    let mut out = String::new();
    for (subject, findings) in grouped(&report.findings) {
        let contract = findings.first().map_or("", |f| f.contract.as_str());
        let mixed = findings.iter().any(|f| f.contract != contract);
        if mixed {
            let _ = writeln!(out, "{subject}");
        } else {
            let _ = writeln!(out, "{subject} (contract {contract})");
        }
        // Rules whose every check passed for this subject (a rule with any other outcome is
        // listed with its findings instead).
        let mut passed = Vec::new();
        for f in &findings {
            let all_pass = findings
                .iter()
                .filter(|g| g.rule == f.rule)
                .all(|g| g.outcome == Outcome::Pass);
            if all_pass && !passed.contains(&f.rule) {
                passed.push(f.rule);
            }
        }
        for f in findings {
            if f.outcome == Outcome::Pass && !verbose {
                continue;
            }
            let contract_note = if mixed {
                format!(" (contract {})", f.contract)
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "  {:<4} {:<6} {:<28} {}{contract_note}",
                f.outcome, f.level, f.rule, f.path
            );
            let _ = writeln!(out, "       {}", f.message);
            if !f.fix.is_empty() && f.outcome != Outcome::Pass {
                let _ = writeln!(out, "       fix: {}", f.fix);
            }
        }
        if !passed.is_empty() {
            let _ = writeln!(out, "  pass: {}", passed.join(", "));
        }
    }
    for s in &report.skipped {
        let _ = writeln!(out, "skipped: {s}");
    }
    let verdict = if report.has_failures() {
        "FAILED (a MUST rule is violated)"
    } else {
        "OK (no MUST rule violated)"
    };
    let _ = writeln!(
        out,
        "\n{} fail, {} warn, {} info, {} pass: {verdict}",
        report.count(Outcome::Fail),
        report.count(Outcome::Warn),
        report.count(Outcome::Info),
        report.count(Outcome::Pass)
    );
    out
}
