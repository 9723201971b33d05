//! JUnit XML report: one `<testsuite>` per subject, one `<testcase>` per finding. FAIL is a
//! `<failure>`, WARN and INFO are `<system-out>` notes (CI shows them without failing).

use std::fmt::Write;

use capi_contract::{Outcome, Report};

use super::grouped;

/// Escapes text for XML attributes and content.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Characters XML 1.0 cannot carry at all.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

pub fn render(report: &Report) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"capi-machinepool check\" tests=\"{}\" failures=\"{}\">",
        report.findings.len(),
        report.count(Outcome::Fail)
    );
    for (subject, findings) in grouped(&report.findings) {
        let failures = findings
            .iter()
            .filter(|f| f.outcome == Outcome::Fail)
            .count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\">",
            escape(subject),
            findings.len()
        );
        for f in findings {
            let _ = write!(
                out,
                "    <testcase classname=\"{}\" name=\"{} {}\"",
                escape(subject),
                escape(f.rule),
                escape(&f.path)
            );
            match f.outcome {
                Outcome::Pass => out.push_str("/>\n"),
                Outcome::Fail => {
                    let _ = writeln!(
                        out,
                        ">\n      <failure message=\"{}\" type=\"{}\">{}\nfix: {}\n{}</failure>\n    </testcase>",
                        escape(&f.message),
                        f.level,
                        escape(&f.message),
                        escape(&f.fix),
                        escape(&f.url)
                    );
                }
                Outcome::Warn | Outcome::Info => {
                    let _ = writeln!(
                        out,
                        ">\n      <system-out>{} {}: {}</system-out>\n    </testcase>",
                        f.outcome,
                        f.level,
                        escape(&f.message)
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}
