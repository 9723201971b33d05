//! `pattern`s, as the structural-schema check compiles them with Go's `regexp.Compile`
//! (`pkg/apiserver/schema/validation.go` lines 299-303): "must be a valid regular expression,
//! but isn't: error parsing regexp: ...".
//!
//! Go's syntax is RE2's. Two steps, so that a verdict is only given where it is known:
//!
//! 1. a scan for what Go refuses and this crate's engine might not: Perl lookaround, back
//!    references, flags other than `imsU`, unbalanced groups and classes, a trailing
//!    backslash, a repetition with nothing to repeat, a repeat count over 1000;
//! 2. the `regex` crate (RE2 syntax) compiles what is left. Where it refuses something the
//!    scan did not explain (`\Q...\E`, `\C`, `{,n}` are Go-only forms), the pattern is **not
//!    judged** and said so; where it accepts, Go is taken to accept too.

use super::{Bad, Refusals};

/// Refuses `pattern` at `path` when Go would, or counts it as not judged.
pub(super) fn check(pattern: &str, path: &str, r: &mut Refusals) {
    match go_compile(pattern) {
        Some(Ok(_)) => {}
        Some(Err(reason)) => r.invalid(
            path,
            &Bad::Str(pattern),
            &format!(
                "must be a valid regular expression, but isn't: error parsing regexp: {reason}"
            ),
        ),
        None => r.not_judged("patterns in Go-only regular-expression syntax"),
    }
}

/// `Some(Ok(regex))`: Go compiles it, and so did the `regex` crate; `Some(Err(reason))`: Go
/// refuses it for `reason`; `None`: not known here.
fn go_compile(pattern: &str) -> Option<Result<regex::Regex, String>> {
    if let Err(reason) = scan(pattern) {
        return Some(Err(reason));
    }
    regex::Regex::new(pattern).ok().map(Ok)
}

