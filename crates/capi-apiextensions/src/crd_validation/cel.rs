//! `x-kubernetes-validations`: the checks of `ValidateCustomResourceDefinitionOpenAPISchema`
//! that need no CEL compiler (`pkg/apis/apiextensions/validation/validation.go` lines
//! 1265-1293: an empty rule, an empty or multi-line message, a multi-line rule without a
//! message, an empty `messageExpression`, an unknown `reason`, an empty, multi-line or
//! invalid `fieldPath`).
//!
//! Compiling the rules (syntax, types against the schema, the cost budget, `oldSelf` and
//! `optionalOldSelf`, `messageExpression`) goes through one hook, [`RuleJudge`]: each rule that
//! passes the static checks is handed to it with its schema node, its field path and the root
//! schema, and it answers with the server's field errors or "not judged". The default judge
//! ([`crate::crd_validity`]) judges nothing: every rule is counted as left to the API server,
//! so that no caller calls such a CRD accepted.
//!
//! ```
//! use capi_apiextensions::{CelRule, CelVerdict, FieldError, crd_validity_with};
//! let crd = serde_json::json!({
//!     "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
//!     "metadata": {"name": "foos.example.com"},
//!     "spec": {"group": "example.com", "scope": "Namespaced",
//!         "names": {"kind": "Foo", "plural": "foos"},
//!         "versions": [{"name": "v1", "served": true, "storage": true,
//!             "schema": {"openAPIV3Schema": {"type": "object",
//!                 "x-kubernetes-validations": [{"rule": "self.nope()"}]}}}]}
//! });
//! // A judge that refuses every rule, as a CEL compiler would refuse this one.
//! let judge = |rule: &CelRule<'_>| {
//!     CelVerdict::Judged(vec![FieldError::invalid(
//!         format!("{}.rule", rule.path),
//!         rule.rule["rule"].as_str().unwrap_or_default(),
//!         "compilation failed",
//!     )])
//! };
//! let verdict = crd_validity_with(&crd, &judge);
//! assert!(verdict.not_judged.is_empty());
//! assert_eq!(
//!     verdict.refusals[0].to_string(),
//!     r#"spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule: Invalid value: "self.nope()": compilation failed"#,
//! );
//! ```

use serde_json::Value;

use super::Refusals;
use crate::FieldError;

/// One CEL rule (an entry of `x-kubernetes-validations`) handed to a [`RuleJudge`].
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct CelRule<'a> {
    /// The entry itself: `rule`, and `message`, `messageExpression`, `reason`, `fieldPath`,
    /// `optionalOldSelf` when set.
    pub rule: &'a Value,
    /// Its index in the node's `x-kubernetes-validations`.
    pub index: usize,
    /// The server's field path of the entry
    /// (`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0]`).
    pub path: &'a str,
    /// The schema node that carries the rule (`self` has its type).
    pub schema: &'a Value,
    /// The server's field path of that node.
    pub schema_path: &'a str,
    /// The version's whole `openAPIV3Schema`.
    pub root: &'a Value,
    /// The server's field path of the root schema (`spec.validation.openAPIV3Schema` or
    /// `spec.versions[i].schema.openAPIV3Schema`).
    pub root_path: &'a str,
}

/// What a [`RuleJudge`] says of one rule.
#[derive(Clone, Debug, PartialEq)]
pub enum CelVerdict {
    /// Judged: the server's errors for the rule (empty when it compiles within its cost).
    Judged(Vec<FieldError>),
    /// Not judged: left to the API server, and counted as such.
    NotJudged,
}

/// Judges the CEL rules of a CRD as the API server compiles them: the one place a CEL
/// compiler plugs into the model, through [`crate::crd_validity_with`]. Any
/// `Fn(&CelRule) -> CelVerdict` is one.
pub trait RuleJudge {
    /// The verdict on one rule that passed the static checks.
    fn judge_rule(&self, rule: &CelRule<'_>) -> CelVerdict;

    /// The verdict on a version's schema as a whole, after its rules were judged one by one
    /// (the per-CRD cost budget, defaults against their rules); `root_path` as in
    /// [`CelRule::root_path`]. Nothing to refuse by default.
    fn judge_schema(&self, root: &Value, root_path: &str) -> CelVerdict {
        let _ = (root, root_path);
        CelVerdict::Judged(Vec::new())
    }

    /// What a rule this judge leaves to the server is counted as.
    fn not_judged_reason(&self) -> &'static str {
        NOT_COMPILED
    }

