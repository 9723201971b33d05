//! The static cost estimate of a checked expression, as cel-go's `checker.Cost` computes it
//! with apiserver's `library.CostEstimator` and the CRD size estimator (sizes from the
//! schema's declared types along each expression's path). Macros are costed as the
//! comprehensions cel-go expands them to.

use std::collections::BTreeMap;

use crate::ast::{Expr, ExprKind, Lit, MacroKind};
use crate::check::Checked;
use crate::decl::{DeclKind, Decls};
use crate::est::{Est, REGEX_LENGTH, STRING_TRAVERSAL};
use crate::types::Ty;

/// Entry sizes of a list or map value (`computedEntrySizes`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub(crate) list: bool,
    pub(crate) key: Est,
    pub(crate) val: Est,
}

impl Entry {
    fn union(self, o: Entry) -> Entry {
        Entry {
            list: self.list,
            key: self.key.union(o.key),
            val: self.val.union(o.val),
        }
    }
}

/// A comprehension variable in scope.
#[derive(Clone, Debug)]
pub(crate) struct Local {
    pub(crate) name: String,
    pub(crate) path: Vec<String>,
    pub(crate) size: Option<Est>,
    pub(crate) entry: Option<Entry>,
}

/// The estimator's state for one expression.
pub struct Coster<'a> {
    pub(crate) decls: &'a Decls,
    pub(crate) root: usize,
    pub(crate) checked: &'a Checked,
    pub(crate) paths: BTreeMap<usize, Vec<String>>,
    pub(crate) sizes: BTreeMap<usize, Est>,
    pub(crate) entries: BTreeMap<usize, Entry>,
    pub(crate) locals: Vec<Local>,
    /// Why the cost is not judged, when a function's cost is not modelled.
    pub unsupported: Option<String>,
}

/// The maximum estimated cost of `e` whose `self` has decl `root`.
pub fn estimate(e: &Expr, decls: &Decls, root: usize, checked: &Checked) -> Result<u64, String> {
    let mut c = Coster {
        decls,
        root,
        checked,
        paths: BTreeMap::new(),
        sizes: BTreeMap::new(),
        entries: BTreeMap::new(),
        locals: Vec::new(),
        unsupported: None,
    };
    let cost = c.cost(e);
    match c.unsupported {
        Some(why) => Err(why),
        None => Ok(cost.max),
    }
}

