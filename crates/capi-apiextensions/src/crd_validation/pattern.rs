//! `pattern`s, as the structural-schema check compiles them with Go's `regexp.Compile`
//! (`pkg/apiserver/schema/validation.go` lines 299-303): "must be a valid regular expression,
//! but isn't: error parsing regexp: ...".
//!
//! Go's syntax is RE2's. Three steps, so that a verdict is only given where it is known:
//!
//! 1. a scan for what Go refuses and this crate's engine might not: Perl lookaround, back
//!    references, flags other than `imsU`, unbalanced groups and classes, a trailing
//!    backslash, a repetition with nothing to repeat, a repeat count over 1000;
//! 2. Go's size limits on a well-formed pattern (nested repetitions over 1000, a tree higher
//!    than 1000: [`super::pattern_limits`], counted during the same scan);
//! 3. the `regex` crate (RE2 syntax) compiles what is left. Where it refuses something the
//!    scan did not explain (`\Q...\E`, `\C`, `{,n}` are Go-only forms), the pattern is **not
//!    judged** and said so; where it accepts, Go is taken to accept too.

use super::Refusals;
use super::pattern_limits::{Limits, Tracker};

/// Refuses `pattern` at `path` when Go would, or counts it as not judged.
pub(super) fn check(pattern: &str, path: &str, r: &mut Refusals) {
    match go_compile(pattern) {
        Some(Ok(_)) => {}
        Some(Err(reason)) => r.invalid(
            path,
            pattern,
            format!(
                "must be a valid regular expression, but isn't: error parsing regexp: {reason}"
            ),
        ),
        None => r.not_judged("patterns in Go-only regular-expression syntax"),
    }
}

/// `Some(Ok(regex))`: Go compiles it, and so did the `regex` crate; `Some(Err(reason))`: Go
/// refuses it for `reason`; `None`: not known here.
fn go_compile(pattern: &str) -> Option<Result<regex::Regex, String>> {
    match limits_of(pattern) {
        Err(reason) | Ok(Limits::Refused(reason)) => Some(Err(reason)),
        Ok(Limits::Unknown) => None,
        Ok(Limits::Within) => regex::Regex::new(pattern).ok().map(Ok),
    }
}

/// Reads the pattern once: the first syntax refusal of Go's parser, else what Go's size limits
/// say of it ([`super::pattern_limits`]).
pub(super) fn limits_of(p: &str) -> Result<Limits, String> {
    let mut scan = Scan {
        pattern: p,
        chars: p.chars().collect(),
        i: 0,
        depth: 0,
        repeatable: false,
        after_repeat: false,
        lazy: false,
        repeat_start: 0,
        limits: Tracker::default(),
    };
    while scan.i < scan.chars.len() {
        match scan.chars[scan.i] {
            '\\' => scan.escape()?,
            '[' => scan.class()?,
            '(' => scan.group()?,
            ')' => scan.close()?,
            '|' => scan.item(false, 1),
            c @ ('*' | '+' | '?') => scan.operator(c)?,
            '{' => scan.braces()?,
            _ => scan.item(true, 1),
        }
    }
    if scan.depth > 0 {
        return Err(format!("missing closing ): `{p}`"));
    }
    Ok(scan.limits.verdict(p))
}

/// Escapes Go refuses after a backslash (Perl's and PCRE's classes and anchors RE2 lacks).
const REFUSED_ESCAPES: &[char] = &[
    '<', '>', 'Z', 'g', 'k', 'K', 'R', 'X', 'h', 'H', 'V', 'N', 'o', 'e', 'c', 'u', 'i', 'j', 'l',
    'y', 'G', 'L', 'U', 'M', 'O', 'T', 'Y',
];

/// The state of one reading of a pattern.
struct Scan<'a> {
    pattern: &'a str,
    chars: Vec<char>,
    i: usize,
    depth: usize,
    /// Whether the previous item can be repeated (an atom or a closed group).
    repeatable: bool,
    /// Whether the previous item is a repetition operator, and whether its `?` (non-greedy)
    /// was taken: `a**` is Go's "invalid nested repetition operator", `a*?` is not.
    after_repeat: bool,
    lazy: bool,
    /// Where the previous repetition operator began: Go quotes from there to the end of the
    /// operator that repeats it (`a???` is refused as `???`, `a*{2}` as `*{2}`).
    repeat_start: usize,
    /// Go's size limits, counted on the way.
    limits: Tracker,
}

