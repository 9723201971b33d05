//! The schema walk of apiextensions' `ValidateCustomResourceDefinitionOpenAPISchema` for
//! CEL: each node's rules compiled against its declared type, cardinality from the
//! ancestors' `maxItems`/`maxProperties`, the uncorrelatable ancestor for `oldSelf`, the
//! per-rule, per-messageExpression and total cost limits.

use serde_json::Value;

use crate::compile::{Compiled, compile};
use crate::decl::{DeclKind, Decls, MAX_REQUEST_SIZE_BYTES, escape};
use crate::report::{
    CRD_COST_LIMIT, CrdCelReport, ErrorKind, ErrorValue, FieldError, NotJudged,
    PER_EXPRESSION_COST_LIMIT, RuleCost, cost_error_message,
};
use crate::types::Ty;

/// A schema node's context.
#[derive(Clone)]
pub(crate) struct Node<'a> {
    pub(crate) schema: &'a Value,
    pub(crate) path: String,
    pub(crate) decl: Option<usize>,
    /// `None` is unbounded.
    pub(crate) cardinality: Option<u64>,
    pub(crate) uncorrelatable: Option<String>,
    pub(crate) depth: usize,
    /// The parts of ancestors' (and this node's) default values that reach this node: the
    /// server validates each default against the rules it reaches.
    pub(crate) defaults: Vec<Reach<'a>>,
}

/// A part of a default value reaching a schema node, and the path the server reports it at
/// (`<node>.default` of the defaulted node, then `.field`, `[index]`, `[key]` inside it).
#[derive(Clone)]
pub(crate) struct Reach<'a> {
    pub(crate) value: &'a Value,
    pub(crate) path: String,
}

/// A rule a default fails: the server's error.
pub(crate) struct DefaultFailure {
    pub(crate) error: FieldError,
}

/// The walk's accumulated state.
pub(crate) struct Walk<'a> {
    pub(crate) decls: &'a Decls,
    pub(crate) report: CrdCelReport,
    /// The contributions (path, cost) of at least 1% of the limit, most expensive first.
    pub(crate) most_expensive: Vec<(String, u64)>,
    /// Rules that default values fail.
    pub(crate) default_failures: Vec<DefaultFailure>,
}

const MAX_DEPTH: usize = 1000;

