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
    for c in s.chars() {
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