impl Scan<'_> {
    /// An item of `len` characters: an atom (`repeatable`) or an alternation bar.
    fn item(&mut self, repeatable: bool, len: usize) {
        self.limits.item();
        self.skip(repeatable, len);
    }

    /// Moves past `len` characters that are no item of the limits (a flag setting, a group's
    /// closing parenthesis).
    fn skip(&mut self, repeatable: bool, len: usize) {
        self.repeatable = repeatable;
        self.after_repeat = false;
        self.i += len;
    }

    fn text(&self, from: usize, to: usize) -> String {
        self.chars[from..=to].iter().collect()
    }

    /// `\x`: Go's refusals of a trailing backslash, back references and Perl-only escapes.
    fn escape(&mut self) -> Result<(), String> {
        let Some(&next) = self.chars.get(self.i + 1) else {
            return Err("trailing backslash at end of expression: ``".into());
        };
        if (next.is_ascii_digit() && next != '0') || REFUSED_ESCAPES.contains(&next) {
            return Err(format!("invalid escape sequence: `\\{next}`"));
        }
        self.item(true, 2);
        Ok(())
    }

    /// `[...]`: a class, which must be closed.
    fn class(&mut self) -> Result<(), String> {
        let end = class_end(&self.chars, self.i).ok_or_else(|| {
            let rest: String = self.chars[self.i..].iter().collect();
            format!("missing closing ]: `{rest}`")
        })?;
        self.item(true, end + 1 - self.i);
        Ok(())
    }

    /// `(`: a group, a named group, a flag group or a flag setting; Perl's lookarounds are
    /// refused.
    fn group(&mut self) -> Result<(), String> {
        let i = self.i;
        let mut next = i + 1;
        let mut capture = true;
        if self.chars.get(i + 1) == Some(&'?') {
            let rest: String = self.chars[i..].iter().take(4).collect();
            if rest.starts_with("(?=") || rest.starts_with("(?!") {
                return Err(format!(
                    "invalid or unsupported Perl syntax: `{}`",
                    &rest[..3]
                ));
            }
            if rest.starts_with("(?P<") || rest.starts_with("(?<") {
                next = self.named_group()?;
            } else {
                capture = false;
                match self.flags()? {
                    Some(body) => next = body,
                    // `(?flags)`: no group opens.
                    None => return Ok(()),
                }
            }
        }
        self.depth += 1;
        self.limits.open(capture);
        self.repeatable = false;
        self.after_repeat = false;
        self.i = next;
        Ok(())
    }

    /// A named group (Go 1.22+ also reads `(?<=` and `(?<!` this way): the name runs to `>`
    /// and is letters, digits and `_`; where its body starts.
    fn named_group(&self) -> Result<usize, String> {
        let i = self.i;
        let close = self.chars[i..]
            .iter()
            .position(|c| *c == '>')
            .ok_or_else(|| {
                let rest: String = self.chars[i..].iter().collect();
                format!("invalid named capture: `{rest}`")
            })?;
        let begin = if self.chars[i + 2] == 'P' { 4 } else { 3 };
        let name = &self.chars[i + begin..i + close];
        if name.is_empty() || !name.iter().all(|c| c.is_ascii_alphanumeric() || *c == '_') {
            return Err(format!(
                "invalid named capture: `{}`",
                self.text(i, i + close)
            ));
        }
        Ok(i + close + 1)
    }

    /// A flag group: `(?flags:` opens a group (where its body starts); `(?flags)` sets flags
    /// (`None`, and the scan moves past it).
    fn flags(&mut self) -> Result<Option<usize>, String> {
        let mut j = self.i + 2;
        loop {
            match self.chars.get(j) {
                None => return Err(format!("missing closing ): `{}`", self.pattern)),
                Some(')') => {
                    self.skip(false, j + 1 - self.i);
                    return Ok(None);
                }
                Some(':') => return Ok(Some(j + 1)),
                Some('i' | 'm' | 's' | 'U' | '-') => j += 1,
                Some(_) => {
                    return Err(format!(
                        "invalid or unsupported Perl syntax: `{}`",
                        self.text(self.i, j)
                    ));
                }
            }
        }
    }

    /// `)`: closes a group, which must be open.
    fn close(&mut self) -> Result<(), String> {
        if self.depth == 0 {
            return Err(format!("unexpected ): `{}`", self.pattern));
        }
        self.depth -= 1;
        self.limits.close();
        self.skip(true, 1);
        Ok(())
    }

    /// `*`, `+`, `?`: a repetition of the previous item (or the `?` that makes the previous
    /// repetition lazy).
    fn operator(&mut self, c: char) -> Result<(), String> {
        if self.after_repeat {
            if c == '?' && !self.lazy {
                self.lazy = true;
                self.limits.plus_or_question();
                self.i += 1;
                return Ok(());
            }
            let op = self.text(self.repeat_start, self.i);
            return Err(format!("invalid nested repetition operator: `{op}`"));
        }
        if !self.repeatable {
            return Err(format!("missing argument to repetition operator: `{c}`"));
        }
        if c == '*' {
            self.limits.star();
        } else {
            self.limits.plus_or_question();
        }
        self.repeated(self.i, self.i + 1);
        Ok(())
    }

    /// `{`: a counted repetition (counts up to 1000), or a literal brace.
    fn braces(&mut self) -> Result<(), String> {
        let Some((end, min, max)) = repeat(&self.chars, self.i) else {
            self.item(true, 1);
            return Ok(());
        };
        let op = self.text(self.i, end);
        if min > 1000 || max > 1000 {
            return Err(format!("invalid repeat count: `{op}`"));
        }
        if self.after_repeat {
            let nested = self.text(self.repeat_start, end);
            return Err(format!("invalid nested repetition operator: `{nested}`"));
        }
        if !self.repeatable {
            return Err(format!("missing argument to repetition operator: `{op}`"));
        }
        self.limits.counted(&op, min, max);
        self.repeated(self.i, end + 1);
        Ok(())
    }

    /// A repetition operator from `start` to before `next` was read.
    fn repeated(&mut self, start: usize, next: usize) {
        self.repeat_start = start;
        self.after_repeat = true;
        self.lazy = false;
        self.repeatable = false;
        self.i = next;
    }
}

