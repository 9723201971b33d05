//! Regular-expression literals: the server's environment validates them when compiling
//! (`ValidateRegexLiterals`, RE2 syntax). This crate accepts a literal only when it is in the
//! plain subset where RE2 and its rules agree; anything else is not judged.

use crate::ast::{Expr, ExprKind, Lit};

/// Why a regex literal is not judged, if one is.
#[must_use]
pub fn unmodelled_regex(e: &Expr) -> Option<String> {
    let mut found = None;
    visit(e, &mut |n| {
        if let ExprKind::Call { target, func, args } = &n.kind
            && matches!(func.as_str(), "matches" | "find" | "findAll")
        {
            let re = if target.is_some() {
                args.first()
            } else {
                args.get(1)
            };
            if let Some(Expr {
                kind: ExprKind::Lit(Lit::Str(s)),
                ..
            }) = re
                && !plain(s)
            {
                found.get_or_insert_with(|| {
                    format!("regex literal `{s}` outside the modelled subset")
                });
            }
        }
    });
    found
}

/// Balanced brackets and parentheses, no escapes other than `\.` `\d` `\w` `\s` `\-` and no
/// `(?` groups: RE2 compiles these exactly when they are balanced.
fn plain(s: &str) -> bool {
    let (mut paren, mut bracket, mut esc) = (0i32, false, false);
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c == '{' && !bracket && !esc {
            let Some(len) = repeat_len(&chars[i..]) else {
                return false;
            };
            i += len;
            continue;
        }
        if esc {
            if !matches!(
                c,
                '.' | 'd'
                    | 'w'
                    | 's'
                    | '-'
                    | '/'
                    | '+'
                    | '*'
                    | '?'
                    | '('
                    | ')'
                    | '['
                    | ']'
                    | '$'
                    | '^'
            ) {
                return false;
            }
            esc = false;
            continue;
        }
        match c {
            '\\' => esc = true,
            '[' if !bracket => bracket = true,
            ']' if bracket => bracket = false,
            '(' if !bracket => paren += 1,
            ')' if !bracket => {
                paren -= 1;
                if paren < 0 {
                    return false;
                }
            }
            '{' | '}' if !bracket => return false,
            _ => {}
        }
    }
    let nested = [
        "(?", "**", "++", "*+", "+*", "?+", "?*", "|*", "|+", "(*", "(+",
    ];
    !esc && !bracket
        && paren == 0
        && !s.starts_with(['*', '+', '?'])
        && !nested.iter().any(|n| s.contains(n))
}

/// The length of a repetition `n}`, `n,}` or `n,m}` (after its `{`) with counts RE2 accepts
/// (at most 1000, `n <= m`), or `None`.
fn repeat_len(rest: &[char]) -> Option<usize> {
    let end = rest.iter().position(|c| *c == '}')?;
    let body: String = rest[..end].iter().collect();
    let (lo, hi) = body
        .split_once(',')
        .map_or((body.as_str(), Some(body.as_str())), |(a, b)| {
            (a, (!b.is_empty()).then_some(b))
        });
    let lo: u32 = lo.parse().ok()?;
    let hi: Option<u32> = match hi {
        Some(h) => Some(h.parse().ok()?),
        None => None,
    };
    (lo <= 1000 && hi.is_none_or(|h| h <= 1000 && lo <= h)).then_some(end + 1)
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