impl Walk<'_> {
    pub(crate) fn node(&mut self, n: &Node<'_>) {
        if n.depth > MAX_DEPTH {
            self.not_judged(&n.path, "schema nested deeper than 1000 levels".into());
            return;
        }
        self.rules(n);
        if let Some(ap) = n
            .schema
            .get("additionalProperties")
            .filter(|v| v.is_object())
        {
            let decl = n.decl.and_then(|d| self.elem(d, false));
            let defaults = n
                .defaults
                .iter()
                .filter_map(|r| r.value.as_object().map(|o| (o, &r.path)))
                .flat_map(|(o, p)| {
                    o.iter().map(move |(k, v)| Reach {
                        value: v,
                        path: format!("{p}[{k}]"),
                    })
                });
            self.node(&self.child(
                n,
                ap,
                ".additionalProperties",
                decl,
                None,
                defaults.collect(),
            ));
        }
        if let Some(props) = n.schema.get("properties").and_then(Value::as_object) {
            for (name, prop) in props {
                let decl = n.decl.and_then(|d| self.field(d, name));
                let defaults = n
                    .defaults
                    .iter()
                    .filter_map(|r| {
                        r.value.get(name).map(|v| Reach {
                            value: v,
                            path: format!("{}.{name}", r.path),
                        })
                    })
                    .collect();
                self.node(&self.child(
                    n,
                    prop,
                    &format!(".properties[{name}]"),
                    decl,
                    None,
                    defaults,
                ));
            }
        }
        if let Some(items) = n.schema.get("items").filter(|v| v.is_object()) {
            let list_type = n
                .schema
                .get("x-kubernetes-list-type")
                .and_then(Value::as_str);
            let unc = if list_type == Some("map") {
                None
            } else {
                Some(n.path.clone())
            };
            let decl = n.decl.and_then(|d| self.elem(d, true));
            let defaults = n
                .defaults
                .iter()
                .filter_map(|r| r.value.as_array().map(|a| (a, &r.path)))
                .flat_map(|(a, p)| {
                    a.iter().enumerate().map(move |(i, v)| Reach {
                        value: v,
                        path: format!("{p}[{i}]"),
                    })
                })
                .collect();
            self.node(&self.child(n, items, ".items", decl, unc, defaults));
        }
    }

    fn child<'s>(
        &self,
        n: &Node<'s>,
        s: &'s Value,
        suffix: &str,
        decl: Option<usize>,
        unc: Option<String>,
        mut defaults: Vec<Reach<'s>>,
    ) -> Node<'s> {
        let path = format!("{}{suffix}", n.path);
        if let Some(d) = s.get("default") {
            defaults.push(Reach {
                value: d,
                path: format!("{path}.default"),
            });
        }
        Node {
            schema: s,
            path,
            decl,
            cardinality: n
                .cardinality
                .and_then(|c| max_elements(n.schema).map(|m| guard_mul(c, m))),
            uncorrelatable: n.uncorrelatable.clone().or(unc),
            depth: n.depth + 1,
            defaults,
        }
    }

    fn elem(&self, d: usize, list: bool) -> Option<usize> {
        match self.decls.all.get(d).map(|d| &d.kind) {
            Some(DeclKind::List(e)) if list => Some(*e),
            Some(DeclKind::Map(e)) if !list => Some(*e),
            _ => None,
        }
    }

    fn field(&self, d: usize, name: &str) -> Option<usize> {
        match self.decls.all.get(d).map(|d| &d.kind) {
            Some(DeclKind::Object { fields, .. }) => fields.get(&escape(name)?).copied(),
            _ => None,
        }
    }

    pub(crate) fn not_judged(&mut self, path: &str, reason: String) {
        self.report.not_judged.push(NotJudged {
            field_path: path.to_owned(),
            reason,
        });
    }

    fn error(&mut self, field_path: String, kind: ErrorKind, detail: String, detail_exact: bool) {
        self.error_with(field_path, kind, None, detail, detail_exact);
    }

    /// An `Invalid` error with the bad value the server prints.
    fn invalid(
        &mut self,
        field_path: String,
        value: ErrorValue,
        detail: String,
        detail_exact: bool,
    ) {
        self.error_with(
            field_path,
            ErrorKind::Invalid,
            Some(value),
            detail,
            detail_exact,
        );
    }

    fn error_with(
        &mut self,
        field_path: String,
        kind: ErrorKind,
        value: Option<ErrorValue>,
        detail: String,
        detail_exact: bool,
    ) {
        self.report.errors.push(FieldError {
            field_path,
            kind,
            value,
            detail,
            detail_exact,
            path_exact: true,
        });
    }

    fn observe(&mut self, path: String, cost: u64) {
        self.report.total_cost = self.report.total_cost.saturating_add(cost);
        if cost < CRD_COST_LIMIT / 100 {
            return;
        }
        self.most_expensive.push((path, cost));
        self.most_expensive.sort_by_key(|e| std::cmp::Reverse(e.1));
    }

    fn rules(&mut self, n: &Node<'_>) {
        let Some(rules) = n
            .schema
            .get("x-kubernetes-validations")
            .and_then(Value::as_array)
        else {
            return;
        };
        if rules.is_empty() {
            return;
        }
        let base = format!("{}.x-kubernetes-validations", n.path);
        if let Some(why) = static_problem(rules) {
            self.not_judged(&base, why);
            return;
        }
        let Some(decl) = n.decl else {
            self.not_judged(&base, "no CEL type for this schema node".into());
            return;
        };
        if !n.defaults.is_empty() && !self.judge_defaults(rules, decl, &n.defaults) {
            let why = "a default value reaching these rules was not evaluated here (the server validates defaults against their rules)";
            self.not_judged(&base, why.into());
            return;
        }
        let min_size = self.decls.all.get(decl).map_or(0, |d| d.min_size);
        let scope_cardinality = u64::try_from(MAX_REQUEST_SIZE_BYTES / (min_size + 1)).unwrap_or(0);
        let cardinality = n.cardinality.unwrap_or(scope_cardinality);
        for (i, rule) in rules.iter().enumerate() {
            self.rule(n, decl, &format!("{base}[{i}]"), rule, cardinality);
        }
    }

    /// Evaluates every rule here on every default value reaching this node, as the server
    /// does when it validates defaults (with `oldSelf` the default itself), recording the
    /// failures; `false` when one cannot be evaluated (or its failure's message is not
    /// modelled: `messageExpression`, `fieldPath`, `reason`).
    fn judge_defaults(&mut self, rules: &[Value], decl: usize, defaults: &[Reach<'_>]) -> bool {
        let mut failures = Vec::new();
        for r in rules {
            let src = r.get("rule").and_then(Value::as_str).unwrap_or("");
            if r.get("optionalOldSelf").and_then(Value::as_bool) == Some(true) {
                return false;
            }
            let Some((ast, checked)) = crate::compile::checked_rule(src, self.decls, decl) else {
                return false;
            };
            for d in defaults {
                match crate::eval::holds(&ast, &checked, d.value) {
                    Some(true) => {}
                    Some(false) => {
                        let Some((kind, detail)) = failure_detail(r) else {
                            return false;
                        };
                        // The server omits the value of an object or a list.
                        let scalar = !matches!(d.value, Value::Object(_) | Value::Array(_));
                        let value = (kind == ErrorKind::Invalid && scalar)
                            .then(|| ErrorValue::Json(d.value.clone()));
                        let error = FieldError {
                            field_path: d.path.clone(),
                            kind,
                            value,
                            detail,
                            detail_exact: true,
                            path_exact: true,
                        };
                        failures.push(DefaultFailure { error });
                    }
                    None => return false,
                }
            }
        }
        self.default_failures.extend(failures);
        true
    }

    fn rule(&mut self, n: &Node<'_>, decl: usize, path: &str, rule: &Value, cardinality: u64) {
        let src = rule.get("rule").and_then(Value::as_str).unwrap_or("");
        let optional_old_self = rule.get("optionalOldSelf").and_then(Value::as_bool);
        let rule_path = format!("{path}.rule");
        let mut cost = RuleCost {
            field_path: path.to_owned(),
            rule: None,
            message_expression: None,
        };
        let compiled = compile(
            src,
            self.decls,
            decl,
            optional_old_self == Some(true),
            &Ty::Bool,
        );
        let (max_cost, uses_old_self, ok) = match compiled {
            Compiled::NotJudged(why) => {
                self.not_judged(&rule_path, why);
                self.report.rules.push(cost);
                return;
            }
            Compiled::Ok {
                max_cost,
                uses_old_self,
            } => (max_cost, uses_old_self, true),
            Compiled::Failed { .. } | Compiled::WrongOutput | Compiled::Instantiation => {
                (0, false, false)
            }
        };
        let expression_cost = guard_mul(max_cost, cardinality);
        cost.rule = Some(expression_cost);
        if expression_cost > PER_EXPRESSION_COST_LIMIT {
            let msg = cost_error_message(
                "estimated rule cost",
                expression_cost,
                PER_EXPRESSION_COST_LIMIT,
            );
            self.error(rule_path.clone(), ErrorKind::Forbidden, msg, true);
        }
        self.observe(rule_path.clone(), expression_cost);
        match compiled {
            Compiled::Failed { issues, exact } => {
                self.invalid(
                    rule_path.clone(),
                    ErrorValue::RuleEntry,
                    format!("compilation failed: {issues}"),
                    exact,
                );
            }
            Compiled::WrongOutput => {
                self.invalid(
                    rule_path.clone(),
                    ErrorValue::RuleEntry,
                    "cel expression must evaluate to a bool".into(),
                    true,
                );
            }
            Compiled::Instantiation => {
                let detail = "program instantiation failed: error parsing regexp".to_owned();
                self.invalid(rule_path.clone(), ErrorValue::RuleEntry, detail, false);
            }
            _ => {}
        }
        if ok
            && let Some(me) = rule
                .get("messageExpression")
                .and_then(Value::as_str)
                .filter(|m| !m.is_empty())
        {
            cost.message_expression =
                self.message_expression(decl, path, me, optional_old_self == Some(true));
        }
        if uses_old_self {
            if let Some(unc) = &n.uncorrelatable {
                let msg = format!(
                    "oldSelf cannot be used on the uncorrelatable portion of the schema within {unc}"
                );
                self.invalid(rule_path, ErrorValue::Json(Value::from(src)), msg, true);
            }
        } else if let Some(set) = optional_old_self {
            let msg = "may not be set if oldSelf is not used in rule".to_owned();
            self.invalid(
                format!("{path}.optionalOldSelf"),
                ErrorValue::Json(Value::Bool(set)),
                msg,
                true,
            );
        }
        self.report.rules.push(cost);
    }

    fn message_expression(
        &mut self,
        decl: usize,
        path: &str,
        src: &str,
        optional: bool,
    ) -> Option<u64> {
        let me_path = format!("{path}.messageExpression");
        match compile(src, self.decls, decl, optional, &Ty::String) {
            Compiled::NotJudged(why) => {
                self.not_judged(&me_path, why);
                None
            }
            Compiled::Failed { issues, exact } => {
                let detail = format!("messageExpression compilation failed: {issues}");
                self.invalid(me_path, ErrorValue::RuleEntry, detail, exact);
                None
            }
            Compiled::WrongOutput => {
                self.invalid(
                    me_path,
                    ErrorValue::RuleEntry,
                    "messageExpression must evaluate to a string".into(),
                    true,
                );
                None
            }
            Compiled::Instantiation => {
                let detail =
                    "messageExpression instantiation failed: error parsing regexp".to_owned();
                self.invalid(me_path, ErrorValue::RuleEntry, detail, false);
                None
            }
            Compiled::Ok { max_cost, .. } => {
                if max_cost > PER_EXPRESSION_COST_LIMIT {
                    let msg = cost_error_message(
                        "estimated messageExpression cost",
                        max_cost,
                        PER_EXPRESSION_COST_LIMIT,
                    );
                    self.error(me_path.clone(), ErrorKind::Forbidden, msg, true);
                }
                self.observe(me_path, max_cost);
                Some(max_cost)
            }
        }
    }

    /// When defaults fail their rules, the server reports every failure (its first pass, with
    /// `oldSelf` the default, already errs) and compiles no CEL.
    pub(crate) fn defaults_verdict(&mut self) -> bool {
        if self.default_failures.is_empty() || !self.report.not_judged.is_empty() {
            return false;
        }
        let failures = std::mem::take(&mut self.default_failures);
        self.report.errors = failures.into_iter().map(|f| f.error).collect();
        true
    }

    /// The total's verdict, after the walk.
    pub(crate) fn total(&mut self, root_path: &str) {
        if self.report.total_cost <= CRD_COST_LIMIT {
            return;
        }
        if !self.report.not_judged.is_empty() {
            let why = "the total is over the limit, but the most expensive rules are not known while some are not judged";
            self.not_judged(root_path, why.into());
            return;
        }
        let all = std::mem::take(&mut self.most_expensive);
        // Ties at the cut: the server keeps the first observed, in index order within one
        // node but in Go's random map order across nodes.
        let cut = all
            .get(4)
            .map(|e| e.1)
            .filter(|c| all.get(3).is_some_and(|e| e.1 == *c));
        let tied_nodes: std::collections::BTreeSet<&str> = all
            .iter()
            .filter(|e| Some(e.1) == cut)
            .map(|e| node_of(&e.0))
            .collect();
        let random = tied_nodes.len() > 1;
        for (path, cost) in all.iter().take(4) {
            let msg = "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema";
            self.error(path.clone(), ErrorKind::Forbidden, msg.into(), true);
            if random
                && cut == Some(*cost)
                && let Some(e) = self.report.errors.last_mut()
            {
                e.path_exact = false;
            }
        }
        let name = "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema";
        let msg = cost_error_message(name, self.report.total_cost, CRD_COST_LIMIT);
        self.error(root_path.to_owned(), ErrorKind::Forbidden, msg, true);
    }
}