/// The index of the `]` closing the class opened at `start`.
fn class_end(chars: &[char], start: usize) -> Option<usize> {
    let mut i = start + 1;
    if chars.get(i) == Some(&'^') {
        i += 1;
    }
    // A `]` first in the class is a literal.
    if chars.get(i) == Some(&']') {
        i += 1;
    }
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '[' if chars.get(i + 1) == Some(&':') => {
                // `[:alpha:]`: skip to its `:]`.
                let mut j = i + 2;
                while j + 1 < chars.len() && !(chars[j] == ':' && chars[j + 1] == ']') {
                    j += 1;
                }
                i = if j + 1 < chars.len() { j + 2 } else { i + 1 };
            }
            ']' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// A `{n}`, `{n,}` or `{n,m}` at `start`: its end and bounds.
fn repeat(chars: &[char], start: usize) -> Option<(usize, u64, u64)> {
    let end = start + chars[start..].iter().position(|c| *c == '}')?;
    let inner: String = chars[start + 1..end].iter().collect();
    let (min, max) = match inner.split_once(',') {
        Some((a, b)) => (a, if b.is_empty() { a } else { b }),
        None => (inner.as_str(), inner.as_str()),
    };
    let parse = |s: &str| {
        (!s.is_empty() && s.chars().all(|c| c.is_ascii_digit()))
            .then(|| s.parse::<u64>().unwrap_or(u64::MAX))
    };
    Some((end, parse(min)?, parse(max)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Go's `regexp.Compile` (go1.26, `regexp/syntax`): accepted and refused forms, with the
    /// error code Go names. Each refused form is also sent to the real API server by the
    /// e2e differential (tests/e2e/tests/crd_differential.rs, family `pattern`).
    #[test]
    fn go_accepts_and_refuses() {
        for ok in [
            "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
            "^(?i)abc$",
            "(?P<name>x)",
            "a{2,5}",
            "[[:alpha:]]+",
            "[]a]",
            "a*?",
            "\\d+\\.\\d+",
            "^v\\d+(alpha|beta)?\\d*$",
        ] {
            assert!(matches!(go_compile(ok), Some(Ok(_))), "{ok}");
        }
        for (bad, code) in [
            ("(?=a)", "invalid or unsupported Perl syntax"),
            // Go 1.22+ reads `(?<` as a named capture (regexp/syntax parsePerlFlags).
            ("(?<!a)b", "invalid named capture: `(?<!a)b`"),
            ("(?<=a>)b", "invalid named capture: `(?<=a>`"),
            // The quoted operator runs from the repeated operator (parse.go `repeat`).
            ("a???", "invalid nested repetition operator: `???`"),
            ("(a)\\1", "invalid escape sequence"),
            ("(a", "missing closing )"),
            ("a)", "unexpected )"),
            ("[a", "missing closing ]"),
            ("a\\", "trailing backslash at end of expression"),
            ("*a", "missing argument to repetition operator"),
            ("a**", "invalid nested repetition operator"),
            ("a{1001}", "invalid repeat count"),
            ("(?x)a", "invalid or unsupported Perl syntax"),
        ] {
            let got = go_compile(bad).map(|compiled| compiled.map(|_| ()));
            assert!(
                matches!(&got, Some(Err(reason)) if reason.starts_with(code)),
                "{bad}: {got:?}"
            );
        }
    }

    #[test]
    fn go_only_syntax_is_not_judged() {
        // `\Q...\E` quotes literally in Go; the regex crate does not know it.
        assert!(go_compile("\\Qa.b\\E").is_none());
    }
}
