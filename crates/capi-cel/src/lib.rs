//! Kubernetes CEL (`x-kubernetes-validations`) judged offline as apiextensions-apiserver
//! v0.37.2 judges a CRD's schema when the CRD is created: every rule and
//! `messageExpression` parsed and type-checked against the schema's declared types in the
//! Kubernetes CEL environment, `oldSelf` correlatability and `optionalOldSelf`, and the cost
//! estimates (per rule, per message expression, per schema total) with the server's
//! messages. What is not modelled is reported as not judged, never passed.
//!
//! ```
//! let schema = serde_json::json!({
//!     "type": "object",
//!     "properties": {"spec": {
//!         "type": "object",
//!         "properties": {"x": {"type": "string"}},
//!         "x-kubernetes-validations": [{"rule": "quantity(self.x).sign() > 0"}]
//!     }}
//! });
//! let report = capi_cel::compile_crd_version(&schema);
//! assert!(report.fully_judged());
//! let e = &report.errors[0];
//! assert_eq!(e.field_path,
//!     "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule");
//! assert_eq!(e.kind, capi_cel::ErrorKind::Invalid);
//! assert!(e.detail.starts_with("compilation failed: ERROR: <input>:1:22: \
//!     found no matching overload for 'sign' applied to 'kubernetes.Quantity.()'"));
//! ```
//!
//! The schema must already pass the static (structural) checks: the server compiles CEL only
//! for structural schemas without other errors at or below a node.

mod ast;
mod calls;
mod check;
mod compile;
mod cost;
mod decl;
mod env;
mod est;
mod eval;
mod lex;
mod parse;
mod regex_lits;
mod report;
mod time_lits;
mod types;
mod walk;

pub use report::{
    CRD_COST_LIMIT, CrdCelReport, ErrorKind, ErrorValue, FieldError, NotJudged,
    PER_EXPRESSION_COST_LIMIT, RuleCost,
};

use serde_json::Value;

/// The path the server prints for a CRD's schema when every version shares it (what a
/// single-version CRD converts to).
pub const SHARED_SCHEMA_PATH: &str = "spec.validation.openAPIV3Schema";

/// Judges the CEL of a whole `CustomResourceDefinition` (apiextensions.k8s.io/v1, JSON) as
/// the server reports it: when every version's `schema` is the same, once under
/// [`SHARED_SCHEMA_PATH`] (the internal conversion moves it to `spec.validation`);
/// otherwise each version under `spec.versions[i].schema.openAPIV3Schema`, with its own
/// total. The merged report's `total_cost` is the largest version total.
///
/// ```
/// let crd = serde_json::json!({"spec": {"versions": [
///     {"name": "v1", "schema": {"openAPIV3Schema": {"type": "object",
///         "x-kubernetes-validations": [{"rule": "self.metadata.labels.size() > 0"}]}}},
///     {"name": "v2", "schema": {"openAPIV3Schema": {"type": "object"}}},
/// ]}});
/// let report = capi_cel::compile_crd(&crd);
/// assert_eq!(report.errors[0].field_path,
///     "spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0].rule");
/// ```
#[must_use]
pub fn compile_crd(crd: &Value) -> CrdCelReport {
    let versions = crd
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let Some(first) = versions.first() else {
        return CrdCelReport::default();
    };
    if versions
        .iter()
        .all(|v| v.get("schema") == first.get("schema"))
    {
        return first
            .pointer("/schema/openAPIV3Schema")
            .map(compile_crd_version)
            .unwrap_or_default();
    }
    let mut merged = CrdCelReport::default();
    for (i, v) in versions.iter().enumerate() {
        let Some(schema) = v.pointer("/schema/openAPIV3Schema") else {
            continue;
        };
        let r = compile_schema(
            schema,
            &format!("spec.versions[{i}].schema.openAPIV3Schema"),
        );
        merged.errors.extend(r.errors);
        merged.rules.extend(r.rules);
        merged.not_judged.extend(r.not_judged);
        merged.total_cost = merged.total_cost.max(r.total_cost);
    }
    merged
}

/// Judges the CEL of one CRD version's `openAPIV3Schema`, with paths under
/// [`SHARED_SCHEMA_PATH`].
#[must_use]
pub fn compile_crd_version(schema: &Value) -> CrdCelReport {
    compile_schema(schema, SHARED_SCHEMA_PATH)
}

/// Judges the CEL of an `openAPIV3Schema` whose field path is `root_path` (for per-version
/// schemas `spec.versions[i].schema.openAPIV3Schema`).
#[must_use]
pub fn compile_schema(schema: &Value, root_path: &str) -> CrdCelReport {
    // Parsing, checking and costing recurse over expressions up to the parser's recursion
    // limit: a thread of its own with a stack sized for that, whatever the caller's stack.
    let judged = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("capi-cel".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, || judge(schema, root_path))
            .ok()
            .and_then(|h| h.join().ok())
    });
    judged.unwrap_or_else(|| CrdCelReport {
        not_judged: vec![NotJudged {
            field_path: root_path.to_owned(),
            reason: "the judging thread failed".into(),
        }],
        ..CrdCelReport::default()
    })
}

/// The judging thread's stack: room for cel-go's recursion limit in unoptimised builds.
const STACK_BYTES: usize = 64 * 1024 * 1024;

fn judge(schema: &Value, root_path: &str) -> CrdCelReport {
    let mut decls = decl::Decls::default();
    let root = decls.build(schema, true);
    let mut w = walk::Walk {
        decls: &decls,
        report: CrdCelReport::default(),
        most_expensive: Vec::new(),
        default_failures: Vec::new(),
    };
    let node = walk::Node {
        schema,
        path: root_path.to_owned(),
        decl: root,
        cardinality: Some(1),
        uncorrelatable: None,
        depth: 0,
        defaults: schema
            .get("default")
            .map(|d| walk::Reach {
                value: d,
                path: format!("{root_path}.default"),
            })
            .into_iter()
            .collect(),
    };
    w.node(&node);
    if !w.defaults_verdict() {
        w.total(root_path);
    }
    w.report
}
