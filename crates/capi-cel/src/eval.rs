//! A small CEL evaluator for default values: the server validates every default against
//! the rules it reaches (with `oldSelf` the default itself). Only what is modelled here is
//! evaluated; anything else (and every runtime error) is `None`: not judged.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::ast::{Expr, ExprKind, Lit, MacroKind};
use crate::check::Checked;

/// A CEL value.
#[derive(Clone, Debug, PartialEq)]
enum Val {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    Str(String),
    List(Vec<Val>),
    Map(BTreeMap<String, Val>),
}

/// Evaluates a checked rule with `self` (and `oldSelf`) bound to `value`; `Some(result)`
/// when the rule evaluates to a bool with the modelled subset.
pub fn holds(e: &Expr, checked: &Checked, value: &Value) -> Option<bool> {
    let mut ev = Eval {
        checked,
        locals: vec![
            ("self".into(), from_json(value)?),
            ("oldSelf".into(), from_json(value)?),
        ],
    };
    match ev.eval(e)? {
        Val::Bool(b) => Some(b),
        _ => None,
    }
}

/// JSON as a CEL value; numbers with a fraction are doubles, integral ones ints (the
/// checked types decide where that matters: comparisons of mixed kinds are not judged).
fn from_json(v: &Value) -> Option<Val> {
    Some(match v {
        Value::Null => Val::Null,
        Value::Bool(b) => Val::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Val::Int(i),
            None => Val::Double(n.as_f64()?),
        },
        Value::String(s) => Val::Str(s.clone()),
        Value::Array(a) => Val::List(a.iter().map(from_json).collect::<Option<_>>()?),
        Value::Object(o) => Val::Map(
            o.iter()
                .map(|(k, v)| Some((k.clone(), from_json(v)?)))
                .collect::<Option<_>>()?,
        ),
    })
}

struct Eval<'a> {
    checked: &'a Checked,
    locals: Vec<(String, Val)>,
}

impl Eval<'_> {
    fn eval(&mut self, e: &Expr) -> Option<Val> {
        match &e.kind {
            ExprKind::Lit(l) => Some(match l {
                Lit::Int(i) => Val::Int(*i),
                Lit::Uint(u) => Val::Uint(*u),
                Lit::Double(d) => Val::Double(*d),
                Lit::Str(s) => Val::Str(s.clone()),
                Lit::Bool(b) => Val::Bool(*b),
                Lit::Null => Val::Null,
                Lit::Bytes(_) => return None,
            }),
            ExprKind::Ident(n) => self
                .locals
                .iter()
                .rev()
                .find(|(k, _)| k == n)
                .map(|(_, v)| v.clone()),
            ExprKind::Select {
                operand,
                field,
                test,
            } => {
                let Val::Map(m) = self.eval(operand)? else {
                    return None;
                };
                if *test {
                    Some(Val::Bool(m.contains_key(field)))
                } else {
                    m.get(field).cloned()
                }
            }
            ExprKind::List(items) => Some(Val::List(
                items.iter().map(|i| self.eval(i)).collect::<Option<_>>()?,
            )),
            ExprKind::Map(_) => None,
            ExprKind::Macro {
                kind,
                range,
                var,
                args,
            } => self.comprehension(*kind, range, var, args),
            ExprKind::Call { target, func, args } => self.call(e, target.as_deref(), func, args),
        }
    }

    fn comprehension(
        &mut self,
        kind: MacroKind,
        range: &Expr,
        var: &str,
        args: &[Expr],
    ) -> Option<Val> {
        let items: Vec<Val> = match self.eval(range)? {
            Val::List(l) => l,
            Val::Map(m) => m.into_keys().map(Val::Str).collect(),
            _ => return None,
        };
        let mut out = Vec::new();
        let mut count = 0usize;
        for item in items {
            self.locals.push((var.to_owned(), item.clone()));
            let r = args
                .iter()
                .map(|a| self.eval(a))
                .collect::<Option<Vec<Val>>>();
            self.locals.pop();
            let r = r?;
            let pred = match (kind, r.first()) {
                (MacroKind::Map, _) if args.len() == 1 => true,
                (_, Some(Val::Bool(b))) => *b,
                _ => return None,
            };
            match kind {
                MacroKind::All if !pred => return Some(Val::Bool(false)),
                MacroKind::Exists if pred => return Some(Val::Bool(true)),
                MacroKind::ExistsOne if pred => count += 1,
                MacroKind::Filter if pred => out.push(item),
                MacroKind::Map if pred => out.push(r.last()?.clone()),
                _ => {}
            }
        }
        Some(match kind {
            MacroKind::All => Val::Bool(true),
            MacroKind::Exists => Val::Bool(false),
            MacroKind::ExistsOne => Val::Bool(count == 1),
            MacroKind::Map | MacroKind::Filter => Val::List(out),
        })
    }

    fn call(&mut self, e: &Expr, target: Option<&Expr>, func: &str, args: &[Expr]) -> Option<Val> {
        if !self.checked.overloads.contains_key(&e.id) {
            return None;
        }
        match (func, args) {
            ("_&&_" | "_||_", [a, b]) => {
                let (x, y) = (self.eval(a), self.eval(b));
                let short = func == "_||_";
                if x == Some(Val::Bool(short)) || y == Some(Val::Bool(short)) {
                    return Some(Val::Bool(short));
                }
                match (x?, y?) {
                    (Val::Bool(_), Val::Bool(_)) => Some(Val::Bool(!short)),
                    _ => None,
                }
            }
            ("_?_:_", [c, t, f]) => match self.eval(c)? {
                Val::Bool(true) => self.eval(t),
                Val::Bool(false) => self.eval(f),
                _ => None,
            },
            _ => {
                let recv = match target {
                    Some(t) => Some(self.eval(t)?),
                    None => None,
                };
                let vals = args
                    .iter()
                    .map(|a| self.eval(a))
                    .collect::<Option<Vec<_>>>()?;
                apply(func, recv, vals)
            }
        }
    }
}

