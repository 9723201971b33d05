//! CEL types as cel-go's checker sees them, printed as cel-go prints them, with the
//! assignability (type parameters bound per call) the overload resolution uses.

use std::collections::BTreeMap;

/// A CEL type.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// `int`.
    Int,
    /// `uint`.
    Uint,
    /// `double`.
    Double,
    /// `string`.
    String,
    /// `bool`.
    Bool,
    /// `bytes`.
    Bytes,
    /// `null_type`.
    Null,
    /// `dyn`.
    Dyn,
    /// The checker's error type (assignable to everything, never reported twice).
    Error,
    /// A named opaque or message type (`kubernetes.Quantity`, `net.IP`,
    /// `google.protobuf.Duration`).
    Named(String),
    /// `list(T)`.
    List(Box<Ty>),
    /// `map(K, V)`.
    Map(Box<Ty>, Box<Ty>),
    /// `optional_type(T)`.
    Optional(Box<Ty>),
    /// `type(T)`.
    Type(Box<Ty>),
    /// A type parameter of a declaration (`<A>`).
    Param(String),
    /// A schema object type: its index in the declared types and its cel-go name.
    Object(usize, String),
}

impl Ty {
    /// The type as cel-go's `FormatCELType` prints it.
    #[must_use]
    pub fn show(&self) -> String {
        match self {
            Ty::Int => "int".into(),
            Ty::Uint => "uint".into(),
            Ty::Double => "double".into(),
            Ty::String => "string".into(),
            Ty::Bool => "bool".into(),
            Ty::Bytes => "bytes".into(),
            Ty::Null => "null".into(),
            Ty::Dyn => "dyn".into(),
            Ty::Error => "!error!".into(),
            Ty::Named(n) | Ty::Object(_, n) => n.clone(),
            Ty::List(e) => format!("list({})", e.show()),
            Ty::Map(k, v) => format!("map({}, {})", k.show(), v.show()),
            Ty::Optional(e) => format!("optional_type({})", e.show()),
            Ty::Type(e) => format!("type({})", e.show()),
            Ty::Param(p) => p.clone(),
        }
    }

    /// Parses a type as the environment table writes it (`list(<A>)`, `map(string, <V>)`).
    #[must_use]
    pub fn parse(s: &str) -> Ty {
        let s = s.trim();
        if let Some(p) = s.strip_prefix('<').and_then(|r| r.strip_suffix('>')) {
            return Ty::Param(p.to_owned());
        }
        if let Some((head, rest)) = s.split_once('(') {
            let inner = rest.strip_suffix(')').unwrap_or(rest);
            let parts = split_top(inner);
            let arg = |i: usize| Box::new(parts.get(i).map_or(Ty::Dyn, |p| Ty::parse(p)));
            return match head {
                "list" => Ty::List(arg(0)),
                "map" => Ty::Map(arg(0), arg(1)),
                "optional_type" => Ty::Optional(arg(0)),
                "type" => Ty::Type(arg(0)),
                _ => Ty::Named(s.to_owned()),
            };
        }
        match s {
            "int" => Ty::Int,
            "uint" => Ty::Uint,
            "double" => Ty::Double,
            "string" => Ty::String,
            "bool" => Ty::Bool,
            "bytes" => Ty::Bytes,
            "null_type" => Ty::Null,
            "dyn" => Ty::Dyn,
            other => Ty::Named(other.to_owned()),
        }
    }

    /// Dyn or the error type.
    #[must_use]
    pub fn is_dyn_or_error(&self) -> bool {
        matches!(self, Ty::Dyn | Ty::Error)
    }

    /// Whether this is cel-go's struct kind (object types, Quantity, URL, Semver, formats),
    /// the kinds whose field selection costs one.
    #[must_use]
    pub fn is_struct_kind(&self) -> bool {
        match self {
            Ty::Object(..) => true,
            Ty::Named(n) => n.starts_with("kubernetes.") || n.starts_with("google.protobuf."),
            _ => false,
        }
    }
}

/// Splits `a, b(c, d)` at top-level commas.
pub(crate) fn split_top(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0usize, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        out.push(&s[start..]);
    }
    out
}

/// Type-parameter bindings of one overload candidate.
pub type Bindings = BTreeMap<String, Ty>;

/// Whether a value of type `arg` may be passed where `param` is declared, binding type
/// parameters as cel-go does (dyn and error fit anything; a parameter binds on first use).
/// `None` when the answer depends on cases not modelled (null against a non-null type).
pub fn assignable(arg: &Ty, param: &Ty, b: &mut Bindings) -> Option<bool> {
    if let Ty::Param(p) = param {
        return match b.get(p).cloned() {
            Some(bound) if !bound.is_dyn_or_error() => {
                let r = assignable(arg, &bound, b)?;
                if r && bound_is_weaker(&bound, arg) {
                    b.insert(p.clone(), arg.clone());
                }
                Some(r)
            }
            _ => {
                b.insert(p.clone(), arg.clone());
                Some(true)
            }
        };
    }
    if arg.is_dyn_or_error() || *param == Ty::Dyn {
        return Some(true);
    }
    match (arg, param) {
        (Ty::Null, Ty::Null) => Some(true),
        (Ty::Null, t) | (t, Ty::Null) if is_primitive(t) => Some(false),
        (Ty::Null, _) | (_, Ty::Null) => None,
        (Ty::List(a), Ty::List(p))
        | (Ty::Optional(a), Ty::Optional(p))
        | (Ty::Type(a), Ty::Type(p)) => assignable(a, p, b),
        (Ty::Map(ak, av), Ty::Map(pk, pv)) => {
            Some(assignable(ak, pk, b)? && assignable(av, pv, b)?)
        }
        (Ty::Object(a, _), Ty::Object(p, _)) => Some(a == p),
        _ => Some(arg == param),
    }
}

fn is_primitive(t: &Ty) -> bool {
    matches!(
        t,
        Ty::Int | Ty::Uint | Ty::Double | Ty::String | Ty::Bool | Ty::Bytes
    )
}

/// A bound of `list(dyn)` is refined by a later `list(string)`.
fn bound_is_weaker(bound: &Ty, arg: &Ty) -> bool {
    match (bound, arg) {
        (Ty::List(a), Ty::List(b)) => a.is_dyn_or_error() && !b.is_dyn_or_error(),
        _ => false,
    }
}

/// `t` with its type parameters replaced by their bindings (unbound ones by dyn when
/// `dyn_for_free`).
#[must_use]
pub fn substitute(t: &Ty, b: &Bindings, dyn_for_free: bool) -> Ty {
    match t {
        Ty::Param(p) => b
            .get(p)
            .cloned()
            .unwrap_or(if dyn_for_free { Ty::Dyn } else { t.clone() }),
        Ty::List(e) => Ty::List(Box::new(substitute(e, b, dyn_for_free))),
        Ty::Optional(e) => Ty::Optional(Box::new(substitute(e, b, dyn_for_free))),
        Ty::Type(e) => Ty::Type(Box::new(substitute(e, b, dyn_for_free))),
        Ty::Map(k, v) => Ty::Map(
            Box::new(substitute(k, b, dyn_for_free)),
            Box::new(substitute(v, b, dyn_for_free)),
        ),
        other => other.clone(),
    }
}