impl Coster<'_> {
    pub(crate) fn ty(&self, e: &Expr) -> Ty {
        self.checked.types.get(&e.id).cloned().unwrap_or(Ty::Dyn)
    }
    pub(crate) fn not_modelled(&mut self, why: String) -> Est {
        self.unsupported.get_or_insert(why);
        Est::default()
    }
    fn local(&self, name: &str) -> Option<&Local> {
        self.locals.iter().rev().find(|l| l.name == name)
    }
    pub(crate) fn path(&self, e: &Expr) -> Vec<String> {
        if let ExprKind::Ident(n) = &e.kind
            && let Some(l) = self.local(n)
        {
            return l.path.clone();
        }
        self.paths.get(&e.id).cloned().unwrap_or_default()
    }

    pub(crate) fn cost(&mut self, e: &Expr) -> Est {
        match &e.kind {
            ExprKind::Lit(_) => Est::fixed(0),
            ExprKind::Ident(n) => {
                let p = self
                    .local(n)
                    .map_or_else(|| vec![n.clone()], |l| l.path.clone());
                self.paths.insert(e.id, p);
                Est::fixed(1)
            }
            ExprKind::Select {
                operand,
                field,
                test,
            } => {
                let sum = self.cost(operand);
                if *test {
                    return sum; // PresenceTestHasCost(false)
                }
                let ot = self.ty(operand);
                let sel = if matches!(ot, Ty::Map(..) | Ty::Param(_)) || ot.is_struct_kind() {
                    1
                } else {
                    0
                };
                let mut p = self.path(operand);
                p.push(field.clone());
                self.paths.insert(e.id, p);
                sum.add(Est::fixed(sel))
            }
            ExprKind::Call { target, func, args } => self.call(e, target.as_deref(), func, args),
            ExprKind::List(items) => {
                let mut sum = Est::default();
                let mut item = if items.is_empty() {
                    Est::fixed(0)
                } else {
                    Est {
                        min: u64::MAX,
                        max: 0,
                    }
                };
                for i in items {
                    sum = sum.add(self.cost(i));
                    item = item.union(self.size_or_unknown(i));
                }
                self.entries.insert(
                    e.id,
                    Entry {
                        list: true,
                        key: Est::fixed(1),
                        val: item,
                    },
                );
                sum.add(Est::fixed(10))
            }
            ExprKind::Map(entries) => self.create_map(e, entries),
            ExprKind::Macro {
                kind,
                range,
                var,
                args,
            } => self.comprehension(e, *kind, range, var, args),
        }
    }

    fn create_map(&mut self, e: &Expr, entries: &[(Expr, Expr)]) -> Est {
        let mut sum = Est::default();
        let start = if entries.is_empty() {
            Est::fixed(0)
        } else {
            Est {
                min: u64::MAX,
                max: 0,
            }
        };
        let (mut ks, mut vs) = (start, start);
        for (k, v) in entries {
            sum = sum.add(self.cost(k)).add(self.cost(v));
            ks = ks.union(self.size_or_unknown(k));
            vs = vs.union(self.size_or_unknown(v));
        }
        self.entries.insert(
            e.id,
            Entry {
                list: false,
                key: ks,
                val: vs,
            },
        );
        sum.add(Est::fixed(30))
    }

    /// `computeSize`.
    pub(crate) fn size(&mut self, e: &Expr) -> Option<Est> {
        if let Some(s) = self.sizes.get(&e.id) {
            return Some(*s);
        }
        if let ExprKind::Lit(l) = &e.kind {
            return Some(Est::fixed(match l {
                Lit::Str(s) => s.chars().count() as u64,
                Lit::Bytes(b) => b.len() as u64,
                _ => 1,
            }));
        }
        match &e.kind {
            ExprKind::List(i) => return Some(Est::fixed(i.len() as u64)),
            ExprKind::Map(m) => return Some(Est::fixed(m.len() as u64)),
            _ => {}
        }
        if let Some(s) = self.estimate_size(&self.path(e)) {
            self.sizes.insert(e.id, s);
            return Some(s);
        }
        if is_scalar(&self.ty(e)) {
            return Some(Est::fixed(1));
        }
        if let ExprKind::Ident(n) = &e.kind {
            return self.local(n).and_then(|l| l.size);
        }
        None
    }

    pub(crate) fn size_or_unknown(&mut self, e: &Expr) -> Est {
        self.size(e).unwrap_or(Est::unknown())
    }

    /// The CRD size estimator: the declared type at `path` (after its first element).
    pub(crate) fn estimate_size(&self, path: &[String]) -> Option<Est> {
        if path.is_empty() {
            return None;
        }
        let mut cur = self.root;
        for name in &path[1..] {
            let d = self.decls.all.get(cur)?;
            cur = match (name.as_str(), &d.kind) {
                ("@items" | "@values", DeclKind::List(e) | DeclKind::Map(e)) => *e,
                ("@keys", DeclKind::Map(_)) => return Some(Est::fixed(0)),
                (_, DeclKind::Object { fields, .. }) => *fields.get(name)?,
                _ => return None,
            };
        }
        let max = self.decls.all.get(cur)?.max_elements;
        Some(Est {
            min: 0,
            max: u64::try_from(max).unwrap_or(0),
        })
    }

    pub(crate) fn entry(&self, e: &Expr) -> Option<Entry> {
        if let Some(s) = self.entries.get(&e.id) {
            return Some(*s);
        }
        if let ExprKind::Ident(n) = &e.kind {
            return self.local(n).and_then(|l| l.entry);
        }
        None
    }

    fn comprehension(
        &mut self,
        e: &Expr,
        kind: MacroKind,
        range: &Expr,
        var: &str,
        args: &[Expr],
    ) -> Est {
        let list_accu = matches!(kind, MacroKind::Map | MacroKind::Filter);
        let mut sum = self.cost(range);
        let empty = Entry {
            list: true,
            key: Est::fixed(1),
            val: Est::fixed(0),
        };
        if list_accu {
            sum = sum.add(Est::fixed(10));
        }
        let accu_size = if list_accu {
            Some(Est::fixed(0))
        } else {
            Some(Est::fixed(1))
        };
        let accu_entry = list_accu.then_some(empty);
        self.locals.push(Local {
            name: "@result".into(),
            path: Vec::new(),
            size: accu_size,
            entry: accu_entry,
        });
        let entry = self.entry(range);
        let is_list = entry.map_or_else(|| matches!(self.ty(range), Ty::List(_)), |en| en.list);
        let mut path = self.path(range);
        path.push(if is_list { "@items" } else { "@keys" }.into());
        let size = entry.map(|en| if is_list { en.val } else { en.key });
        self.locals.push(Local {
            name: var.to_owned(),
            path,
            size,
            entry: None,
        });
        let costs: Vec<Est> = args.iter().map(|a| self.cost(a)).collect();
        let item = if kind == MacroKind::Filter {
            let l = self.locals.last().cloned();
            l.and_then(|l| self.estimate_size(&l.path).or(l.size))
                .unwrap_or(Est::unknown())
        } else {
            args.last()
                .map_or(Est::unknown(), |a| self.size_or_unknown(a))
        };
        self.locals.pop();
        let (step, cond, result) = step_costs(kind, &costs);
        sum = sum.add(result);
        self.locals.pop();
        let range_cnt = self.size_or_unknown(range);
        sum = sum.add(range_cnt.mul(step.add(cond)));
        if list_accu {
            self.sizes.insert(e.id, range_cnt);
            let step_entry = Entry {
                list: true,
                key: Est::fixed(1),
                val: item,
            };
            self.entries.insert(e.id, empty.union(step_entry));
        } else {
            self.sizes.insert(e.id, Est::fixed(1));
        }
        sum
    }
}

