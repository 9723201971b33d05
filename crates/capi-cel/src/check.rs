//! The type checker: cel-go's checker over the parsed expression with the Kubernetes
//! environment's declarations, reporting cel-go's messages at cel-go's positions. Anything
//! not modelled makes the expression "not judged" instead of guessing.

use std::collections::BTreeMap;

use crate::ast::{Expr, ExprKind, Lit, MacroKind};
use crate::decl::{DeclKind, Decls};
use crate::env::functions;
use crate::types::{Bindings, Ty, assignable, substitute};

/// One checker error: offset, message, whether the text is cel-go's for certain.
#[derive(Clone, Debug)]
pub struct CheckError {
    /// Code-point offset.
    pub pos: usize,
    /// Message.
    pub msg: String,
    /// The text is known to be cel-go's.
    pub exact: bool,
}

/// The checker's result for one expression.
#[derive(Debug, Default)]
pub struct Checked {
    /// Type per node id.
    pub types: BTreeMap<usize, Ty>,
    /// Matching overload ids per call node id.
    pub overloads: BTreeMap<usize, Vec<String>>,
    /// Errors, in cel-go's (position) order.
    pub errors: Vec<CheckError>,
    /// Why the expression is not judged, when a construct is not modelled.
    pub unsupported: Option<String>,
    /// `oldSelf` is referenced.
    pub uses_old_self: bool,
}

/// The variables in scope of a rule.
pub struct Scope<'a> {
    /// The schema's declared types.
    pub decls: &'a Decls,
    /// The type of `self`.
    pub self_ty: Ty,
    /// The type of `oldSelf` (optional when `optionalOldSelf`).
    pub old_self_ty: Ty,
}

/// The CEL type of decl `idx` named `name` (cel-go's `MaybeAssignTypeName` naming).
#[must_use]
pub fn decl_ty(decls: &Decls, idx: usize, name: &str) -> Ty {
    match decls.all.get(idx).map(|d| &d.kind) {
        Some(DeclKind::Scalar(t)) => t.clone(),
        Some(DeclKind::List(e)) => Ty::List(Box::new(decl_ty(decls, *e, &format!("{name}.@idx")))),
        Some(DeclKind::Map(e)) => Ty::Map(
            Box::new(Ty::String),
            Box::new(decl_ty(decls, *e, &format!("{name}.@elem"))),
        ),
        Some(DeclKind::Object { .. }) => Ty::Object(idx, name.to_owned()),
        None => Ty::Dyn,
    }
}

/// Type-checks `e` in `scope`.
#[must_use]
pub fn check(e: &Expr, scope: &Scope<'_>) -> Checked {
    let mut c = Checker {
        scope,
        locals: Vec::new(),
        out: Checked::default(),
    };
    c.expr(e);
    c.out.errors.sort_by_key(|e| e.pos);
    c.out
}

struct Checker<'a, 'b> {
    scope: &'a Scope<'b>,
    locals: Vec<(String, Ty)>,
    out: Checked,
}

const TYPE_NAMES: [&str; 10] = [
    "int",
    "uint",
    "double",
    "string",
    "bool",
    "bytes",
    "list",
    "map",
    "null_type",
    "type",
];

