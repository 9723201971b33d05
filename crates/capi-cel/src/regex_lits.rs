//! Literals the server's environment validates when compiling (`ValidateRegexLiterals`,
//! `ValidateDurationLiterals`, `ValidateTimestampLiterals`): the pattern of a receiver-style
//! `matches` ("invalid matches argument" at the literal; the other regex functions compile
//! theirs when the program is built), `duration('...')` and `timestamp('...')`. Each literal
//! is classified: certainly valid, certainly invalid, or not modelled.

use crate::ast::{Expr, ExprKind, Lit};

/// The regex literals of an expression.
pub enum Regexes {
    /// Every literal is valid RE2.
    Valid,
    /// Literals the server refuses when compiling: offset and message (`invalid matches
    /// argument`, `invalid duration argument`, `invalid timestamp argument`).
    InvalidMatches(Vec<(usize, &'static str)>),
    /// An invalid literal of `find`, `findAll` or a global `matches`: the server refuses it
    /// when building the program, with Go's regexp message (not modelled).
    RefusedAtInstantiation,
    /// A literal this crate cannot classify.
    NotJudged(String),
}

/// One literal's class.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Accepted.
    Valid,
    /// Refused.
    Invalid,
    /// Not modelled.
    Unknown,
}

/// Classifies the regex literals of `e`.
#[must_use]
pub fn regex_literals(e: &Expr) -> Regexes {
    let mut invalid = Vec::new();
    let mut refused = false;
    let mut unknown: Option<String> = None;
    visit(e, &mut |n| {
        let ExprKind::Call { target, func, args } = &n.kind else {
            return;
        };
        if target.is_none()
            && let (
                "duration" | "timestamp",
                [
                    Expr {
                        kind: ExprKind::Lit(Lit::Str(s)),
                        pos,
                        ..
                    },
                ],
            ) = (func.as_str(), args.as_slice())
        {
            let (class, msg) = if func == "duration" {
                (crate::time_lits::duration(s), "invalid duration argument")
            } else {
                (crate::time_lits::timestamp(s), "invalid timestamp argument")
            };
            match class {
                Some(true) => {}
                Some(false) => invalid.push((*pos, msg)),
                None => {
                    unknown.get_or_insert_with(|| {
                        format!("{func} literal `{s}` outside the modelled syntax")
                    });
                }
            }
            return;
        }
        if !matches!(func.as_str(), "matches" | "find" | "findAll") {
            return;
        }
        let re = if target.is_some() {
            args.first()
        } else {
            args.get(1)
        };
        let Some(Expr {
            kind: ExprKind::Lit(Lit::Str(s)),
            pos,
            ..
        }) = re
        else {
            return;
        };
        match classify(s) {
            Class::Valid => {}
            Class::Invalid if func == "matches" && target.is_some() => {
                invalid.push((*pos, "invalid matches argument"))
            }
            Class::Invalid => refused = true,
            Class::Unknown => {
                unknown.get_or_insert_with(|| {
                    format!("regex literal `{s}` outside the modelled RE2 subset")
                });
            }
        }
    });
    if let Some(why) = unknown {
        return Regexes::NotJudged(why);
    }
    if !invalid.is_empty() {
        Regexes::InvalidMatches(invalid)
    } else if refused {
        Regexes::RefusedAtInstantiation
    } else {
        Regexes::Valid
    }
}

/// Whether RE2 certainly accepts `s` (the subset this module classifies).
#[must_use]
pub fn certainly_valid(s: &str) -> bool {
    classify(s) == Class::Valid
}

/// Whether a repetition operator may follow.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Operand {
    Yes,
    No,
    Unsure,
}

struct Scan {
    chars: Vec<char>,
    i: usize,
    depth: usize,
    operand: Operand,
    /// The last token was a repetition (`Some(lazy)`).
    repeated: Option<bool>,
    /// Capture group names seen.
    names: Vec<String>,
}