/// Loop step, loop condition and result costs of a macro's expansion, given its argument
/// costs (`[p]`, `[f]` or `[p, f]`).
fn step_costs(kind: MacroKind, args: &[Est]) -> (Est, Est, Est) {
    let a0 = args.first().copied().unwrap_or_default();
    let ident = Est::fixed(1);
    match kind {
        // __result__ && p ; @not_strictly_false(__result__) ; __result__
        MacroKind::All => (
            Est {
                min: 1,
                max: 1u64.saturating_add(a0.max),
            },
            Est::fixed(2),
            ident,
        ),
        // __result__ || p ; @not_strictly_false(!__result__) ; __result__
        MacroKind::Exists => (
            Est {
                min: 1,
                max: 1u64.saturating_add(a0.max),
            },
            Est::fixed(3),
            ident,
        ),
        // p ? __result__ + 1 : __result__ ; true ; __result__ == 1
        MacroKind::ExistsOne => (a0.add(Est { min: 1, max: 2 }), Est::fixed(0), Est::fixed(2)),
        MacroKind::Map if args.len() == 1 => (Est::fixed(12).add(a0), Est::fixed(0), ident),
        MacroKind::Map => {
            let f = args.get(1).copied().unwrap_or_default();
            (
                a0.add(Est::fixed(12).add(f).union(Est::fixed(1))),
                Est::fixed(0),
                ident,
            )
        }
        MacroKind::Filter => (a0.add(Est { min: 1, max: 13 }), Est::fixed(0), ident),
    }
}

fn is_scalar(t: &Ty) -> bool {
    match t {
        Ty::Bool | Ty::Double | Ty::Int | Ty::Uint => true,
        Ty::Named(n) => n == "google.protobuf.Duration" || n == "google.protobuf.Timestamp",
        Ty::Optional(inner) => is_scalar(inner),
        _ => false,
    }
}

/// `(1 + size) * 0.1` times `regex_size * 0.25`, as the regex functions cost.
pub(crate) fn regex_cost(str_size: Est, regex_size: Est) -> Est {
    str_size
        .add(Est::fixed(1))
        .factor(STRING_TRAVERSAL)
        .mul(regex_size.factor(REGEX_LENGTH))
}
