//! The CEL parser: cel-go's grammar by recursive descent, macros recognised as cel-go does,
//! with cel-go's recursion limit (250) and its syntax-error text where it is modelled.

use crate::ast::{Expr, ExprKind, Lit, MacroKind};
use crate::lex::{Tok, Token, lex};

/// cel-go's default parser recursion limit.
pub const MAX_RECURSION_DEPTH: usize = 250;

/// Why an expression could not be parsed.
#[derive(Clone, Debug)]
pub enum ParseFail {
    /// A syntax error at a code-point offset; `exact` when `msg` is cel-go's own text.
    Syntax {
        /// Offset.
        pos: usize,
        /// Message, after `Syntax error: ` or as cel-go prints it.
        msg: String,
        /// Whether the text is known to be cel-go's.
        exact: bool,
    },
    /// Valid CEL this crate does not model (structs, optional syntax, two-variable macros).
    Unsupported(String),
    /// cel-go's recursion limits, reported without a position: the parser's per-rule depth
    /// (`expression recursion limit exceeded: 250`) or its visitor's nesting of operators,
    /// selections, calls and indexes (`max recursion depth exceeded`).
    Recursion(String),
}

/// The grammar rules whose nesting cel-go's parse listener counts, one counter each.
#[derive(Clone, Copy)]
enum Rule {
    Expr,
    Or,
    And,
    Relation,
    Calc,
    Unary,
    Member,
    Primary,
}

const EXPECTING_PRIMARY: &str = "Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

