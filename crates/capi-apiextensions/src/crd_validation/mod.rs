//! What the API server itself refuses in a CRD, so that a checker never passes a CRD that
//! `kubectl apply` would reject.
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
//! * [`list_types`]: `x-kubernetes-list-type`, `x-kubernetes-map-type`, list map keys;
//! * [`defaults`]: every `default` validated and pruned against its own schema;
//! * [`pattern`]: `pattern`s as Go's RE2 compiles them;
//! * [`cel`]: `x-kubernetes-validations` checks that need no CEL compiler, and the hook
//!   ([`RuleJudge`]) through which a CEL compiler judges each rule; without one, the rules are
//!   left to the API server, and said so.
//! * [`refusal`]: what the model returns: a [`FieldError`], or a request the server cannot
//!   decode or read.
//!
//! Finding paths are the API server's field paths. The API server validates the internal form
//! of a CRD: where every version has the same schema (subresources, printer columns, selectable
//! fields), the v1 conversion moves it to the spec, and the server reports it there
//! (`spec.validation.openAPIV3Schema.properties[spec].type`, not `spec.versions[0].schema...`).
//! [`Layout`] computes those paths.
//!
//! What the model does not judge is never called accepted: [`CrdValidity::not_judged`] says
//! what was left to the API server, and a [`crate::CrdJudge`] can hand the CRD to a real one.

mod cel;
mod cel_compiler;
mod conversion;
mod decoding;
mod defaults;
mod list_types;
mod pattern;
mod pattern_limits;
mod refusal;
mod request_size;
mod schema;
mod spec;
mod subresources;

pub use cel::{CelRule, CelVerdict, RuleJudge};
pub use cel_compiler::CelCompiler;
pub use refusal::Refusal;

use serde_json::Value;

use crate::field_error::{BadValue, FieldError};

/// The model's verdict on one CRD: what the API server's CRD validation would refuse, and
/// what was left to the server.
///
/// ```
/// let crd = serde_json::json!({
///     "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
///     "metadata": {"name": "foos.example.com"},
///     "spec": {"group": "example.com", "scope": "Namespaced",
///         "names": {"kind": "Foo", "plural": "foos"},
///         "versions": [{"name": "v1", "served": true, "storage": true,
///             "schema": {"openAPIV3Schema": {"type": "object",
///                 "properties": {"spec": {"type": "object"}},
///                 "x-kubernetes-validations": [{"rule": "has(self.spec)"}, {"rule": "has(self.status)"}]}}}]}
/// });
/// // CEL compiled as the server compiles it: `status` is not declared.
/// let verdict = capi_apiextensions::crd_validity(&crd);
/// assert!(verdict.not_judged.is_empty());
/// assert_eq!(verdict.refusals.len(), 1);
/// // The value is the rule entry, printed as the server prints its internal struct.
/// assert!(verdict.refusals[0].to_string().starts_with(concat!(
///     r#"spec.validation.openAPIV3Schema.x-kubernetes-validations[1].rule: Invalid value: "#,
///     r#"{"Rule":"has(self.status)","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: "#,
///     r#"compilation failed: ERROR: <input>:1:4: undefined field 'status'"#)));
/// // Without a CEL compiler, both rules are left to the server.
/// let verdict = capi_apiextensions::crd_validity_without_cel(&crd);
/// assert!(verdict.refusals.is_empty());
/// assert_eq!(verdict.not_judged, [("CEL rules (x-kubernetes-validations) not compiled here".to_owned(), 2)]);
/// assert_eq!(verdict.not_judged_count(), 2);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CrdValidity {
    /// Each refusal, at the server's field path.
    pub refusals: Vec<Refusal>,
    /// What was not judged, and how often (empty when everything was judged).
    pub not_judged: Vec<(String, usize)>,
}

impl CrdValidity {
    /// How many things were left not judged (the sum of the counts).
    #[must_use]
    pub fn not_judged_count(&self) -> usize {
        self.not_judged.iter().map(|(_, n)| n).sum()
    }

