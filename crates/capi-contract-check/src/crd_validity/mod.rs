//! The `crd-valid` rule: what the API server itself refuses in a CRD, checked before any
//! contract rule, so that `check` never passes a CRD that `kubectl apply` would reject.
//!
//! A model of the create-time validation of `apiextensions.k8s.io/v1` CustomResourceDefinitions
//! in `k8s.io/apiextensions-apiserver` v0.37.2 (the API server the e2e tests run). Every rule
//! of that validation is a row of `docs/crd-validation.md`, with its status here (exact,
//! approximate, not judged) and the test that holds it. One module per family:
//!
//! * [`decoding`]: a value of the wrong JSON type for the Go types (then nothing else);
//! * [`spec`]: group, scope, names, `metadata.name`, versions, storage, deprecation warnings;
//! * [`conversion`]: `spec.conversion` (strategy, webhook client configuration, review
//!   versions);
//! * [`subresources`]: the scale subresource, printer columns, selectable fields;
//! * [`schema`]: the OpenAPI schema of each version (structural rules, unsupported keywords,
//!   list and map types, metadata, the root under the status subresource);
//! * [`defaults`]: every `default` validated and pruned against its own schema;
//! * [`pattern`]: `pattern`s as Go's RE2 compiles them;
//! * [`cel`]: `x-kubernetes-validations` checks that need no CEL compiler; compiling the rules
//!   is left to the API server, and said so.
//!
//! Finding paths are the API server's field paths. The API server validates the internal form
//! of a CRD: where every version has the same schema (subresources, printer columns, selectable
//! fields), the v1 conversion moves it to the spec, and the server reports it there
//! (`spec.validation.openAPIV3Schema.properties[spec].type`, not `spec.versions[0].schema...`).
//! [`Layout`] computes those paths.
//!
//! What the model does not judge is never called accepted: `crd-valid` then says what was not
//! judged (INFO), and `check --server` hands the CRD to a real API server ([`CrdJudge`]).

mod cel;
mod conversion;
mod decoding;
mod defaults;
mod pattern;
mod pattern_limits;
mod request_size;
mod schema;
mod spec;
mod subresources;

use std::fmt::Write as _;
use std::sync::Arc;

use capi_contract::Contract;
use capi_diagnostics::excerpt::excerpt;
use capi_machinepool_admission::go_quote;
use serde_json::Value;

use crate::api_server::{CrdJudge, ServerVerdict};
use crate::report::{Report, Subject};
use crate::rules;

/// Where `docs/crd-validation.md` lists the rules (named in messages).
const TABLE: &str = "docs/crd-validation.md";

/// Checks the CRD `crd` as the API server validates it on create: with a `judge`, the server's
/// own verdict; else one `crd-valid` finding for each refusal the model finds, and what it did
/// not judge.
pub(crate) fn check_crd_valid(
    report: &mut Report,
    subject: &Arc<Subject>,
    contract: Contract,
    crd: &Value,
    judge: Option<&dyn CrdJudge>,
) {
    if let Some(judge) = judge {
        server_verdict(report, subject, contract, crd, judge);
        return;
    }
    let refusals = validate(crd);
    for (path, message) in &refusals.errors {
        report.check(&rules::CRD_VALID, subject, contract, path).fail(
            message.clone(),
            "the API server refuses this CRD: fix the field (see `kubectl apply --dry-run=server`)",
        );
    }
    if !refusals.not_judged.is_empty() {
        report
            .check(&rules::CRD_VALID, subject, contract, "spec")
            .info(
                format!(
                    "not judged here: {}; {}",
                    refusals.not_judged_summary(),
                    if refusals.errors.is_empty() {
                        "the rules judged here find nothing to refuse"
                    } else {
                        "the API server may refuse more than the failures above"
                    }
                ),
                "`capi-machinepool check --server` has the API server judge them (a dry-run create, nothing stored)",
            );
    } else if refusals.errors.is_empty() {
        report
            .check(&rules::CRD_VALID, subject, contract, "spec")
            .pass(format!(
                "every rule of the API server's CRD validation modelled here ({TABLE}) holds; nothing left unjudged"
            ));
    }
}

