//! The human report, grouped by subject.

use std::fmt::Write;

use crate::location::Anchor;
use crate::report::{Finding, Outcome, Report, Subject};

use super::printable;

/// The human report: each subject with where it was read, its non-passing findings (all
/// findings with `verbose`) and the rules that fully passed; then the skipped inputs (one line
/// unless `verbose`) and the verdict.
///
/// ```
/// use capi_contract_check::{Report, render};
/// let text = render::text(&Report::default(), false);
/// assert!(text.ends_with("0 fail, 0 warn, 0 info, 0 pass: OK (no MUST rule violated)\n"));
/// ```
#[must_use]
pub fn text(report: &Report, verbose: bool) -> String {
    let mut out = String::new();
    for (subject, findings) in report.grouped() {
        subject_block(&mut out, subject, &findings, verbose);
    }
    skipped(&mut out, report, verbose);
    let verdict = if report.has_failures() {
        "FAILED (a MUST rule is violated)"
    } else {
        "OK (no MUST rule violated)"
    };
    let _ = write!(
        out,
        "\n{} fail, {} warn, {} info, {} pass: {verdict}",
        report.count(Outcome::Fail),
        report.count(Outcome::Warn),
        report.count(Outcome::Info),
        report.count(Outcome::Pass)
    );
    let (crds, _) = report.unjudged_counts();
    if crds > 0 {
        let _ = write!(
            out,
            "; not judged in full: {crds} {} ({}): `--server` has the API server judge {}, `--require-judged` fails on it",
            if crds == 1 { "CRD" } else { "CRDs" },
            report.unjudged_summary(),
            if crds == 1 { "it" } else { "them" },
        );
    }
    out.push('\n');
    out
}

/// One subject: its name (with the contract when all its findings share one), where it was
/// read, its findings, and the rules that fully passed.
fn subject_block(out: &mut String, subject: &Subject, findings: &[&Finding], verbose: bool) {
    let contract = findings.first().map(|f| f.contract);
    let mixed = findings.iter().any(|f| Some(f.contract) != contract);
    let name = printable(&subject.to_string());
    match contract {
        Some(c) if !mixed => {
            let _ = writeln!(out, "{name} (contract {c})");
        }
        _ => {
            let _ = writeln!(out, "{name}");
        }
    }
    if let Some(source) = &subject.source {
        let _ = writeln!(out, "  from {}", printable(&source.to_string()));
    }
    for f in findings {
        if f.outcome == Outcome::Pass && !verbose {
            continue;
        }
        finding(out, f, mixed);
    }
    let passed = fully_passed(findings);
    if !passed.is_empty() {
        let _ = writeln!(out, "  pass: {}", passed.join(", "));
    }
}

/// Rules whose every check passed for this subject (a rule with any other outcome is listed
/// with its findings instead), in order of first finding.
fn fully_passed<'f>(findings: &[&'f Finding]) -> Vec<&'f str> {
    let mut passed: Vec<&str> = Vec::new();
    for f in findings {
        let all_pass = findings
            .iter()
            .filter(|g| g.rule.id == f.rule.id)
            .all(|g| g.outcome == Outcome::Pass);
        if all_pass && !passed.contains(&f.rule.id) {
            passed.push(f.rule.id);
        }
    }
    passed
}

fn finding(out: &mut String, f: &Finding, mixed: bool) {
    let contract_note = if mixed {
        format!(" (contract {})", f.contract)
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "  {:<4} {:<6} {:<28} {}{contract_note}",
        f.outcome,
        f.level,
        f.rule.id,
        printable(&f.path)
    );
    let _ = writeln!(out, "       {}", printable(&f.message));
    if f.outcome != Outcome::Pass {
        if let Some(set_by) = &f.set_by {
            let _ = writeln!(out, "       set by: {}", printable(&set_by.to_string()));
        } else if let Some(at) = f.location().filter(|at| at.at != Anchor::Document) {
            let _ = writeln!(out, "       at: {}", printable(&at.to_string()));
        }
    }
    if !f.fix.is_empty() && f.outcome != Outcome::Pass {
        let _ = writeln!(out, "       fix: {}", printable(&f.fix));
    }
}

/// The skipped inputs: each with `verbose`, else one line counting them.
fn skipped(out: &mut String, report: &Report, verbose: bool) {
    if verbose {
        for s in &report.skipped {
            let _ = writeln!(out, "skipped: {}", printable(&s.to_string()));
        }
    } else if !report.skipped.is_empty() {
        let _ = writeln!(
            out,
            "skipped: {} input(s) that are not InfraMachinePools or their templates (verbose output lists them)",
            report.skipped.len()
        );
    }
}