    /// What was not judged, as one line (`2 CEL rules ... not compiled here, 1 ...`).
    #[must_use]
    pub fn not_judged_summary(&self) -> String {
        self.not_judged
            .iter()
            .map(|(what, n)| format!("{n} {what}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Runs the model of the API server's CRD validation (`docs/crd-validation.md`) on `crd`,
/// CEL rules compiled and costed by [`CelCompiler`].
#[must_use]
pub fn crd_validity(crd: &Value) -> CrdValidity {
    crd_validity_with(crd, &CelCompiler::new())
}

/// As [`crd_validity`], leaving every CEL rule not judged (the static checks alone).
#[must_use]
pub fn crd_validity_without_cel(crd: &Value) -> CrdValidity {
    crd_validity_with(crd, &cel::NotJudged)
}

/// As [`crd_validity`], with `rules` judging each CEL rule (`x-kubernetes-validations`) that
/// the static checks leave standing.
#[must_use]
pub fn crd_validity_with(crd: &Value, rules: &dyn RuleJudge) -> CrdValidity {
    let r = validate(crd, rules);
    CrdValidity {
        refusals: r.errors,
        not_judged: r
            .not_judged
            .into_iter()
            .filter(|(what, _)| {
                !(rules.judges_defaults() && *what == defaults::DEFAULTS_AGAINST_CEL)
            })
            .map(|(what, n)| (what.to_owned(), n))
            .collect(),
    }
}

/// What the model finds in one CRD, while it runs.
#[derive(Debug, Default)]
pub(crate) struct Refusals {
    /// Each refusal, in the server's order.
    pub(crate) errors: Vec<Refusal>,
    /// `(what, count)`: what was left to the API server.
    not_judged: Vec<(&'static str, usize)>,
}

impl Refusals {
    fn push(&mut self, refusal: impl Into<Refusal>) {
        self.errors.push(refusal.into());
    }

    /// `field.Required(path, detail)`.
    fn required(&mut self, path: impl Into<String>, detail: impl Into<String>) {
        self.push(FieldError::required(path, detail));
    }

    /// `field.Forbidden(path, detail)`.
    fn forbidden(&mut self, path: impl Into<String>, detail: impl Into<String>) {
        self.push(FieldError::forbidden(path, detail));
    }

    /// `field.Invalid(path, value, detail)`.
    fn invalid(
        &mut self,
        path: impl Into<String>,
        value: impl Into<BadValue>,
        detail: impl Into<String>,
    ) {
        self.push(FieldError::invalid(path, value, detail));
    }

    /// `field.NotSupported(path, value, supported)`.
    fn not_supported(&mut self, path: impl Into<String>, value: &str, supported: &[&str]) {
        self.push(FieldError::not_supported(path, value, supported));
    }

    /// `field.Duplicate(path, value)`.
    fn duplicate(&mut self, path: impl Into<String>, value: &str) {
        self.push(FieldError::duplicate(path, value));
    }

    /// `field.TooMany(path, actual, max)`.
    fn too_many(&mut self, path: impl Into<String>, actual: usize, max: usize) {
        self.push(FieldError::too_many(path, actual, max));
    }

    /// Counts something left to the API server.
    fn not_judged(&mut self, what: &'static str) {
        match self.not_judged.iter_mut().find(|(w, _)| *w == what) {
            Some((_, n)) => *n += 1,
            None => self.not_judged.push((what, 1)),
        }
    }

    #[cfg(test)]
    fn not_judged_summary(&self) -> String {
        self.not_judged
            .iter()
            .map(|(what, n)| format!("{n} {what}"))
            .collect::<Vec<_>>()
            .join(", ")
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
pub(crate) fn validate(crd: &Value, rules: &dyn RuleJudge) -> Refusals {
    let mut refusals = Refusals::default();
    if !decoding::decodes(crd, &mut refusals) {
        return refusals;
    }
    request_size::validate(crd, &mut refusals);
    let layout = Layout::of(&crd["spec"]);
    spec::validate(crd, &layout, &mut refusals);
    schema::validate_all(&crd["spec"], &layout, rules, &mut refusals);
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