/// The server's answer, cause by cause.
fn server_verdict(
    report: &mut Report,
    subject: &Arc<Subject>,
    contract: Contract,
    crd: &Value,
    judge: &dyn CrdJudge,
) {
    let server = judge.server();
    match judge.judge(crd) {
        ServerVerdict::Accepted => report
            .check(&rules::CRD_VALID, subject, contract, "spec")
            .pass(format!("{server} accepts it (server-side dry run)")),
        ServerVerdict::Refused { message, causes } if causes.is_empty() => report
            .check(&rules::CRD_VALID, subject, contract, "spec")
            .fail(
                format!("{server} refuses it: {message}"),
                "fix what the server names (`kubectl apply --dry-run=server` shows the same)",
            ),
        ServerVerdict::Refused { causes, .. } => {
            for cause in causes {
                let path = if cause.field.is_empty() {
                    "spec".to_owned()
                } else {
                    cause.field
                };
                report.check(&rules::CRD_VALID, subject, contract, path).fail(
                    format!("{server} refuses it: {}", cause.message),
                    "fix the field the server names",
                );
            }
        }
        ServerVerdict::NotJudged { reason } => report
            .check(&rules::CRD_VALID, subject, contract, "spec")
            .info(
                format!("not judged: {server} gave no verdict ({reason})"),
                "make the server reachable, and allow a dry-run create of CustomResourceDefinitions",
            ),
    }
}

/// The model's verdict on one CRD, without a contract around it: what the API server's CRD
/// validation would refuse (`(field path, message)`, as the server reports them), and what
/// was left to the server (`(what, how many)`; empty when everything was judged).
///
/// ```
/// let crd = serde_json::json!({
///     "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
///     "metadata": {"name": "foos.example.com"},
///     "spec": {"group": "example.com", "scope": "Namespaced",
///         "names": {"kind": "Foo", "plural": "foos"},
///         "versions": [{"name": "v1", "served": true, "storage": true,
///             "schema": {"openAPIV3Schema": {"type": "object",
///                 "x-kubernetes-validations": [{"rule": "has(self.spec)"}]}}}]}
/// });
/// let verdict = capi_contract_check::crd_validity(&crd);
/// assert!(verdict.refusals.is_empty());
/// assert_eq!(verdict.not_judged, [("CEL rules (x-kubernetes-validations) not compiled here".to_owned(), 1)]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrdValidity {
    /// Each refusal: the field path and the message after it.
    pub refusals: Vec<(String, String)>,
    /// What was not judged, and how often.
    pub not_judged: Vec<(String, usize)>,
}

/// Runs the model of the API server's CRD validation (`docs/crd-validation.md`) on `crd`.
#[must_use]
pub fn crd_validity(crd: &Value) -> CrdValidity {
    let r = validate(crd);
    CrdValidity {
        refusals: r.errors,
        not_judged: r
            .not_judged
            .into_iter()
            .map(|(what, n)| (what.to_owned(), n))
            .collect(),
    }
}

/// What the model finds in one CRD.
#[derive(Debug, Default)]
pub(crate) struct Refusals {
    /// `(field path, message)` of each refusal, messages as the server prints them after the
    /// path (`Required value: ...`, `Invalid value: "x": ...`).
    pub(crate) errors: Vec<(String, String)>,
    /// `(what, count)`: what was left to the API server.
    not_judged: Vec<(&'static str, usize)>,
}

impl Refusals {
    fn push(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.errors.push((path.into(), message.into()));
    }

    /// `field.Required(path, detail)`.
    fn required(&mut self, path: impl Into<String>, detail: &str) {
        self.push(path, with_detail("Required value", detail));
    }

    /// `field.Forbidden(path, detail)`.
    fn forbidden(&mut self, path: impl Into<String>, detail: &str) {
        self.push(path, with_detail("Forbidden", detail));
    }

    /// `field.Invalid(path, value, detail)`.
    fn invalid(&mut self, path: impl Into<String>, value: &Bad<'_>, detail: &str) {
        self.push(
            path,
            with_detail(&format!("Invalid value: {value}"), detail),
        );
    }

    /// `field.NotSupported(path, value, supported)`.
    fn not_supported(&mut self, path: impl Into<String>, value: &str, supported: &[&str]) {
        let mut detail = String::from("supported values: ");
        for (i, s) in supported.iter().enumerate() {
            if i > 0 {
                detail.push_str(", ");
            }
            let _ = write!(detail, "{s:?}");
        }
        self.push(
            path,
            format!("Unsupported value: {}: {detail}", Bad::Str(value)),
        );
    }

    /// `field.Duplicate(path, value)`.
    fn duplicate(&mut self, path: impl Into<String>, value: &str) {
        self.push(path, format!("Duplicate value: {}", Bad::Str(value)));
    }

    /// `field.TooMany(path, actual, max)`.
    fn too_many(&mut self, path: impl Into<String>, actual: usize, max: usize) {
        self.push(
            path,
            format!("Too many: {actual}: must have at most {max} items"),
        );
    }

    /// Counts something left to the API server.
    fn not_judged(&mut self, what: &'static str) {
        match self.not_judged.iter_mut().find(|(w, _)| *w == what) {
            Some((_, n)) => *n += 1,
            None => self.not_judged.push((what, 1)),
        }
    }