    /// True when the judge also evaluates the defaults that reach a rule against it (as the
    /// server does on create), so that they are not counted as left to the server.
    fn judges_defaults(&self) -> bool {
        false
    }
}

impl<F: Fn(&CelRule<'_>) -> CelVerdict> RuleJudge for F {
    fn judge_rule(&self, rule: &CelRule<'_>) -> CelVerdict {
        self(rule)
    }
}

/// The judge that judges nothing: every rule left to the API server.
#[derive(Clone, Copy, Debug)]
pub(super) struct NotJudged;

impl RuleJudge for NotJudged {
    fn judge_rule(&self, _rule: &CelRule<'_>) -> CelVerdict {
        CelVerdict::NotJudged
    }
}

/// The root schema a node belongs to, and the judge of its rules.
#[derive(Clone, Copy)]
pub(super) struct Context<'a> {
    /// The version's `openAPIV3Schema`.
    pub(super) root: &'a Value,
    /// Its field path.
    pub(super) root_path: &'a str,
    /// Who judges the rules.
    pub(super) judge: &'a dyn RuleJudge,
    /// False when the server compiles no rule of this schema (it is not a valid structural
    /// schema, or its defaults are refused): the rules are then neither judged nor counted.
    pub(super) compile: bool,
}

impl Context<'_> {
    /// The schema-wide verdict, after every node was walked.
    pub(super) fn finish(&self, r: &mut Refusals) {
        match self.judge.judge_schema(self.root, self.root_path) {
            CelVerdict::Judged(errors) => errors.into_iter().for_each(|e| r.push(e)),
            CelVerdict::NotJudged => r.not_judged(self.judge.not_judged_reason()),
        }
    }
}

/// `supportedValidationReason`.
const REASONS: &[&str] = &[
    "FieldValueDuplicate",
    "FieldValueForbidden",
    "FieldValueInvalid",
    "FieldValueRequired",
];

const NOT_COMPILED: &str = "CEL rules (x-kubernetes-validations) not compiled here";

fn has_newlines(s: &str) -> bool {
    s.contains(['\n', '\r'])
}

/// Checks the rules of one schema node; `clean` is false when the node already has schema
/// errors (the server then does not compile its rules either).
pub(super) fn validate(node: &Value, at: &str, clean: bool, cx: &Context<'_>, r: &mut Refusals) {
    let Some(rules) = node
        .get("x-kubernetes-validations")
        .and_then(Value::as_array)
    else {
        return;
    };
    let before = r.errors.len();
    for (i, rule) in rules.iter().enumerate() {
        let path = format!("{at}.x-kubernetes-validations[{i}]");
        let text = |k: &str| rule[k].as_str().unwrap_or_default();
        let (expr, message, message_expr) =
            (text("rule"), text("message"), text("messageExpression"));
        let trimmed_rule = expr.trim();
        let trimmed_message = message.trim();
        if trimmed_rule.is_empty() {
            r.required(format!("{path}.rule"), "rule is not specified");
        } else if !message.is_empty() && trimmed_message.is_empty() {
            r.invalid(
                format!("{path}.message"),
                message,
                "must be non-empty if specified",
            );
        } else if has_newlines(trimmed_message) {
            r.invalid(
                format!("{path}.message"),
                message,
                "must not contain line breaks",
            );
        } else if has_newlines(trimmed_rule) && trimmed_message.is_empty() {
            r.required(
                format!("{path}.message"),
                "message must be specified if rule contains line breaks",
            );
        }
        if !message_expr.is_empty() && message_expr.trim().is_empty() {
            r.required(
                format!("{path}.messageExpression"),
                "messageExpression must be non-empty if specified",
            );
        }
        if let Some(reason) = rule.get("reason").and_then(Value::as_str)
            && !REASONS.contains(&reason)
        {
            r.not_supported(format!("{path}.reason"), reason, REASONS);
        }
        let field_path = text("fieldPath");
        if !field_path.is_empty() && field_path.trim().is_empty() {
            r.invalid(
                format!("{path}.fieldPath"),
                field_path,
                "must be non-empty if specified",
            );
        }
        if has_newlines(field_path) {
            r.invalid(
                format!("{path}.fieldPath"),
                field_path,
                "must not contain line breaks",
            );
        }
        if !field_path.is_empty() && !field_path_valid(node, field_path) {
            r.invalid(
                format!("{path}.fieldPath"),
                field_path,
                "must be a valid path",
            );
        }
    }
    if cx.compile && clean && r.errors.len() == before {
        for (index, rule) in rules.iter().enumerate() {
            if rule["rule"].as_str().unwrap_or_default().trim().is_empty() {
                continue;
            }
            let path = format!("{at}.x-kubernetes-validations[{index}]");
            let verdict = cx.judge.judge_rule(&CelRule {
                rule,
                index,
                path: &path,
                schema: node,
                schema_path: at,
                root: cx.root,
                root_path: cx.root_path,
            });
            match verdict {
                CelVerdict::Judged(errors) => errors.into_iter().for_each(|e| r.push(e)),
                CelVerdict::NotJudged => r.not_judged(cx.judge.not_judged_reason()),
            }
        }
    }
}

