//! The parsed CEL expression: the shapes cel-go's parser produces, with macros kept whole
//! (the cost and type rules of their expansions are applied by `check` and `cost`).

/// A literal value.
#[derive(Clone, Debug, PartialEq)]
pub enum Lit {
    /// `int` literal.
    Int(i64),
    /// `uint` literal (`1u`).
    Uint(u64),
    /// `double` literal.
    Double(f64),
    /// `string` literal (decoded).
    Str(String),
    /// `bytes` literal (decoded).
    Bytes(Vec<u8>),
    /// `true` / `false`.
    Bool(bool),
    /// `null`.
    Null,
}

/// The comprehension macros cel-go expands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MacroKind {
    /// `range.all(x, p)`.
    All,
    /// `range.exists(x, p)`.
    Exists,
    /// `range.exists_one(x, p)`.
    ExistsOne,
    /// `range.map(x, f)` (one argument) or `range.map(x, p, f)` (two).
    Map,
    /// `range.filter(x, p)`.
    Filter,
}

/// One node: its id (dense, from 0), its position (code-point offset in the source, the
/// offset cel-go reports errors at) and its shape.
#[derive(Clone, Debug)]
pub struct Expr {
    /// Dense node id.
    pub id: usize,
    /// Code-point offset of the node's token.
    pub pos: usize,
    /// The node.
    pub kind: ExprKind,
}

/// The node shapes.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A literal.
    Lit(Lit),
    /// An identifier.
    Ident(String),
    /// `operand.field`, or `has(operand.field)` when `test`.
    Select {
        /// The operand.
        operand: Box<Expr>,
        /// The field name.
        field: String,
        /// Presence test (`has()`).
        test: bool,
    },
    /// A function call; operators are calls with cel-go's names (`_+_`, `!_`, `_[_]`, `@in`).
    Call {
        /// The receiver of a member call.
        target: Option<Box<Expr>>,
        /// The function name.
        func: String,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `[a, b]`.
    List(Vec<Expr>),
    /// `{k: v}`.
    Map(Vec<(Expr, Expr)>),
    /// A comprehension macro.
    Macro {
        /// Which macro.
        kind: MacroKind,
        /// The iteration range.
        range: Box<Expr>,
        /// The iteration variable.
        var: String,
        /// The predicate and/or transform (`[p]`, `[f]` or `[p, f]`).
        args: Vec<Expr>,
    },
}
