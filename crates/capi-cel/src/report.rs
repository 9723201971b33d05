//! The report types and the server's message texts (cel-go's issue display, apiextensions'
//! cost messages).

/// apiextensions' `StaticEstimatedCostLimit`: the largest estimated cost of one expression.
pub const PER_EXPRESSION_COST_LIMIT: u64 = 10_000_000;
/// apiextensions' `StaticEstimatedCRDCostLimit`: the largest total for one schema.
pub const CRD_COST_LIMIT: u64 = 100_000_000;

/// The kind of a field error, as apimachinery's `field.ErrorType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// `FieldValueInvalid` ("Invalid value").
    Invalid,
    /// `FieldValueForbidden` ("Forbidden").
    Forbidden,
    /// `FieldValueRequired` ("Required value").
    Required,
}

impl ErrorKind {
    /// apimachinery's type code (`FieldValueInvalid`).
    #[must_use]
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::Invalid => "FieldValueInvalid",
            ErrorKind::Forbidden => "FieldValueForbidden",
            ErrorKind::Required => "FieldValueRequired",
        }
    }
}

/// One error the server reports for the schema's CEL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// The field path as the server prints it
    /// (`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule`).
    pub field_path: String,
    /// The error type.
    pub kind: ErrorKind,
    /// The bad value the server prints with an `Invalid` error; `None` for the other kinds
    /// and where the server omits it (a default object or list failing a rule).
    pub value: Option<ErrorValue>,
    /// The server's detail message. Object type names of `self` print as `selfType0`; the
    /// server prints `selfType` followed by the nanoseconds of its clock.
    pub detail: String,
    /// `false` when the verdict is certain but the text is not known to be the server's
    /// (syntax errors other than a missing operand at the end, for example).
    pub detail_exact: bool,
    /// `false` only for a "contributed to estimated rule cost total" error whose rule ties in
    /// cost with a rule of another schema node left out of the server's four most expensive:
    /// the server picks among those in Go's (random) map order.
    pub path_exact: bool,
}

/// The bad value of an `Invalid` error, as the server passes it to `field.Invalid`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorValue {
    /// A JSON value: the rule text (an uncorrelatable `oldSelf`), `optionalOldSelf`, a scalar
    /// default failing a rule.
    Json(serde_json::Value),
    /// The whole `x-kubernetes-validations` entry, which the server prints as its internal
    /// `ValidationRule` struct (`json.Marshal` with Go field names: `{"Rule":…,"Message":…,
    /// "MessageExpression":…,"Reason":…,"FieldPath":…,"OptionalOldSelf":…}`): compilation
    /// errors of a rule or message expression.
    RuleEntry,
}

/// A rule or message expression this crate cannot judge, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotJudged {
    /// The field path of the rule, message expression, or schema (for the total).
    pub field_path: String,
    /// Why.
    pub reason: String,
}

/// The estimated cost of one rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleCost {
    /// `...x-kubernetes-validations[i]`.
    pub field_path: String,
    /// The rule's cost as the server compares it with the per-rule limit (the expression's
    /// maximum times the schema node's cardinality); `None` when not judged.
    pub rule: Option<u64>,
    /// The message expression's maximum cost, when there is one and it is judged.
    pub message_expression: Option<u64>,
}

/// The CEL verdict of one CRD version's schema.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrdCelReport {
    /// The server's errors, in schema order (properties sorted by name).
    pub errors: Vec<FieldError>,
    /// Every rule's cost.
    pub rules: Vec<RuleCost>,
    /// The schema's total as the server sums it (saturating); a lower bound when anything is
    /// not judged.
    pub total_cost: u64,
    /// What was not judged. When this is not empty, an empty `errors` is not a pass.
    pub not_judged: Vec<NotJudged>,
}

impl CrdCelReport {
    /// Whether every rule was judged.
    #[must_use]
    pub fn fully_judged(&self) -> bool {
        self.not_judged.is_empty()
    }
}

/// apiextensions' `getCostErrorMessage`.
#[must_use]
#[allow(clippy::cast_precision_loss)]
pub fn cost_error_message(name: &str, cost: u64, limit: u64) -> String {
    let f = cost as f64 / limit as f64;
    let factor = if f > 100.0 {
        "more than 100x".to_owned()
    } else if f < 1.5 {
        format!("{f:.6}x")
    } else {
        format!("{f:.1}x")
    };
    format!(
        "{name} exceeds budget by factor of {factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )
}

/// cel-go's `Issues.String()`: each error as `ERROR: <input>:L:C: msg` with the source line
/// and a caret.
#[must_use]
pub fn display_issues(src: &[char], errs: &[(usize, String)]) -> String {
    let mut out = Vec::new();
    for (pos, msg) in errs {
        let pos = (*pos).min(src.len());
        let line_start = src[..pos]
            .iter()
            .rposition(|c| *c == '\n')
            .map_or(0, |i| i + 1);
        let line_no = src[..pos].iter().filter(|c| **c == '\n').count() + 1;
        let line_end = src[line_start..]
            .iter()
            .position(|c| *c == '\n')
            .map_or(src.len(), |i| line_start + i);
        let col = pos - line_start;
        let line: String = src[line_start..line_end]
            .iter()
            .map(|c| if *c == '\t' { ' ' } else { *c })
            .collect();
        let dots = ".".repeat(col.min(line.chars().count()));
        out.push(format!(
            "ERROR: <input>:{line_no}:{}: {msg}\n | {line}\n | {dots}^",
            col + 1
        ));
    }
    out.join("\n")
}