/// The schema node of a rule or message expression path.
fn node_of(path: &str) -> &str {
    path.rfind(".x-kubernetes-validations[")
        .map_or(path, |i| &path[..i])
}

/// The server's error for a rule a default fails: the type its `reason` names (invalid by
/// default) and `failed rule: <rule>` or the rule's message; `None` where a
/// `messageExpression` or `fieldPath` changes it.
fn failure_detail(rule: &Value) -> Option<(ErrorKind, String)> {
    let set = |k: &str| {
        rule.get(k)
            .is_some_and(|v| !v.is_null() && v.as_str() != Some(""))
    };
    if set("messageExpression") || set("fieldPath") {
        return None;
    }
    let kind = match rule.get("reason").and_then(Value::as_str) {
        None | Some("FieldValueInvalid") => ErrorKind::Invalid,
        Some("FieldValueForbidden") => ErrorKind::Forbidden,
        Some("FieldValueRequired") => ErrorKind::Required,
        Some(_) => return None,
    };
    let message = rule.get("message").and_then(Value::as_str).unwrap_or("");
    if message.is_empty() {
        let src = rule.get("rule").and_then(Value::as_str).unwrap_or("");
        return Some((kind, format!("failed rule: {}", src.trim())));
    }
    Some((kind, message.trim().to_owned()))
}