/// RE2's verdict on `s` where it is certain.
fn classify(s: &str) -> Class {
    let mut sc = Scan {
        chars: s.chars().collect(),
        i: 0,
        depth: 0,
        operand: Operand::No,
        repeated: None,
        names: Vec::new(),
    };
    while sc.i < sc.chars.len() {
        let c = sc.chars[sc.i];
        sc.i += 1;
        let class = match c {
            '\\' => sc.escape(),
            '[' => sc.class(),
            '(' => sc.group(),
            ')' if sc.depth == 0 => Class::Invalid,
            ')' => {
                sc.depth -= 1;
                sc.atom()
            }
            '|' => {
                sc.operand = Operand::No;
                sc.repeated = None;
                Class::Valid
            }
            '^' | '$' => {
                sc.operand = Operand::Unsure;
                sc.repeated = None;
                Class::Valid
            }
            '*' | '+' | '?' => sc.repetition(c == '?', None),
            '{' => match sc.repeat_count() {
                Some(counts) => sc.repetition(false, Some(counts)),
                None => sc.atom(),
            },
            _ => sc.atom(),
        };
        if class != Class::Valid {
            return class;
        }
    }
    if sc.depth > 0 {
        Class::Invalid
    } else {
        Class::Valid
    }
}

impl Scan {
    fn atom(&mut self) -> Class {
        self.operand = Operand::Yes;
        self.repeated = None;
        Class::Valid
    }

    fn repetition(&mut self, question: bool, counts: Option<(u32, Option<u32>)>) -> Class {
        if let Some(lazy) = self.repeated {
            if question && !lazy {
                self.repeated = Some(true);
                return Class::Valid;
            }
            return Class::Invalid;
        }
        match self.operand {
            Operand::No => return Class::Invalid,
            Operand::Unsure => return Class::Unknown,
            Operand::Yes => {}
        }
        if let Some((lo, hi)) = counts
            && (lo > 1000 || hi.is_some_and(|h| h > 1000 || h < lo))
        {
            return Class::Invalid;
        }
        self.repeated = Some(false);
        Class::Valid
    }

    /// `{n}`, `{n,}` or `{n,m}` after a `{`; `None` leaves the `{` a literal.
    fn repeat_count(&mut self) -> Option<(u32, Option<u32>)> {
        let rest = &self.chars[self.i..];
        let end = rest.iter().position(|c| *c == '}')?;
        let body: String = rest[..end].iter().collect();
        let (lo, hi) = match body.split_once(',') {
            None => (body.as_str(), Some(body.as_str())),
            Some((a, "")) => (a, None),
            Some((a, b)) => (a, Some(b)),
        };
        let digits =
            |s: &str| !s.is_empty() && s.len() <= 8 && s.chars().all(|c| c.is_ascii_digit());
        if !digits(lo) || hi.is_some_and(|h| !digits(h)) {
            return None;
        }
        self.i += end + 1;
        Some((lo.parse().ok()?, hi.and_then(|h| h.parse().ok())))
    }

    fn escape(&mut self) -> Class {
        let Some(&c) = self.chars.get(self.i) else {
            return Class::Invalid;
        };
        self.i += 1;
        if c.is_ascii_alphanumeric() && !"dDwWsSbBntrfvAz".contains(c) {
            return if c.is_ascii_digit() && c != '0' {
                Class::Invalid
            } else {
                Class::Unknown
            };
        }
        self.atom()
    }