/// The Go refusals found by reading the pattern once.
fn scan(p: &str) -> Result<(), String> {
    let chars: Vec<char> = p.chars().collect();
    let mut depth = 0usize;
    let mut i = 0;
    // Whether the previous item can be repeated (an atom or a closed group).
    let mut repeatable = false;
    // Whether the previous item is a repetition operator, and whether its `?` (non-greedy)
    // was taken: `a**` is Go's "invalid nested repetition operator", `a*?` is not.
    let mut after_repeat = false;
    let mut lazy = false;
    // Where the previous repetition operator began: Go quotes from there to the end of the
    // operator that repeats it (`a???` is refused as `???`, `a*{2}` as `*{2}`).
    let mut repeat_start = 0usize;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                let Some(&next) = chars.get(i + 1) else {
                    return Err("trailing backslash at end of expression: ``".into());
                };
                if next.is_ascii_digit() && next != '0' {
                    return Err(format!("invalid escape sequence: `\\{next}`"));
                }
                if matches!(
                    next,
                    '<' | '>'
                        | 'Z'
                        | 'g'
                        | 'k'
                        | 'K'
                        | 'R'
                        | 'X'
                        | 'h'
                        | 'H'
                        | 'V'
                        | 'N'
                        | 'o'
                        | 'e'
                        | 'c'
                        | 'u'
                        | 'i'
                        | 'j'
                        | 'l'
                        | 'y'
                        | 'G'
                        | 'L'
                        | 'U'
                        | 'M'
                        | 'O'
                        | 'T'
                        | 'Y'
                ) {
                    return Err(format!("invalid escape sequence: `\\{next}`"));
                }
                i += 2;
                repeatable = true;
                after_repeat = false;
                continue;
            }
            '[' => {
                let end = class_end(&chars, i).ok_or_else(|| {
                    format!(
                        "missing closing ]: `{}`",
                        chars[i..].iter().collect::<String>()
                    )
                })?;
                i = end + 1;
                repeatable = true;
                after_repeat = false;
                continue;
            }
            '(' => {
                let mut next = i + 1;
                if chars.get(i + 1) == Some(&'?') {
                    let rest: String = chars[i..].iter().take(4).collect();
                    if rest.starts_with("(?=") || rest.starts_with("(?!") {
                        return Err(format!(
                            "invalid or unsupported Perl syntax: `{}`",
                            &rest[..3]
                        ));
                    }
                    if rest.starts_with("(?P<") || rest.starts_with("(?<") {
                        // A named group (Go 1.22+ also reads `(?<=` and `(?<!` this way):
                        // the name runs to `>` and is letters, digits and `_`.
                        let rest_text: String = chars[i..].iter().collect();
                        let close = chars[i..]
                            .iter()
                            .position(|c| *c == '>')
                            .ok_or_else(|| format!("invalid named capture: `{rest_text}`"))?;
                        let begin = if chars[i + 2] == 'P' { 4 } else { 3 };
                        let name = &chars[i + begin..i + close];
                        if name.is_empty()
                            || !name.iter().all(|c| c.is_ascii_alphanumeric() || *c == '_')
                        {
                            let capture: String = chars[i..=i + close].iter().collect();
                            return Err(format!("invalid named capture: `{capture}`"));
                        }
                        next = i + close + 1;
                    } else {
                        // A flag group: `(?flags)` sets flags, `(?flags:` opens a group.
                        let mut j = i + 2;
                        loop {
                            match chars.get(j) {
                                None => return Err(format!("missing closing ): `{p}`")),
                                Some(')') => {
                                    i = j + 1;
                                    repeatable = false;
                                    after_repeat = false;
                                    break;
                                }
                                Some(':') => break,
                                Some('i' | 'm' | 's' | 'U' | '-') => j += 1,
                                Some(_) => {
                                    let upto: String = chars[i..=j].iter().collect();
                                    return Err(format!(
                                        "invalid or unsupported Perl syntax: `{upto}`"
                                    ));
                                }
                            }
                        }
                        if chars.get(j) == Some(&')') {
                            continue;
                        }
                        next = j + 1;
                    }
                }
                depth += 1;
                repeatable = false;
                after_repeat = false;
                i = next;
                continue;
            }
            ')' => {
                if depth == 0 {
                    return Err(format!("unexpected ): `{p}`"));
                }
                depth -= 1;
                repeatable = true;
                after_repeat = false;
            }
            '|' => {
                repeatable = false;
                after_repeat = false;
            }
            '*' | '+' | '?' => {
                if after_repeat {
                    if c == '?' && !lazy {
                        lazy = true;
                        i += 1;
                        continue;
                    }
                    let op: String = chars[repeat_start..=i].iter().collect();
                    return Err(format!("invalid nested repetition operator: `{op}`"));
                }
                if !repeatable {
                    return Err(format!("missing argument to repetition operator: `{c}`"));
                }
                repeat_start = i;
                after_repeat = true;
                lazy = false;
                repeatable = false;
                i += 1;
                continue;
            }
            '{' => {
                if let Some((end, min, max)) = repeat(&chars, i) {
                    if min > 1000 || max > 1000 {
                        let op: String = chars[i..=end].iter().collect();
                        return Err(format!("invalid repeat count: `{op}`"));
                    }
                    let op: String = chars[i..=end].iter().collect();
                    if after_repeat {
                        let nested: String = chars[repeat_start..=end].iter().collect();
                        return Err(format!("invalid nested repetition operator: `{nested}`"));
                    }
                    if !repeatable {
                        return Err(format!("missing argument to repetition operator: `{op}`"));
                    }
                    repeat_start = i;
                    i = end + 1;
                    after_repeat = true;
                    lazy = false;
                    repeatable = false;
                    continue;
                }
                repeatable = true;
                after_repeat = false;
            }
            _ => {
                repeatable = true;
                after_repeat = false;
            }
        }
        i += 1;
    }
    if depth > 0 {
        return Err(format!("missing closing ): `{p}`"));
    }
    Ok(())
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