/// Words the parser reserves (cel-go's grammar).
pub(crate) const RESERVED: [&str; 17] = [
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// Parses `src` (as code points).
pub fn parse(src: &[char]) -> Result<Expr, ParseFail> {
    let toks = lex(src).map_err(|e| {
        if e.certain {
            ParseFail::Syntax {
                pos: e.pos,
                msg: "Syntax error: token recognition error".to_owned(),
                exact: false,
            }
        } else {
            ParseFail::Unsupported(
                "an escape or number literal outside the modelled lexer".to_owned(),
            )
        }
    })?;
    let mut p = Parser {
        toks,
        at: 0,
        next_id: 0,
        counters: [0; 8],
    };
    let e = p.expr()?;
    if p.peek() != &Tok::Eof {
        return Err(p.syntax_here());
    }
    if visitor_depth(&e) > MAX_RECURSION_DEPTH {
        return Err(ParseFail::Recursion(
            "max recursion depth exceeded".to_owned(),
        ));
    }
    Ok(e)
}

/// The deepest nesting of the nodes cel-go's parse visitor counts: conditionals, relation
/// and arithmetic operators, selections, member calls and indexes (`&&`, `||`, `!`, `-`,
/// global calls and literals are not counted). Iterative: the tree may be deep.
fn visitor_depth(root: &Expr) -> usize {
    let mut max = 0;
    let mut stack = vec![(root, 0usize)];
    while let Some((e, d)) = stack.pop() {
        let counted = match &e.kind {
            ExprKind::Select { .. } | ExprKind::Macro { .. } => true,
            ExprKind::Call { target, func, .. } => {
                target.is_some()
                    || matches!(
                        func.as_str(),
                        "_?_:_"
                            | "_==_"
                            | "_!=_"
                            | "_<_"
                            | "_<=_"
                            | "_>_"
                            | "_>=_"
                            | "@in"
                            | "_+_"
                            | "_-_"
                            | "_*_"
                            | "_/_"
                            | "_%_"
                            | "_[_]"
                    )
            }
            _ => false,
        };
        let d = d + usize::from(counted);
        max = max.max(d);
        match &e.kind {
            ExprKind::Select { operand, .. } => stack.push((operand, d)),
            ExprKind::Call { target, args, .. } => {
                stack.extend(target.iter().map(|t| (&**t, d)));
                stack.extend(args.iter().map(|a| (a, d)));
            }
            ExprKind::List(items) => stack.extend(items.iter().map(|a| (a, d))),
            ExprKind::Map(entries) => {
                for (k, v) in entries {
                    stack.push((k, d));
                    stack.push((v, d));
                }
            }
            ExprKind::Macro { range, args, .. } => {
                stack.push((range, d));
                stack.extend(args.iter().map(|a| (a, d)));
            }
            ExprKind::Lit(_) | ExprKind::Ident(_) => {}
        }
    }
    max
}

struct Parser {
    toks: Vec<Token>,
    at: usize,
    next_id: usize,
    /// Depth per grammar rule, as cel-go's `recursionListener` counts it.
    counters: [usize; 8],
}

impl Parser {
    fn peek(&self) -> &Tok {
        self.toks.get(self.at).map_or(&Tok::Eof, |t| &t.tok)
    }
    fn pos(&self) -> usize {
        self.toks
            .get(self.at)
            .or(self.toks.last())
            .map_or(0, |t| t.pos)
    }
    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }
    fn bump(&mut self) -> Token {
        let t = self.toks.get(self.at).cloned().unwrap_or(Token {
            tok: Tok::Eof,
            pos: 0,
        });
        self.at += 1;
        t
    }
    fn node(&mut self, pos: usize, kind: ExprKind) -> Expr {
        let id = self.next_id;
        self.next_id += 1;
        Expr { id, pos, kind }
    }
    fn call(&mut self, pos: usize, func: &str, args: Vec<Expr>) -> Expr {
        self.node(
            pos,
            ExprKind::Call {
                target: None,
                func: func.to_owned(),
                args,
            },
        )
    }
    /// A syntax error at the current token: cel-go's text when input ended where an operand
    /// was expected, otherwise a verdict whose text is not modelled.
    fn syntax_here(&self) -> ParseFail {
        let pos = self.pos();
        if self.peek() == &Tok::Eof {
            return ParseFail::Syntax {
                pos,
                msg: EXPECTING_PRIMARY.to_owned(),
                exact: false,
            };
        }
        ParseFail::Syntax {
            pos,
            msg: "Syntax error: mismatched input".to_owned(),
            exact: false,
        }
    }
    /// An operand was expected: cel-go's exact text when the input ended right after a binary
    /// operator (ANTLR's expected set is then the operand starts).
    fn missing_operand(&self) -> ParseFail {
        let tok = |back: usize| {
            self.at
                .checked_sub(back)
                .and_then(|i| self.toks.get(i))
                .map(|t| &t.tok)
        };
        let binary_op = tok(1).is_some_and(|t| {
            matches!(t, Tok::Punct(p) if matches!(*p, "||" | "&&" | "==" | "!=" | "<=" | ">=" | "<" | ">" | "+" | "-" | "*" | "/" | "%" | "?" | ":"))
                || matches!(t, Tok::Ident(s) if s == "in")
        });
        // The operator is binary only after a complete operand (a `-` after `in` is unary,
        // and ANTLR reports that otherwise).
        let after_operand = tok(2).is_some_and(|t| match t {
            Tok::Ident(s) => s != "in",
            Tok::Int(_) | Tok::Uint(_) | Tok::Double(_) | Tok::Str(_) | Tok::Bytes(_) => true,
            Tok::Punct(p) => matches!(*p, ")" | "]" | "}"),
            Tok::Eof => false,
        });
        if self.peek() == &Tok::Eof && binary_op && after_operand {
            return ParseFail::Syntax {
                pos: self.pos(),
                msg: EXPECTING_PRIMARY.to_owned(),
                exact: true,
            };
        }
        self.syntax_here()
    }

    fn expect(&mut self, p: &str) -> Result<(), ParseFail> {
        if self.is(p) {
            self.bump();
            Ok(())
        } else {
            Err(self.syntax_here())
        }
    }
    fn enter(&mut self, rule: Rule) -> Result<(), ParseFail> {
        let c = &mut self.counters[rule as usize];
        *c += 1;
        if *c > MAX_RECURSION_DEPTH {
            return Err(ParseFail::Recursion(format!(
                "expression recursion limit exceeded: {MAX_RECURSION_DEPTH}"
            )));
        }
        Ok(())
    }
    fn leave(&mut self, rule: Rule) {
        let c = &mut self.counters[rule as usize];
        *c = c.saturating_sub(1);
    }

    fn expr(&mut self) -> Result<Expr, ParseFail> {
        self.enter(Rule::Expr)?;
        let cond = self.binary(0)?;
        let out = if self.is("?") {
            let pos = self.bump().pos;
            let t = self.binary(0)?;
            self.expect(":")?;
            let f = self.expr()?;
            self.call(pos, "_?_:_", vec![cond, t, f])
        } else {
            cond
        };
        self.leave(Rule::Expr);
        Ok(out)
    }

    /// Binary operators by precedence level: `||`, `&&`, relations, additive, multiplicative.
    fn binary(&mut self, level: usize) -> Result<Expr, ParseFail> {
        const LEVELS: [&[(&str, &str)]; 5] = [
            &[("||", "_||_")],
            &[("&&", "_&&_")],
            &[
                ("==", "_==_"),
                ("!=", "_!=_"),
                ("<=", "_<=_"),
                (">=", "_>=_"),
                ("<", "_<_"),
                (">", "_>_"),
            ],
            &[("+", "_+_"), ("-", "_-_")],
            &[("*", "_*_"), ("/", "_/_"), ("%", "_%_")],
        ];
        let Some(ops) = LEVELS.get(level) else {
            return self.unary();
        };
        // ANTLR invokes conditionalOr, conditionalAnd, relation and calc (the additive
        // level; the multiplicative one is the same rule) once, and the right operand of a
        // relation or calc operator as a new invocation of the rule.
        let rule = [
            Some(Rule::Or),
            Some(Rule::And),
            Some(Rule::Relation),
            Some(Rule::Calc),
            None,
        ][level];
        if let Some(r) = rule {
            self.enter(r)?;
        }
        let mut terms = vec![self.binary(level + 1)?];
        let mut op_pos = Vec::new();
        loop {
            let op = if level == 2 && matches!(self.peek(), Tok::Ident(s) if s == "in") {
                Some("@in")
            } else {
                ops.iter().find(|(t, _)| self.is(t)).map(|(_, f)| *f)
            };
            let Some(func) = op else { break };
            let pos = self.bump().pos;
            let nested = [
                None,
                None,
                Some(Rule::Relation),
                Some(Rule::Calc),
                Some(Rule::Calc),
            ][level];
            if let Some(r) = nested {
                self.enter(r)?;
            }
            let rhs = self.binary(level + 1)?;
            if let Some(r) = nested {
                self.leave(r);
            }
            if level < 2 {
                terms.push(rhs);
                op_pos.push(pos);
            } else {
                let lhs = terms.pop().unwrap_or_else(|| self.placeholder());
                terms.push(self.call(pos, func, vec![lhs, rhs]));
            }
        }
        if let Some(r) = rule {
            self.leave(r);
        }
        let func = if level == 0 { "_||_" } else { "_&&_" };
        Ok(self.balance(terms, &op_pos, func))
    }

    /// cel-go's balancer: `a && b && c && d` as a balanced tree.
    fn balance(&mut self, mut terms: Vec<Expr>, ops: &[usize], func: &str) -> Expr {
        if terms.len() == 1 || ops.is_empty() {
            return terms.pop().unwrap_or_else(|| self.placeholder());
        }
        let mut slots: Vec<Option<Expr>> = terms.into_iter().map(Some).collect();
        self.balanced(&mut slots, ops, 0, ops.len() - 1, func)
    }

    fn balanced(
        &mut self,
        terms: &mut [Option<Expr>],
        ops: &[usize],
        lo: usize,
        hi: usize,
        func: &str,
    ) -> Expr {
        let mid = (lo + hi).div_ceil(2);
        let left = if mid == lo {
            terms[mid].take()
        } else {
            Some(self.balanced(terms, ops, lo, mid - 1, func))
        };
        let right = if mid == hi {
            terms[mid + 1].take()
        } else {
            Some(self.balanced(terms, ops, mid + 1, hi, func))
        };
        let (l, r) = (
            left.unwrap_or_else(|| self.placeholder()),
            right.unwrap_or_else(|| self.placeholder()),
        );
        self.call(ops[mid], func, vec![l, r])
    }

    fn unary(&mut self) -> Result<Expr, ParseFail> {
        self.enter(Rule::Unary)?;
        let out = self.unary_inner();
        self.leave(Rule::Unary);
        out
    }

    fn unary_inner(&mut self) -> Result<Expr, ParseFail> {
        let mut ops = Vec::new();
        while self.is("!") || self.is("-") {
            ops.push(self.bump());
        }
        let Some(first) = ops.first().cloned() else {
            return self.member();
        };
        let neg = first.tok == Tok::Punct("-");
        if ops.iter().any(|t| (t.tok == Tok::Punct("-")) != neg) {
            return Err(ParseFail::Syntax {
                pos: self.pos(),
                msg: "Syntax error".into(),
                exact: false,
            });
        }
        let mut count = ops.len();
        let folded = neg
            && matches!(self.peek(), Tok::Int(_) | Tok::Double(_))
            && self.negative_literal_ok();
        let operand = if folded {
            count -= 1;
            let t = self.bump();
            let pos = ops.last().map_or(t.pos, |o| o.pos);
            let lit = match t.tok {
                Tok::Int(v) => Lit::Int(-v),
                Tok::Double(v) => Lit::Double(-v),
                _ => Lit::Null,
            };
            let e = self.node(pos, ExprKind::Lit(lit));
            self.enter(Rule::Member)?;
            let e = self.member_tail(e)?;
            self.leave(Rule::Member);
            e
        } else {
            self.member()?
        };
        if count % 2 == 0 {
            return Ok(operand);
        }
        Ok(self.call(first.pos, if neg { "-_" } else { "!_" }, vec![operand]))
    }

    /// A negative literal is folded unless the literal is selected from (`-1.foo()` negates).
    fn negative_literal_ok(&self) -> bool {
        true
    }

    fn member(&mut self) -> Result<Expr, ParseFail> {
        self.enter(Rule::Member)?;
        self.enter(Rule::Primary)?;
        let e = self.primary()?;
        self.leave(Rule::Primary);
        let out = self.member_tail(e);
        self.leave(Rule::Member);
        out
    }

    fn member_tail(&mut self, mut e: Expr) -> Result<Expr, ParseFail> {
        self.member_chain(&mut e).map(|()| e)
    }

    fn member_chain(&mut self, e: &mut Expr) -> Result<(), ParseFail> {
        loop {
            if self.is(".?") {
                let dot = self.bump().pos;
                let Some(name) = self.field_name() else {
                    return Err(self.syntax_here());
                };
                let at = self.bump().pos;
                let field = self.node(at, ExprKind::Lit(Lit::Str(name)));
                let t = std::mem::replace(e, self.placeholder());
                *e = self.call(dot, "_?._", vec![t, field]);
                continue;
            }
            if self.is("[?") {
                let open = self.bump().pos;
                let idx = self.expr()?;
                self.expect("]")?;
                let t = std::mem::replace(e, self.placeholder());
                *e = self.call(open, "_[?_]", vec![t, idx]);
                continue;
            }
            if self.is(".") {
                let dot = self.bump().pos;
                let Some(name) = self.field_name() else {
                    return Err(self.syntax_here());
                };
                self.bump();
                if self.is("(") {
                    let open = self.bump().pos;
                    let args = self.args(")")?;
                    let t = std::mem::replace(e, self.placeholder());
                    *e = self.member_call(t, name, args, open)?;
                } else {
                    let t = std::mem::replace(e, self.placeholder());
                    *e = self.node(
                        dot,
                        ExprKind::Select {
                            operand: Box::new(t),
                            field: name,
                            test: false,
                        },
                    );
                }
            } else if self.is("[") {
                let open = self.bump().pos;
                let idx = self.expr()?;
                self.expect("]")?;
                let t = std::mem::replace(e, self.placeholder());
                *e = self.call(open, "_[_]", vec![t, idx]);
            } else {
                return Ok(());
            }
        }
    }

    /// The identifier after a `.`: not one of the keyword tokens (`true`, `false`, `null`,
    /// `in`), which are not identifiers to cel-go's lexer.
    fn field_name(&self) -> Option<String> {
        match self.peek() {
            Tok::Ident(n) if !matches!(n.as_str(), "true" | "false" | "null" | "in") => {
                Some(n.clone())
            }
            _ => None,
        }
    }

    fn placeholder(&self) -> Expr {
        Expr {
            id: usize::MAX,
            pos: 0,
            kind: ExprKind::Lit(Lit::Null),
        }
    }

    fn args(&mut self, close: &str) -> Result<Vec<Expr>, ParseFail> {
        let mut args = Vec::new();
        if self.is(close) {
            self.bump();
            return Ok(args);
        }
        loop {
            if close == "]" && self.is("?") {
                return Err(ParseFail::Unsupported("optional list elements".into()));
            }
            args.push(self.expr()?);
            if self.is(",") {
                self.bump();
                if close != ")" && self.is(close) {
                    self.bump();
                    return Ok(args);
                }
                continue;
            }
            self.expect(close)?;
            return Ok(args);
        }
    }

    fn member_call(
        &mut self,
        target: Expr,
        name: String,
        mut args: Vec<Expr>,
        open: usize,
    ) -> Result<Expr, ParseFail> {
        let kind = match (name.as_str(), args.len()) {
            ("all", 2) => Some(MacroKind::All),
            ("exists", 2) => Some(MacroKind::Exists),
            ("exists_one", 2) => Some(MacroKind::ExistsOne),
            ("map", 2 | 3) => Some(MacroKind::Map),
            ("filter", 2) => Some(MacroKind::Filter),
            ("all" | "exists", 3) | ("existsOne" | "transformList" | "transformMap", _) => {
                return Err(ParseFail::Unsupported(format!(
                    "two-variable comprehension `{name}`"
                )));
            }
            _ => None,
        };
        let Some(kind) = kind else {
            if let ExprKind::Ident(ns) = &target.kind
                && ns == "cel"
                && name == "bind"
            {
                return Err(ParseFail::Unsupported("cel.bind".into()));
            }
            return Ok(self.node(
                open,
                ExprKind::Call {
                    target: Some(Box::new(target)),
                    func: name,
                    args,
                },
            ));
        };
        let first = args.remove(0);
        let ExprKind::Ident(var) = first.kind else {
            return Err(ParseFail::Syntax {
                pos: first.pos,
                msg: "argument must be a simple name".into(),
                exact: false,
            });
        };
        Ok(self.node(
            open,
            ExprKind::Macro {
                kind,
                range: Box::new(target),
                var,
                args,
            },
        ))
    }

    fn primary(&mut self) -> Result<Expr, ParseFail> {
        let t = self.bump();
        let lit = match t.tok {
            Tok::Int(v) => Lit::Int(v),
            Tok::Uint(v) => Lit::Uint(v),
            Tok::Double(v) => Lit::Double(v),
            Tok::Str(s) => Lit::Str(s),
            Tok::Bytes(b) => Lit::Bytes(b),
            Tok::Ident(name) => return self.ident(name, t.pos),
            Tok::Punct("(") => {
                let e = self.expr()?;
                self.expect(")")?;
                return Ok(e);
            }
            Tok::Punct("[") => {
                let items = self.args("]")?;
                return Ok(self.node(t.pos, ExprKind::List(items)));
            }
            Tok::Punct("{") => return self.map(t.pos),
            Tok::Punct("[?") => {
                return Err(ParseFail::Unsupported("optional list elements".into()));
            }
            Tok::Punct(".") => {
                return Err(ParseFail::Unsupported("leading-dot identifiers".into()));
            }
            _ => {
                self.at -= 1;
                return Err(self.missing_operand());
            }
        };
        Ok(self.node(t.pos, ExprKind::Lit(lit)))
    }

    fn map(&mut self, pos: usize) -> Result<Expr, ParseFail> {
        let mut entries = Vec::new();
        while !self.is("}") {
            if self.is("?") {
                return Err(ParseFail::Unsupported("optional map entries".into()));
            }
            let k = self.expr()?;
            self.expect(":")?;
            let v = self.expr()?;
            entries.push((k, v));
            if self.is(",") {
                self.bump();
            } else if !self.is("}") {
                return Err(self.syntax_here());
            }
        }
        self.bump();
        Ok(self.node(pos, ExprKind::Map(entries)))
    }

    fn ident(&mut self, name: String, pos: usize) -> Result<Expr, ParseFail> {
        let lit = match name.as_str() {
            "true" => Some(Lit::Bool(true)),
            "false" => Some(Lit::Bool(false)),
            "null" => Some(Lit::Null),
            _ => None,
        };
        if let Some(lit) = lit {
            return Ok(self.node(pos, ExprKind::Lit(lit)));
        }
        if RESERVED.contains(&name.as_str()) || name == "in" {
            return Err(ParseFail::Syntax {
                pos,
                msg: format!("reserved identifier: {name}"),
                exact: false,
            });
        }
        if self.is("{") {
            return Err(ParseFail::Unsupported("message construction".into()));
        }
        if !self.is("(") {
            return Ok(self.node(pos, ExprKind::Ident(name)));
        }
        let open = self.bump().pos;
        let args = self.args(")")?;
        if name == "has" {
            return self.has(args, open);
        }
        Ok(self.node(
            open,
            ExprKind::Call {
                target: None,
                func: name,
                args,
            },
        ))
    }

    fn has(&mut self, mut args: Vec<Expr>, open: usize) -> Result<Expr, ParseFail> {
        if args.len() == 1
            && let Some(Expr {
                kind: ExprKind::Select { operand, field, .. },
                pos,
                ..
            }) = args.pop()
        {
            let _ = pos;
            return Ok(self.node(
                open,
                ExprKind::Select {
                    operand,
                    field,
                    test: true,
                },
            ));
        }
        Err(ParseFail::Syntax {
            pos: open,
            msg: "invalid argument to has() macro".into(),
            exact: false,
        })
    }
}
