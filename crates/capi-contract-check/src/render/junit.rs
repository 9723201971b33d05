//! The JUnit XML report: one `<testsuite>` per subject, one `<testcase>` per finding. FAIL is
//! a `<failure>`, WARN and INFO are `<system-out>` notes (CI shows them without failing).

use std::fmt::Write;

use crate::report::{Outcome, Report};

/// Escapes text for XML attributes and content: the five markup characters as entities,
/// tab, LF and CR as character references (so a value never breaks the report's lines: a
/// line of the file cannot start with text from the input, such as a `::error` workflow
/// command a CI log would obey, and an attribute keeps them instead of normalising them to
/// spaces), and the characters XML 1.0 cannot carry as U+FFFD (control characters other
/// than tab, LF and CR, and the noncharacters U+FFFE and U+FFFF, outside the `Char`
/// production of XML 1.0, section 2.2). The report's own line breaks are written around
/// escaped values, never through this function.
#[must_use]
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' => out.push_str("&#9;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            c if !is_xml_char(c) => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// [`escape`] of input text made printable first (bidi overrides and terminal escapes
/// written as `\u{…}`, long text cut): what the report quotes from CRDs, objects and the
/// API server.
fn quoted(s: &str) -> String {
    escape(&super::printable(s))
}

/// True for the characters of XML 1.0's `Char` production (section 2.2): tab, LF, CR,
/// U+0020 to U+D7FF, U+E000 to U+FFFD and U+10000 up (a `char` is never a surrogate).
fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

/// The JUnit XML report; test suites carry the `file` and `line` of their subject's document,
/// test cases those of their finding (the field's line, see [`crate::location`]).
#[must_use]
pub fn junit(report: &Report) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"capi-machinepool check\" tests=\"{}\" failures=\"{}\">",
        report.findings.len(),
        report.count(Outcome::Fail)
    );
    for (subject, findings) in report.grouped() {
        let failures = findings
            .iter()
            .filter(|f| f.outcome == Outcome::Fail)
            .count();
        let name = quoted(&subject.to_string());
        let location = subject.source.as_ref().map_or_else(String::new, |s| {
            format!(" file=\"{}\" line=\"{}\"", quoted(&s.file), s.line)
        });
        let _ = writeln!(
            out,
            "  <testsuite name=\"{name}\" tests=\"{}\" failures=\"{failures}\"{location}>",
            findings.len()
        );
        for f in findings {
            // A test case is placed where its finding points (the field's line), the suite at
            // its subject's document.
            let case_location = f.location().map_or_else(
                || location.clone(),
                |l| format!(" file=\"{}\" line=\"{}\"", quoted(&l.file), l.line),
            );
            let _ = write!(
                out,
                "    <testcase classname=\"{name}\" name=\"{} {}\"{case_location}",
                escape(f.rule.id),
                quoted(&f.path)
            );
            let message = quoted(&f.message);
            match f.outcome {
                Outcome::Pass => out.push_str("/>\n"),
                Outcome::Fail => {
                    let _ = writeln!(
                        out,
                        ">\n      <failure message=\"{message}\" type=\"{}\">{message}\nfix: {}\n{}</failure>\n    </testcase>",
                        f.level,
                        quoted(&f.fix),
                        escape(&f.url)
                    );
                }
                Outcome::Warn | Outcome::Info => {
                    let _ = writeln!(
                        out,
                        ">\n      <system-out>{} {}: {message}</system-out>\n    </testcase>",
                        f.outcome, f.level
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_xml_cannot_carry_are_replaced() {
        // XML 1.0 section 2.2: Char ::= #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] |
        // [#x10000-#x10FFFF]. U+FFFE and U+FFFF made the report not well-formed.
        assert_eq!(
            escape("a\u{fffe}b\u{ffff}c\u{1}d"),
            "a\u{fffd}b\u{fffd}c\u{fffd}d"
        );
        assert_eq!(
            escape("\t\n\r\u{fffd}\u{10000}<&"),
            "&#9;&#10;&#13;\u{fffd}\u{10000}&lt;&amp;"
        );
    }

    /// Issue 65: a CRD property name with a line break and a workflow command in it cannot
    /// start a line of the report (a CI log that prints the file would obey it).
    #[test]
    fn input_never_starts_a_line_of_the_report() {
        let forged =
            "replicas\n::error file=README.md,line=1,title=INJECTED::x\u{1b}]0;t\u{7}\u{202e}";
        let quoted = quoted(forged);
        assert!(
            !quoted.contains('\n') && !quoted.contains('\u{1b}') && !quoted.contains('\u{202e}')
        );
        assert!(quoted.starts_with("replicas\\u{a}::error"), "{quoted}");
        assert_eq!(escape("a\nb"), "a&#10;b");
    }
}
