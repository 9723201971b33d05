//! GitHub Actions workflow commands: `::error file=…,line=…,title=…::message` for each FAIL,
//! `::warning` for WARN, `::notice` for INFO, at the line and column of the field (see
//! [`Finding::location`](crate::Finding#structfield.location)), so findings show on the lines
//! of the pull request; then the plain summary line.

use std::fmt::Write;

use capi_diagnostics::workflow_command::{data, property};

use crate::report::{Outcome, Report};

use super::printable;

/// The GitHub Actions report (passing checks are not printed).
///
/// ```
/// use capi_contract_check::render;
/// let out = render::github(&Default::default());
/// assert_eq!(out, "capi-machinepool check: 0 fail, 0 warn, 0 info, 0 pass\n");
/// ```
#[must_use]
pub fn github(report: &Report) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let command = match f.outcome {
            Outcome::Fail => "error",
            Outcome::Warn => "warning",
            Outcome::Info => "notice",
            Outcome::Pass => continue,
        };
        let mut props = Vec::new();
        // A value a kustomization set is fixed where it was set.
        if let Some(at) = f.location() {
            props.push(format!("file={}", property(&printable(&at.file))));
            props.push(format!("line={}", at.line));
            props.push(format!("endLine={}", at.line));
            props.push(format!("col={}", at.column));
        }
        // The subject is input (a CRD or object name): escaped like the message.
        props.push(format!(
            "title={}",
            property(&printable(&format!(
                "{} {} {}",
                f.level, f.rule.id, f.subject
            )))
        ));
        let mut message = format!("{}: {}", printable(&f.path), printable(&f.message));
        if !f.fix.is_empty() {
            let _ = write!(message, "\nfix: {}", printable(&f.fix));
        }
        let _ = writeln!(out, "::{command} {}::{}", props.join(","), data(&message));
    }
    let _ = writeln!(
        out,
        "capi-machinepool check: {} fail, {} warn, {} info, {} pass",
        report.count(Outcome::Fail),
        report.count(Outcome::Warn),
        report.count(Outcome::Info),
        report.count(Outcome::Pass)
    );
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::report::{Subject, Target};
    use crate::rules;

    #[test]
    fn titles_carry_no_terminal_escapes_or_bidi_controls() {
        let mut report = Report::default();
        let subject = Arc::new(Subject::new(
            Target::Crd {
                name: "evil\u{1b}[31m\u{202e}txt.exe".into(),
            },
            None,
        ));
        report
            .check(
                &rules::SCOPE,
                &subject,
                capi_contract::Contract::V1Beta2,
                "spec.scope",
            )
            .fail("m", "f");
        let out = github(&report);
        assert!(
            !out.contains('\u{1b}') && !out.contains('\u{202e}'),
            "{out:?}"
        );
        assert!(
            out.contains("title=MUST scope evil\\u{1b}[31m\\u{202e}txt.exe::"),
            "{out}"
        );
    }
}