    fn not_judged_summary(&self) -> String {
        self.not_judged
            .iter()
            .map(|(what, n)| format!("{n} {what}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn with_detail(head: &str, detail: &str) -> String {
    if detail.is_empty() {
        head.to_owned()
    } else {
        format!("{head}: {detail}")
    }
}

/// A bad value as `field.Error` prints it: strings quoted, numbers and booleans bare, other
/// values as JSON.
pub(crate) enum Bad<'a> {
    Str(&'a str),
    Json(&'a Value),
}

impl std::fmt::Display for Bad<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // Go's `%q`, in full, as apimachinery prints a string value.
            Self::Str(s) => f.write_str(&go_quote(s)),
            Self::Json(Value::String(s)) => f.write_str(&go_quote(s)),
            Self::Json(v @ (Value::Number(_) | Value::Bool(_))) => write!(f, "{v}"),
            Self::Json(v) => {
                let text = v.to_string();
                write!(f, "{}", excerpt(&text))
            }
        }
    }
}

/// The kind of a JSON value, as decoding errors name it.
pub(crate) fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Runs the model over one CRD.
pub(crate) fn validate(crd: &Value) -> Refusals {
    let mut refusals = Refusals::default();
    if !decoding::decodes(crd, &mut refusals) {
        return refusals;
    }
    request_size::validate(crd, &mut refusals);
    let layout = Layout::of(&crd["spec"]);
    spec::validate(crd, &layout, &mut refusals);
    schema::validate_all(&crd["spec"], &layout, &mut refusals);
    subresources::validate_all(&crd["spec"], &layout, &mut refusals);
    conversion::validate(&crd["spec"], &mut refusals);
    refusals
}

/// Where the API server reports the per-version fields of a CRD: the v1 to internal conversion
/// moves a per-version field to the spec when every version has the same value
/// (`Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_CustomResourceDefinitionSpec`,
/// `pkg/apis/apiextensions/v1/conversion.go` lines 139-190).
#[derive(Debug)]
pub(crate) struct Layout {
    schema: bool,
    subresources: bool,
    columns: bool,
    selectable: bool,
}

/// One place a per-version field is validated: `(path prefix, value, version index)`.
pub(crate) struct Place<'a> {
    /// `spec.validation` or `spec.versions[i].schema` (and likewise for the other fields).
    pub(crate) path: String,
    /// The field's value there.
    pub(crate) value: &'a Value,
    /// The version it belongs to (`None` when hoisted to the spec).
    pub(crate) version: Option<usize>,
}

impl Layout {
    fn of(spec: &Value) -> Self {
        let versions = versions(spec);
        let identical = |field: &str| {
            versions
                .first()
                .is_some_and(|first| versions.iter().all(|v| same(&v[field], &first[field])))
        };
        Self {
            schema: identical("schema"),
            subresources: identical("subresources"),
            columns: identical("additionalPrinterColumns"),
            selectable: identical("selectableFields"),
        }
    }

    /// The places `field` (`schema`, `subresources`, `additionalPrinterColumns`,
    /// `selectableFields`) is validated, with the spec-level name it is hoisted to.
    pub(crate) fn places<'a>(&self, spec: &'a Value, field: &str) -> Vec<Place<'a>> {
        let (hoisted, top) = match field {
            "schema" => (self.schema, "validation"),
            "subresources" => (self.subresources, "subresources"),
            "additionalPrinterColumns" => (self.columns, "additionalPrinterColumns"),
            _ => (self.selectable, "selectableFields"),
        };
        let versions = versions(spec);
        if hoisted {
            return versions
                .first()
                .filter(|v| !v[field].is_null())
                .map(|v| Place {
                    path: format!("spec.{top}"),
                    value: &v[field],
                    version: None,
                })
                .into_iter()
                .collect();
        }
        versions
            .iter()
            .enumerate()
            .filter(|(_, v)| !v[field].is_null())
            .map(|(i, v)| Place {
                path: format!("spec.versions[{i}].{field}"),
                value: &v[field],
                version: Some(i),
            })
            .collect()
    }
}

/// Semantic equality as `apiequality.Semantic.DeepEqual` sees two decoded fields: absent and
/// empty lists or objects are the same zero value.
fn same(a: &Value, b: &Value) -> bool {
    let empty = |v: &Value| match v {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        _ => false,
    };
    (empty(a) && empty(b)) || a == b
}

/// The versions of a spec (none when absent or not a list).
pub(crate) fn versions(spec: &Value) -> &[Value] {
    spec["versions"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// True when `node[key]` is JSON `true`.
pub(crate) fn is_true(node: &Value, key: &str) -> bool {
    node[key] == Value::Bool(true)
}

#[cfg(test)]
mod tests;