/// `cel.ValidFieldPath` on the node's schema (`pkg/apiserver/schema/cel/validation.go` lines
/// 557-675): `.name` or `['name']` into properties, any key into `additionalProperties`; no
/// list index (`[0]` is "expected single quoted string"), nothing into `items`.
fn field_path_valid(schema: &Value, path: &str) -> bool {
    let tokens = field_path_tokens(path);
    let mut tokens = tokens.iter();
    let mut node = schema;
    while let Some(token) = tokens.next() {
        let name = match *token {
            "[" => {
                let Some(quoted) = tokens.next() else {
                    return false;
                };
                let inner = quoted
                    .strip_prefix('\'')
                    .and_then(|q| q.strip_suffix('\''))
                    .filter(|_| quoted.len() >= 2);
                let Some(name) = inner.and_then(unescape_single_quoted) else {
                    return false;
                };
                if tokens.next() != Some(&"]") {
                    return false;
                }
                name
            }
            "." => match tokens.next() {
                Some(name) => (*name).to_owned(),
                None => return false,
            },
            _ => return false,
        };
        if let Some(properties) = node.get("properties").and_then(Value::as_object) {
            match properties.get(&name) {
                Some(next) => node = next,
                None => return false,
            }
        } else if node["additionalProperties"].is_object() {
            node = &node["additionalProperties"];
        } else {
            return false;
        }
    }
    true
}

/// The scanner of `ValidFieldPath`: `.`, `[` and `]` alone, a single-quoted string up to its
/// first quote not after a backslash (delimiters inside kept), other text up to a delimiter.
fn field_path_tokens(path: &str) -> Vec<&str> {
    let mut tokens = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        let bytes = rest.as_bytes();
        let end = if bytes[0] == b'\'' {
            (1..bytes.len())
                .find(|&i| bytes[i] == b'\'' && bytes[i - 1] != b'\\')
                .map_or(bytes.len(), |i| i + 1)
        } else {
            match bytes.iter().position(|b| matches!(b, b'.' | b'[' | b']')) {
                Some(0) => 1,
                Some(i) => i,
                None => bytes.len(),
            }
        };
        tokens.push(&rest[..end]);
        rest = &rest[end..];
    }
    tokens
}

/// `unescapeSingleQuote`: `\a \b \f \n \r \t \v \' \\` and nothing else after a backslash.
fn unescape_single_quoted(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(escaped) = chars.next() else {
            // A backslash at the end is no escape (the matcher needs a character after it).
            out.push('\\');
            break;
        };
        out.push(match escaped {
            'a' => '\u{7}',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\u{b}',
            '\'' => '\'',
            '\\' => '\\',
            _ => return None,
        });
    }
    Some(out)
}
