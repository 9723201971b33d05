//! One expression compiled as apiextensions' `compileRule` does: parse, check, output type,
//! `oldSelf` use, cost.

use crate::check::{Scope, check};
use crate::decl::Decls;
use crate::parse::{ParseFail, parse};
use crate::report::display_issues;
use crate::types::Ty;

/// cel-go's default limit on an expression's size in code points.
pub const EXPRESSION_SIZE_LIMIT: usize = 100_000;

/// The outcome of compiling one expression.
#[derive(Debug)]
pub enum Compiled {
    /// Compiled: the estimated maximum cost and whether `oldSelf` is referenced.
    Ok {
        /// `costEst.Max`.
        max_cost: u64,
        /// `oldSelf` appears.
        uses_old_self: bool,
    },
    /// Compilation failed: the issues text (without the caller's prefix), whether it is
    /// cel-go's text for certain, and whether it is a type error of the output (the caller's
    /// "must evaluate to" message).
    Failed {
        /// `issues.String()`.
        issues: String,
        /// The text is cel-go's.
        exact: bool,
    },
    /// The output type is not the expected one.
    WrongOutput,
    /// Compiled, but the program cannot be built (an invalid regex literal the server
    /// parses then): the verdict is certain, Go's message is not modelled.
    Instantiation,
    /// Not judged, and why.
    NotJudged(String),
}

/// Compiles `src` with `self` of decl `root` (type name `selfType0`), `oldSelf` optional
/// when `optional_old_self`, expecting output type `want`.
#[must_use]
pub fn compile(
    src: &str,
    decls: &Decls,
    root: usize,
    optional_old_self: bool,
    want: &Ty,
) -> Compiled {
    let chars: Vec<char> = src.chars().collect();
    if chars.len() > EXPRESSION_SIZE_LIMIT {
        let issues = format!(
            "ERROR: <input>:-1:0: expression code point size exceeds limit: size: {}, limit {EXPRESSION_SIZE_LIMIT}",
            chars.len()
        );
        return Compiled::Failed {
            issues,
            exact: true,
        };
    }
    let ast = match parse(&chars) {
        Ok(a) => a,
        Err(ParseFail::Unsupported(why)) => return Compiled::NotJudged(why),
        Err(ParseFail::Recursion(msg)) => {
            return Compiled::Failed {
                issues: format!("ERROR: <input>:-1:0: {msg}"),
                exact: true,
            };
        }
        Err(ParseFail::Syntax { pos, msg, exact }) => {
            return Compiled::Failed {
                issues: display_issues(&chars, &[(pos, msg)]),
                exact,
            };
        }
    };
    let self_ty = crate::check::decl_ty(decls, root, "selfType0");
    let old_self_ty = if optional_old_self {
        Ty::Optional(Box::new(self_ty.clone()))
    } else {
        self_ty.clone()
    };
    let scope = Scope {
        decls,
        self_ty,
        old_self_ty,
    };
    let checked = check(&ast, &scope);
    if !checked.errors.is_empty() {
        let exact = checked.unsupported.is_none() && checked.errors.iter().all(|e| e.exact);
        let errs: Vec<(usize, String)> = checked
            .errors
            .iter()
            .map(|e| (e.pos, e.msg.clone()))
            .collect();
        return Compiled::Failed {
            issues: display_issues(&chars, &errs),
            exact,
        };
    }
    if let Some(why) = checked.unsupported {
        return Compiled::NotJudged(why);
    }
    let refused = match crate::regex_lits::regex_literals(&ast) {
        crate::regex_lits::Regexes::Valid => false,
        crate::regex_lits::Regexes::RefusedAtInstantiation => true,
        crate::regex_lits::Regexes::NotJudged(why) => return Compiled::NotJudged(why),
        crate::regex_lits::Regexes::InvalidMatches(at) => {
            let errs: Vec<(usize, String)> =
                at.into_iter().map(|(p, msg)| (p, msg.to_owned())).collect();
            return Compiled::Failed {
                issues: display_issues(&chars, &errs),
                exact: true,
            };
        }
    };
    let out = checked.types.get(&ast.id).cloned().unwrap_or(Ty::Dyn);
    if out != *want {
        return Compiled::WrongOutput;
    }
    if refused {
        return Compiled::Instantiation;
    }
    match crate::cost::estimate(&ast, decls, root, &checked) {
        Ok(max_cost) => Compiled::Ok {
            max_cost,
            uses_old_self: checked.uses_old_self,
        },
        Err(why) => Compiled::NotJudged(why),
    }
}

/// The checked expression of a rule that compiles without errors to a bool, for evaluation.
#[must_use]
pub fn checked_rule(
    src: &str,
    decls: &Decls,
    root: usize,
) -> Option<(crate::ast::Expr, crate::check::Checked)> {
    let chars: Vec<char> = src.chars().collect();
    if chars.len() > EXPRESSION_SIZE_LIMIT {
        return None;
    }
    let ast = parse(&chars).ok()?;
    let self_ty = crate::check::decl_ty(decls, root, "selfType0");
    let scope = Scope {
        decls,
        self_ty: self_ty.clone(),
        old_self_ty: self_ty,
    };
    let checked = check(&ast, &scope);
    let ok = checked.errors.is_empty()
        && checked.unsupported.is_none()
        && checked.types.get(&ast.id) == Some(&Ty::Bool);
    ok.then_some((ast, checked))
}