    fn class(&mut self) -> Class {
        if self.chars.get(self.i) == Some(&'^') {
            self.i += 1;
        }
        let mut first = true;
        // The previous literal member, which a `-` may turn into a range.
        let mut prev: Option<char> = None;
        loop {
            let Some(&c) = self.chars.get(self.i) else {
                return Class::Invalid;
            };
            self.i += 1;
            match c {
                ']' if !first => return self.atom(),
                '\\' => {
                    let Some(&e) = self.chars.get(self.i) else {
                        return Class::Invalid;
                    };
                    self.i += 1;
                    if e.is_ascii_alphanumeric() && !"dDwWsSntrfv".contains(e) {
                        return Class::Unknown;
                    }
                    prev = (!e.is_ascii_alphanumeric()).then_some(e);
                }
                '[' if self.chars.get(self.i) == Some(&':') => {
                    if !self.posix_class() {
                        return Class::Unknown;
                    }
                    prev = None;
                }
                '-' if !first && self.chars.get(self.i).is_some_and(|n| *n != ']') => {
                    let (Some(lo), Some(&hi)) = (prev, self.chars.get(self.i)) else {
                        return Class::Unknown;
                    };
                    if hi == '\\' || hi == '[' {
                        return Class::Unknown;
                    }
                    self.i += 1;
                    if hi < lo {
                        return Class::Invalid;
                    }
                    prev = None;
                }
                _ => prev = Some(c),
            }
            first = false;
        }
    }

    /// A POSIX class `[:name:]` (after its `[`), known to RE2.
    fn posix_class(&mut self) -> bool {
        const NAMES: [&str; 14] = [
            "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print",
            "punct", "space", "upper", "word", "xdigit",
        ];
        let rest: String = self.chars[self.i..].iter().collect();
        let Some(end) = rest.find(":]") else {
            return false;
        };
        let name = rest[1..end].trim_start_matches('^');
        if !NAMES.contains(&name) {
            return false;
        }
        self.i += rest[..end + 2].chars().count();
        true
    }

    fn group(&mut self) -> Class {
        self.operand = Operand::No;
        self.repeated = None;
        if self.chars.get(self.i) != Some(&'?') {
            self.depth += 1;
            return Class::Valid;
        }
        self.i += 1;
        let rest: String = self.chars[self.i..].iter().take(3).collect();
        if rest.starts_with('=')
            || rest.starts_with('!')
            || rest.starts_with("<=")
            || rest.starts_with("<!")
        {
            return Class::Invalid;
        }
        if rest.starts_with(':') {
            self.i += 1;
            self.depth += 1;
            return Class::Valid;
        }
        if let Some(named) = self.named_group() {
            return named;
        }
        let flags = self.chars[self.i..]
            .iter()
            .take_while(|c| "imsU".contains(**c))
            .count();
        if flags > 0 {
            self.i += flags;
            match self.chars.get(self.i) {
                Some(')') => {
                    self.i += 1;
                    return Class::Valid;
                }
                Some(':') => {
                    self.i += 1;
                    self.depth += 1;
                    return Class::Valid;
                }
                _ => return Class::Unknown,
            }
        }
        Class::Unknown
    }
}

impl Scan {
    /// `P<name>` or `<name>` after `(?`: a capture group with a new name.
    fn named_group(&mut self) -> Option<Class> {
        let start = self.i + usize::from(self.chars.get(self.i) == Some(&'P'));
        if self.chars.get(start) != Some(&'<') {
            return None;
        }
        let len = self.chars[start + 1..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == '_')
            .count();
        if len == 0 || self.chars.get(start + 1 + len) != Some(&'>') {
            return Some(Class::Unknown);
        }
        let name: String = self.chars[start + 1..start + 1 + len].iter().collect();
        if self.names.contains(&name) {
            // Go's verdict on a repeated name depends on its version: not modelled.
            return Some(Class::Unknown);
        }
        self.names.push(name);
        self.i = start + len + 2;
        self.depth += 1;
        Some(Class::Valid)
    }
}

fn visit(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Select { operand, .. } => visit(operand, f),
        ExprKind::Call { target, args, .. } => {
            if let Some(t) = target {
                visit(t, f);
            }
            args.iter().for_each(|a| visit(a, f));
        }
        ExprKind::List(items) => items.iter().for_each(|a| visit(a, f)),
        ExprKind::Map(entries) => entries.iter().for_each(|(k, v)| {
            visit(k, f);
            visit(v, f);
        }),
        ExprKind::Macro { range, args, .. } => {
            visit(range, f);
            args.iter().for_each(|a| visit(a, f));
        }
        ExprKind::Lit(_) | ExprKind::Ident(_) => {}
    }
}