impl Checker<'_, '_> {
    fn err(&mut self, pos: usize, msg: String, exact: bool) -> Ty {
        self.out.errors.push(CheckError { pos, msg, exact });
        Ty::Error
    }
    fn unsupported(&mut self, why: impl Into<String>) -> Ty {
        if self.out.unsupported.is_none() {
            self.out.unsupported = Some(why.into());
        }
        Ty::Dyn
    }
    fn local(&self, name: &str) -> Option<&Ty> {
        self.locals
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t)
    }
    fn is_variable(&self, name: &str) -> bool {
        self.local(name).is_some() || name == "self" || name == "oldSelf"
    }

    fn expr(&mut self, e: &Expr) -> Ty {
        let t = match &e.kind {
            ExprKind::Lit(l) => lit_ty(l),
            ExprKind::Ident(name) => self.ident(name, e.pos, true),
            ExprKind::Select {
                operand,
                field,
                test,
            } => self.select(operand, field, *test, e.pos),
            ExprKind::Call { target, func, args } => self.call(e, target.as_deref(), func, args),
            ExprKind::List(items) => self.list(items),
            ExprKind::Map(entries) => self.map(entries),
            ExprKind::Macro {
                kind,
                range,
                var,
                args,
            } => self.comprehension(*kind, range, var, args, e.pos),
        };
        self.out.types.insert(e.id, t.clone());
        t
    }

    fn ident(&mut self, name: &str, pos: usize, exact: bool) -> Ty {
        if let Some(t) = self.local(name) {
            return t.clone();
        }
        match name {
            "self" => self.scope.self_ty.clone(),
            "oldSelf" => {
                self.out.uses_old_self = true;
                self.scope.old_self_ty.clone()
            }
            _ if TYPE_NAMES.contains(&name) || name == "dyn" => {
                self.unsupported(format!("type identifier `{name}`"))
            }
            _ => self.err(
                pos,
                format!("undeclared reference to '{name}' (in container '')"),
                exact,
            ),
        }
    }

    fn select(&mut self, operand: &Expr, field: &str, test: bool, pos: usize) -> Ty {
        let ot = self.operand(operand);
        let ft = self.select_on(&ot, field, test, pos);
        if test { Ty::Bool } else { ft }
    }

    /// The type of a selection's operand (an identifier there may name a namespace, whose
    /// reference error is not modelled).
    fn operand(&mut self, operand: &Expr) -> Ty {
        if let ExprKind::Ident(n) = &operand.kind {
            let t = self.ident(n, operand.pos, false);
            self.out.types.insert(operand.id, t.clone());
            t
        } else {
            self.expr(operand)
        }
    }

    /// cel-go's `checkSelectField`: an optional operand is unwrapped and the result wrapped.
    fn select_on(&mut self, ot: &Ty, field: &str, test: bool, pos: usize) -> Ty {
        if let Ty::Optional(inner) = ot {
            let ft = self.select_on(inner, field, test, pos);
            return Ty::Optional(Box::new(ft));
        }
        match ot {
            Ty::Object(idx, name) => match self.scope.decls.all.get(*idx).map(|d| &d.kind) {
                Some(DeclKind::Object { fields }) => match fields.get(field).or_else(|| {
                    crate::decl::is_reserved(field)
                        .then(|| fields.get(&format!("__{field}__")))
                        .flatten()
                }) {
                    Some(f) => decl_ty(self.scope.decls, *f, &format!("{name}.{field}")),
                    None => self.err(pos, format!("undefined field '{field}'"), true),
                },
                _ => Ty::Dyn,
            },
            Ty::Map(_, v) => (**v).clone(),
            // cel-go selects from an error as from `dyn`.
            Ty::Dyn | Ty::Error => Ty::Dyn,
            Ty::Named(_) | Ty::Type(_) | Ty::Param(_) => {
                self.unsupported(format!("field selection on `{}`", ot.show()))
            }
            other => {
                let msg = format!("type '{}' does not support field selection", other.show());
                self.err(pos, msg, !test);
                // cel-go carries on with `dyn` here (an undefined field stays an error).
                Ty::Dyn
            }
        }
    }

    /// `operand.?field`: the field's type, optional.
    fn optional_select(&mut self, e: &Expr, args: &[Expr]) -> Ty {
        let [
            operand,
            Expr {
                kind: ExprKind::Lit(Lit::Str(field)),
                ..
            },
        ] = args
        else {
            return self.unsupported("an optional selection of this shape");
        };
        let ot = self.operand(operand);
        let ft = self.select_on(&ot, field, false, e.pos);
        self.out
            .overloads
            .insert(e.id, vec!["select_optional_field".into()]);
        match ft {
            Ty::Optional(_) => ft,
            other => Ty::Optional(Box::new(other)),
        }
    }

    fn list(&mut self, items: &[Expr]) -> Ty {
        let mut elem: Option<Ty> = None;
        for i in items {
            let t = self.expr(i);
            match &elem {
                None => elem = Some(t),
                Some(prev) if prev.is_dyn_or_error() || t.is_dyn_or_error() || *prev == t => {}
                Some(prev) => {
                    let msg = format!("expected type '{}' but found '{}'", prev.show(), t.show());
                    self.err(i.pos, msg, false);
                }
            }
        }
        Ty::List(Box::new(elem.unwrap_or(Ty::Dyn)))
    }

    fn map(&mut self, entries: &[(Expr, Expr)]) -> Ty {
        let (mut kt, mut vt): (Option<Ty>, Option<Ty>) = (None, None);
        for (k, v) in entries {
            let (a, b) = (self.expr(k), self.expr(v));
            for (slot, t, pos) in [(&mut kt, a, k.pos), (&mut vt, b, v.pos)] {
                match slot {
                    None => *slot = Some(t),
                    Some(prev) if prev.is_dyn_or_error() || t.is_dyn_or_error() || *prev == t => {}
                    Some(prev) => {
                        let msg =
                            format!("expected type '{}' but found '{}'", prev.show(), t.show());
                        self.out.errors.push(CheckError {
                            pos,
                            msg,
                            exact: false,
                        });
                    }
                }
            }
        }
        Ty::Map(
            Box::new(kt.unwrap_or(Ty::Dyn)),
            Box::new(vt.unwrap_or(Ty::Dyn)),
        )
    }

    /// A predicate that is not a bool, as cel-go reports it in the macro's expansion: a type
    /// mismatch of `&&`/`||` at the predicate, or no `_?_:_` overload at the macro call.
    fn predicate_error(
        &mut self,
        kind: MacroKind,
        p: &Expr,
        t: &Ty,
        pos: usize,
        var: &Ty,
        f: Option<&Ty>,
    ) {
        let list = |e: &Ty| Ty::List(Box::new(e.clone())).show();
        let msg = match kind {
            MacroKind::All | MacroKind::Exists => {
                self.err(
                    p.pos,
                    format!("expected type 'bool' but found '{}'", t.show()),
                    true,
                );
                return;
            }
            MacroKind::ExistsOne => format!("({}, int, int)", t.show()),
            MacroKind::Filter => format!("({}, {}, {})", t.show(), list(var), list(var)),
            MacroKind::Map => {
                let f = f.cloned().unwrap_or(Ty::Dyn);
                format!("({}, {}, {})", t.show(), list(&f), list(&f))
            }
        };
        self.err(
            pos,
            format!("found no matching overload for '_?_:_' applied to '{msg}'"),
            true,
        );
    }

    fn comprehension(
        &mut self,
        kind: MacroKind,
        range: &Expr,
        var: &str,
        args: &[Expr],
        pos: usize,
    ) -> Ty {
        let rt = self.expr(range);
        let vt = match &rt {
            Ty::List(e) => (**e).clone(),
            Ty::Map(k, _) => (**k).clone(),
            Ty::Dyn => Ty::Dyn,
            Ty::Error => Ty::Error,
            other => {
                let msg = format!(
                    "expression of type '{}' cannot be range of a comprehension (must be list, map, or dynamic)",
                    other.show()
                );
                self.err(range.pos, msg, true)
            }
        };
        self.locals.push((var.to_owned(), vt.clone()));
        let types: Vec<Ty> = args.iter().map(|a| self.expr(a)).collect();
        self.locals.pop();
        let predicate = match kind {
            MacroKind::Map if args.len() == 1 => None,
            _ => args.first().zip(types.first()),
        };
        if let Some((p, t)) = predicate
            && !t.is_dyn_or_error()
            && *t != Ty::Bool
        {
            self.predicate_error(kind, p, t, pos, &vt, types.last());
        }
        match kind {
            MacroKind::All | MacroKind::Exists | MacroKind::ExistsOne => Ty::Bool,
            MacroKind::Map => Ty::List(Box::new(types.last().cloned().unwrap_or(Ty::Dyn))),
            MacroKind::Filter => Ty::List(Box::new(vt)),
        }
    }

    fn call(&mut self, e: &Expr, target: Option<&Expr>, func: &str, args: &[Expr]) -> Ty {
        if func == "_?._" && target.is_none() {
            return self.optional_select(e, args);
        }
        if let Some(t) = target
            && let ExprKind::Ident(ns) = &t.kind
            && !self.is_variable(ns)
        {
            let qualified = format!("{ns}.{func}");
            if functions().contains_key(&qualified) {
                return self.resolve(e, None, &qualified, args);
            }
        }
        self.resolve(e, target, func, args)
    }

    fn resolve(&mut self, e: &Expr, target: Option<&Expr>, func: &str, args: &[Expr]) -> Ty {
        let mut arg_tys = Vec::new();
        if let Some(t) = target {
            arg_tys.push(self.expr(t));
        }
        for a in args {
            arg_tys.push(self.expr(a));
        }
        if func == "_&&_" || func == "_||_" {
            for (a, t) in args.iter().zip(&arg_tys) {
                if !t.is_dyn_or_error() && *t != Ty::Bool {
                    self.err(
                        a.pos,
                        format!("expected type 'bool' but found '{}'", t.show()),
                        true,
                    );
                }
            }
            self.out.overloads.insert(
                e.id,
                vec![
                    if func == "_&&_" {
                        "logical_and"
                    } else {
                        "logical_or"
                    }
                    .into(),
                ],
            );
            return Ty::Bool;
        }
        if func == "type" {
            return self.unsupported(format!("function `{func}`"));
        }
        let Some(decl) = functions().get(func) else {
            return self.err(
                e.pos,
                format!("undeclared reference to '{func}' (in container '')"),
                true,
            );
        };
        let (mut ids, mut result): (Vec<String>, Option<Ty>) = (Vec::new(), None);
        for o in decl
            .iter()
            .filter(|o| o.member == target.is_some() && o.params.len() == arg_tys.len())
        {
            let mut b = Bindings::new();
            let mut ok = true;
            for (a, p) in arg_tys.iter().zip(&o.params) {
                match assignable(a, p, &mut b) {
                    Some(true) => {}
                    Some(false) => ok = false,
                    None => return self.unsupported("null compared with a non-null type"),
                }
            }
            if !ok {
                continue;
            }
            ids.push(o.id.clone());
            let r = substitute(&o.result, &b, true);
            result = Some(match result {
                None => r,
                Some(prev) if prev == Ty::Dyn || prev != r => Ty::Dyn,
                Some(prev) => prev,
            });
        }
        let Some(result) = result else {
            let shown: Vec<String> = arg_tys.iter().map(Ty::show).collect();
            let sig = match target {
                Some(_) => format!("{}.({})", shown[0], shown[1..].join(", ")),
                None => format!("({})", shown.join(", ")),
            };
            return self.err(
                e.pos,
                format!("found no matching overload for '{func}' applied to '{sig}'"),
                true,
            );
        };
        self.out.overloads.insert(e.id, ids);
        result
    }
}

fn lit_ty(l: &Lit) -> Ty {
    match l {
        Lit::Int(_) => Ty::Int,
        Lit::Uint(_) => Ty::Uint,
        Lit::Double(_) => Ty::Double,
        Lit::Str(_) => Ty::String,
        Lit::Bytes(_) => Ty::Bytes,
        Lit::Bool(_) => Ty::Bool,
        Lit::Null => Ty::Null,
    }
}