fn apply(func: &str, recv: Option<Val>, args: Vec<Val>) -> Option<Val> {
    use Val::{Bool, Int, List, Map, Str};
    let b = |x: bool| Some(Bool(x));
    match (func, recv.as_ref(), args.as_slice()) {
        ("_==_" | "_!=_", None, [x, y]) if comparable(x, y) => b((x == y) == (func == "_==_")),
        ("!_", None, [Bool(x)]) => b(!x),
        ("-_", None, [Int(x)]) => x.checked_neg().map(Int),
        ("_<_" | "_<=_" | "_>_" | "_>=_", None, [x, y]) => compare(func, x, y).map(Bool),
        ("_+_", None, [Int(x), Int(y)]) => x.checked_add(*y).map(Int),
        ("_-_", None, [Int(x), Int(y)]) => x.checked_sub(*y).map(Int),
        ("_*_", None, [Int(x), Int(y)]) => x.checked_mul(*y).map(Int),
        ("_+_", None, [Str(x), Str(y)]) => Some(Str(format!("{x}{y}"))),
        ("_+_", None, [List(x), List(y)]) => Some(List(x.iter().chain(y).cloned().collect())),
        ("@in", None, [x, List(l)]) => b(l.contains(x)),
        ("@in", None, [Str(k), Map(m)]) => b(m.contains_key(k)),
        ("_[_]", None, [List(l), Int(i)]) => {
            usize::try_from(*i).ok().and_then(|i| l.get(i)).cloned()
        }
        ("_[_]", None, [Map(m), Str(k)]) => m.get(k).cloned(),
        ("size", None, [x]) | ("size", Some(x), []) => size(x).map(Int),
        ("startsWith", Some(Str(s)), [Str(p)]) => b(s.starts_with(p.as_str())),
        ("endsWith", Some(Str(s)), [Str(p)]) => b(s.ends_with(p.as_str())),
        ("contains", Some(Str(s)), [Str(p)]) => b(s.contains(p.as_str())),
        ("lowerAscii", Some(Str(s)), []) => Some(Str(s.to_ascii_lowercase())),
        ("matches", Some(Str(s)), [Str(p)]) | ("matches", None, [Str(s), Str(p)]) => {
            matches(s, p).map(Bool)
        }
        ("upperAscii", Some(Str(s)), []) => Some(Str(s.to_ascii_uppercase())),
        _ => None,
    }
}

/// Equality is judged only between values of one kind (a JSON `2` and `2.0` are one CEL
/// double: not modelled).
fn comparable(x: &Val, y: &Val) -> bool {
    std::mem::discriminant(x) == std::mem::discriminant(y) && !matches!(x, Val::Double(_))
}

/// RE2's `matches` (a search, unanchored) where the `regex` crate answers as RE2 does: a
/// pattern RE2 certainly accepts, ASCII pattern and text, no vertical tab (which only the
/// `regex` crate's `\s` matches).
fn matches(s: &str, p: &str) -> Option<bool> {
    let plain = |t: &str| t.is_ascii() && !t.contains('\u{b}');
    if !plain(s) || !plain(p) || !crate::regex_lits::certainly_valid(p) {
        return None;
    }
    regex::Regex::new(p).ok().map(|re| re.is_match(s))
}

fn size(v: &Val) -> Option<i64> {
    let n = match v {
        Val::Str(s) => s.chars().count(),
        Val::List(l) => l.len(),
        Val::Map(m) => m.len(),
        _ => return None,
    };
    i64::try_from(n).ok()
}

fn compare(func: &str, x: &Val, y: &Val) -> Option<bool> {
    let ord = match (x, y) {
        (Val::Int(a), Val::Int(b)) => a.cmp(b),
        (Val::Uint(a), Val::Uint(b)) => a.cmp(b),
        (Val::Str(a), Val::Str(b)) => a.cmp(b),
        (Val::Bool(a), Val::Bool(b)) => a.cmp(b),
        _ => return None,
    };
    Some(match func {
        "_<_" => ord.is_lt(),
        "_<=_" => ord.is_le(),
        "_>_" => ord.is_gt(),
        _ => ord.is_ge(),
    })
}
