//! Function call costs: apiserver's `library.CostEstimator.EstimateCallCost` by function
//! name, then cel-go's built-in estimates by overload id, then one plus the arguments.
//! Functions whose cost cel-go's extension libraries estimate otherwise are not modelled.

use crate::ast::{Expr, ExprKind, Lit};
use crate::cost::{Coster, Entry, regex_cost};
use crate::est::{Est, STRING_TRAVERSAL};
use crate::types::Ty;

/// Functions whose cost this crate does not model (cel-go extension estimators, selectors).
const NOT_MODELLED: [&str; 13] = [
    "slice",
    "flatten",
    "lists.range",
    "reverse",
    "distinct",
    "sort",
    "@sortByAssociatedKeys",
    "sets.contains",
    "sets.intersects",
    "sets.equivalent",
    "format",
    "fieldSelector",
    "labelSelector",
];

const UNIT_COST: [&str; 34] = [
    "check",
    "serviceAccount",
    "path",
    "group",
    "resource",
    "subresource",
    "namespace",
    "name",
    "allowed",
    "reason",
    "error",
    "errored",
    "masked",
    "prefixLength",
    "family",
    "isUnspecified",
    "isLoopback",
    "isLinkLocalMulticast",
    "isLinkLocalUnicast",
    "isGlobalUnicast",
    "format.named",
    "sign",
    "asInteger",
    "isInteger",
    "asApproximateFloat",
    "isGreaterThan",
    "isLessThan",
    "compareTo",
    "add",
    "sub",
    "major",
    "minor",
    "patch",
    "getScheme",
];

/// A call's estimate: its cost (without the arguments) and result size.
struct CallEst {
    cost: Est,
    size: Option<Est>,
}

fn est(cost: Est) -> Option<CallEst> {
    Some(CallEst { cost, size: None })
}