/// apiextensions' `multiplyWithOverflowGuard`.
fn guard_mul(base: u64, n: u64) -> u64 {
    if base == 0 { 0 } else { base.saturating_mul(n) }
}

/// `extractMaxElements`: how a node multiplies its children's cardinality (`None`:
/// unbounded).
fn max_elements(s: &Value) -> Option<u64> {
    let bound = |k: &str| {
        s.get(k)
            .and_then(Value::as_i64)
            .map(|v| u64::try_from(v.max(0)).unwrap_or(0))
    };
    match s.get("type").and_then(Value::as_str) {
        Some("object") if s.get("additionalProperties").is_some_and(|a| a.is_object()) => {
            bound("maxProperties")
        }
        Some("array") => bound("maxItems"),
        _ => Some(1),
    }
}

/// A static problem of the rules at one node (the server then skips CEL there).
fn static_problem(rules: &[Value]) -> Option<String> {
    for r in rules {
        let rule = r.get("rule").and_then(Value::as_str).unwrap_or("");
        let msg = r.get("message").and_then(Value::as_str).unwrap_or("");
        let me = r
            .get("messageExpression")
            .and_then(Value::as_str)
            .unwrap_or("");
        let newline = |s: &str| s.contains(['\n', '\r']);
        if rule.trim().is_empty()
            || (!msg.is_empty() && msg.trim().is_empty())
            || newline(msg.trim())
            || (newline(rule.trim()) && msg.trim().is_empty())
            || (!me.is_empty() && me.trim().is_empty())
        {
            return Some(
                "a static x-kubernetes-validations error here makes the server skip CEL".into(),
            );
        }
    }
    None
}