impl Coster<'_> {
    pub(crate) fn call(
        &mut self,
        e: &Expr,
        target: Option<&Expr>,
        func: &str,
        args: &[Expr],
    ) -> Est {
        let qualified_target = target.filter(|t| self.checked.types.contains_key(&t.id));
        let ids = self
            .checked
            .overloads
            .get(&e.id)
            .cloned()
            .unwrap_or_default();
        let func_name = match target {
            Some(t) if qualified_target.is_none() => match &t.kind {
                ExprKind::Ident(ns) => format!("{ns}.{func}"),
                _ => func.to_owned(),
            },
            _ => func.to_owned(),
        };
        if func_name == "dyn" && args.len() == 1 {
            let c = self.cost(&args[0]);
            if let Some(s) = self.size(&args[0]) {
                self.sizes.insert(e.id, s);
            }
            if let Some(en) = self.entry(&args[0]) {
                self.entries.insert(e.id, en);
            }
            return Est::fixed(1).add(c);
        }
        if NOT_MODELLED.contains(&func_name.as_str()) {
            return self.not_modelled(format!("the cost of `{func_name}`"));
        }
        let mut arg_costs = Vec::new();
        for a in args {
            arg_costs.push(self.cost(a));
        }
        let arg_sum = arg_costs.iter().fold(Est::default(), |s, c| s.add(*c));
        let mut sum = Est::default();
        if let Some(t) = qualified_target {
            sum = sum.add(self.cost(t));
        }
        if ids.is_empty() {
            return Est::default();
        }
        let mut fn_cost = Est {
            min: u64::MAX,
            max: 0,
        };
        let mut result: Option<Est> = None;
        for id in &ids {
            let c = self.overload_cost(
                e,
                &func_name,
                id,
                qualified_target,
                args,
                &arg_costs,
                arg_sum,
            );
            fn_cost = fn_cost.union(c.cost);
            if let Some(s) = c.size {
                result = Some(result.map_or(s, |r| r.union(s)));
            }
            if (id == "index_list" || id == "index_map") && !args.is_empty() {
                result = self.entry(&args[0]).map(|en| en.val);
                let mut p = self.path(&args[0]);
                p.push(
                    if id == "index_list" {
                        "@items"
                    } else {
                        "@values"
                    }
                    .into(),
                );
                self.paths.insert(e.id, p);
            }
            if result.is_none() {
                result = self.size(e);
            }
        }
        if let Some(r) = result {
            self.sizes.insert(e.id, r);
        }
        sum.add(fn_cost)
    }

    #[allow(clippy::too_many_arguments)]
    fn overload_cost(
        &mut self,
        e: &Expr,
        func: &str,
        id: &str,
        target: Option<&Expr>,
        args: &[Expr],
        arg_costs: &[Est],
        arg_sum: Est,
    ) -> CallEst {
        if let Some(k) = self.kubernetes_cost(func, id, target, args) {
            return CallEst {
                cost: k.cost.add(arg_sum),
                size: k.size,
            };
        }
        if let Some(b) = self.builtin_cost(e, id, target, args, arg_costs) {
            return b;
        }
        CallEst {
            cost: Est::fixed(1).add(arg_sum),
            size: None,
        }
    }

    /// apiserver's `EstimateCallCost` (argument costs are added by the caller).
    fn kubernetes_cost(
        &mut self,
        func: &str,
        id: &str,
        target: Option<&Expr>,
        args: &[Expr],
    ) -> Option<CallEst> {
        if UNIT_COST.contains(&func)
            || matches!(
                func,
                "getHostname" | "getHost" | "getPort" | "getEscapedPath" | "getQuery"
            )
        {
            return est(Est::fixed(1));
        }
        let arg0 = args.first();
        match func {
            "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf" | "includes" => {
                let t = target?;
                self.list_traversal(func, t)
            }
            "url" | "jsonpatch.escapeKey" if args.len() == 1 => {
                let sz = self.size_or_unknown(&args[0]);
                Some(CallEst {
                    cost: sz.factor(STRING_TRAVERSAL),
                    size: Some(sz),
                })
            }
            "lowerAscii" | "upperAscii" | "substring" | "trim" => {
                let sz = self.size_or_unknown(target?);
                Some(CallEst {
                    cost: sz.factor(STRING_TRAVERSAL),
                    size: Some(sz),
                })
            }
            "replace" if args.len() >= 2 => self.replace_cost(target?, &args[0], &args[1]),
            "split" => {
                let sz = self.size_or_unknown(target?);
                let max = match args.get(1).map(|a| &a.kind) {
                    Some(ExprKind::Lit(Lit::Int(i))) => *i as u64,
                    _ => sz.max,
                };
                Some(CallEst {
                    cost: sz.factor(2.0 * STRING_TRAVERSAL),
                    size: Some(Est { min: 0, max }),
                })
            }
            "join" => self.join_cost(target?, args.first()),
            "find" | "findAll" if arg0.is_some() => {
                let sz = self.size_or_unknown(target?);
                let re = self.size_or_unknown(arg0?);
                Some(CallEst {
                    cost: regex_cost(sz, re),
                    size: Some(Est {
                        min: 0,
                        max: sz.max,
                    }),
                })
            }
            "cidr" | "isIP" | "isCIDR" | "quantity" | "isQuantity" | "semver" | "isSemver" => {
                est(self.size_or_unknown(arg0?).factor(STRING_TRAVERSAL))
            }
            "ip" if id == "cidr_ip" => est(Est::fixed(1)),
            "ip" => est(self.size_or_unknown(arg0?).factor(STRING_TRAVERSAL)),
            "ip.isCanonical" => est(self.size_or_unknown(arg0?).factor(2.0 * STRING_TRAVERSAL)),
            "containsIP" | "containsCIDR" => {
                let sz = Est { min: 4, max: 16 };
                let mut c = sz.add(sz).factor(STRING_TRAVERSAL);
                if func == "containsCIDR" {
                    c = c.add(sz.factor(STRING_TRAVERSAL)).add(Est::fixed(1));
                }
                if id == "cidr_contains_ip_string" || id == "cidr_contains_cidr_string" {
                    c = c.add(self.size_or_unknown(arg0?).factor(STRING_TRAVERSAL));
                }
                est(c)
            }
            "validate" => est(self
                .size_or_unknown(arg0?)
                .factor(STRING_TRAVERSAL)
                .factor(128.0 * 0.25)),
            "_==_" if args.len() == 2 => self.kubernetes_equality(&args[0], &args[1]),
            _ => None,
        }
    }

    fn kubernetes_equality(&mut self, lhs: &Expr, rhs: &Expr) -> Option<CallEst> {
        let (l, r) = (self.ty(lhs), self.ty(rhs));
        if l != r {
            return None;
        }
        match l {
            Ty::Named(n) => match n.as_str() {
                "net.IP" | "net.CIDR" | "kubernetes.Quantity" | "kubernetes.Semver" => {
                    est(Est::fixed(1))
                }
                "kubernetes.NamedFormat" => est(Est { min: 1, max: 64 }.factor(STRING_TRAVERSAL)),
                // Durations and timestamps are not the library's: cel-go's own estimate.
                "google.protobuf.Duration" | "google.protobuf.Timestamp" => None,
                _ => Some(CallEst {
                    cost: self.not_modelled(format!("the cost of `==` on {n}")),
                    size: None,
                }),
            },
            _ => None,
        }
    }

    fn list_traversal(&mut self, func: &str, t: &Expr) -> Option<CallEst> {
        let target_size = self.size_or_unknown(t);
        if let Ty::List(elem) = self.ty(t) {
            let mut el = Est::fixed(1);
            if matches!(*elem, Ty::String | Ty::Bytes) {
                let sz = self.element_size(t);
                el = el.add(sz.factor(STRING_TRAVERSAL));
            }
            return est(target_size.mul(el));
        }
        if func == "includes" {
            return est(target_size);
        }
        est(target_size.factor(STRING_TRAVERSAL))
    }

    /// The size of a list's elements by the list's path (`listElementNode`): unknown when the
    /// list has no path (a computed list).
    fn element_size(&self, list: &Expr) -> Est {
        let mut p = self.path(list);
        if p.is_empty() || p[0] == "@result" {
            return Est::unknown();
        }
        p.push("@items".into());
        self.estimate_size(&p).unwrap_or(Est::unknown())
    }

    fn replace_cost(&mut self, t: &Expr, from: &Expr, with: &Expr) -> Option<CallEst> {
        let sz = self.size_or_unknown(t);
        let to_replace = self.size_or_unknown(from);
        let replace_with = self.size_or_unknown(with);
        let (mut count, mut retained) = (Est::default(), Est::default());
        if to_replace.min == 0 {
            count.max = if sz.max < u64::MAX {
                sz.max + 1
            } else {
                sz.max
            };
            retained.max = sz.max;
        } else if replace_with.max <= to_replace.min {
            retained.max = sz.max;
        } else {
            count.max = (sz.max as f64 / to_replace.min as f64).ceil() as u64;
        }
        if to_replace.max == 0 {
            count.min = if sz.min < u64::MAX {
                sz.min + 1
            } else {
                sz.min
            };
            retained.min = sz.min;
        } else if to_replace.max <= replace_with.min {
            retained.min = sz.min;
        } else {
            count.min = (sz.min as f64 / to_replace.max as f64).ceil() as u64;
        }
        let size = count.mul(replace_with).add(retained);
        Some(CallEst {
            cost: sz.factor(2.0 * STRING_TRAVERSAL),
            size: Some(size),
        })
    }

    fn join_cost(&mut self, t: &Expr, sep: Option<&Expr>) -> Option<CallEst> {
        let list = self.size_or_unknown(t);
        let mut sz = Est::default();
        if let Ty::List(_) = self.ty(t) {
            sz = list.mul(self.element_size(t));
        }
        if let Some(sep) = sep {
            let sep_size = self.size_or_unknown(sep);
            let seps = Est {
                min: list.min.saturating_sub(1),
                max: list.max.saturating_sub(1),
            };
            sz = sz.add(sep_size.mul(seps));
        }
        Some(CallEst {
            cost: sz.factor(STRING_TRAVERSAL),
            size: Some(sz),
        })
    }

    /// cel-go's own estimates by overload id (`functionCost`'s switch).
    fn builtin_cost(
        &mut self,
        e: &Expr,
        id: &str,
        target: Option<&Expr>,
        args: &[Expr],
        costs: &[Est],
    ) -> Option<CallEst> {
        let sum = costs.iter().fold(Est::default(), |s, c| s.add(*c));
        let size = |c: &mut Self, x: &Expr| c.size_or_unknown(x);
        match id {
            "string_to_bytes" | "bytes_to_string" | "strings_quote" if args.len() == 1 => {
                let sz = size(self, &args[0]);
                let rs = match id {
                    "string_to_bytes" => Est {
                        min: sz.min,
                        max: sz.max.saturating_mul(4),
                    },
                    "bytes_to_string" => Est {
                        min: sz.min / 4,
                        max: sz.max,
                    },
                    _ => Est {
                        min: sz.min.saturating_add(2),
                        max: sz.max.saturating_mul(2).saturating_add(2),
                    },
                };
                Some(CallEst {
                    cost: sz.factor(STRING_TRAVERSAL).add(sum),
                    size: Some(rs),
                })
            }
            "starts_with_string" | "ends_with_string" if args.len() == 1 => {
                est(size(self, &args[0]).factor(STRING_TRAVERSAL).add(sum))
            }
            "in_list" if args.len() == 2 => est(size(self, &args[1]).add(sum)),
            "matches" | "matches_string" => {
                let (s, r) = match (id, target) {
                    ("matches_string", Some(t)) if args.len() == 1 => (t, &args[0]),
                    ("matches", None) if args.len() == 2 => (&args[0], &args[1]),
                    _ => return None,
                };
                let (ss, rs) = (size(self, s), size(self, r));
                est(regex_cost(ss, rs).add(sum))
            }
            "contains_string" if args.len() == 1 => {
                let t = size(self, target?).factor(STRING_TRAVERSAL);
                est(t
                    .mul(size(self, &args[0]).factor(STRING_TRAVERSAL))
                    .add(sum))
            }
            "logical_and" | "logical_or" if costs.len() == 2 => est(Est {
                min: costs[0].min,
                max: costs[0].add(costs[1]).max,
            }),
            "conditional" if costs.len() == 3 => Some(self.conditional_cost(e, args, costs)),
            "add_string" | "add_bytes" | "add_list" if args.len() == 2 => {
                Some(self.add_cost(e, id, args, sum))
            }
            "less_string"
            | "greater_string"
            | "less_equals_string"
            | "greater_equals_string"
            | "less_bytes"
            | "greater_bytes"
            | "less_equals_bytes"
            | "greater_equals_bytes"
            | "equals"
            | "not_equals"
                if args.len() == 2 =>
            {
                let (l, r) = (size(self, &args[0]), size(self, &args[1]));
                let smallest = l.max.min(r.max);
                let c = Est {
                    min: u64::from(smallest > 0),
                    max: smallest,
                };
                est(c.factor(STRING_TRAVERSAL).add(sum))
            }
            _ => None,
        }
    }

    /// `_?_:_`: the condition plus the costlier branch; sizes and entries of both branches.
    fn conditional_cost(&mut self, e: &Expr, args: &[Expr], costs: &[Est]) -> CallEst {
        let sz = self
            .size_or_unknown(&args[1])
            .union(self.size_or_unknown(&args[2]));
        let en = self
            .entry(&args[1])
            .zip(self.entry(&args[2]))
            .map(|(a, b)| union_entry(a, b));
        if let Some(en) = en {
            self.entries.insert(e.id, en);
        }
        CallEst {
            cost: costs[0].add(costs[1].union(costs[2])),
            size: Some(sz),
        }
    }

    /// `+` of strings, bytes or lists.
    fn add_cost(&mut self, e: &Expr, id: &str, args: &[Expr], sum: Est) -> CallEst {
        let rs = self
            .size_or_unknown(&args[0])
            .add(self.size_or_unknown(&args[1]));
        let en = self
            .entry(&args[0])
            .zip(self.entry(&args[1]))
            .map(|(a, b)| union_entry(a, b));
        if let Some(en) = en {
            self.entries.insert(e.id, en);
        }
        let cost = if id == "add_list" {
            Est::fixed(1)
        } else {
            rs.factor(STRING_TRAVERSAL)
        };
        CallEst {
            cost: cost.add(sum),
            size: Some(rs),
        }
    }
}

fn union_entry(a: Entry, b: Entry) -> Entry {
    Entry {
        list: a.list,
        key: a.key.union(b.key),
        val: a.val.union(b.val),
    }
}
