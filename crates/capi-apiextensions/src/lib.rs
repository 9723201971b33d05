//! The Kubernetes API server's model, as upstream keeps it in
//! `k8s.io/apiextensions-apiserver`: what the server refuses in a CustomResourceDefinition and
//! in a custom resource, judged offline with the server's field paths and messages.
//!
//! * [`crd_validity`]: the create-time validation of `apiextensions.k8s.io/v1` CRDs
//!   (`docs/crd-validation.md` lists every rule with its status), returning [`Refusal`]s and
//!   what was left not judged; CEL rules are compiled and costed by [`CelCompiler`]
//!   (`capi-cel`), and [`crd_validity_with`] plugs another judge in through [`RuleJudge`];
//! * [`openapi`]: a custom resource validated and pruned against its CRD's structural schema;
//! * [`validate_root_meta`] and [`validate_object_meta`]: apimachinery's `ObjectMeta` rules;
//! * [`FieldError`]: apimachinery's `field.Error`, printed as Go prints it;
//! * [`CrdJudge`]: the verdict of a real API server, for callers that have one;
//! * [`go_quote`], [`go_json`] and the other Go text helpers the messages need.
//!
//! ```
//! let crd = serde_json::json!({
//!     "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
//!     "metadata": {"name": "foos.example.com"},
//!     "spec": {"group": "example", "scope": "Namespaced",
//!         "names": {"kind": "Foo", "plural": "foos"},
//!         "versions": [{"name": "v1", "served": true, "storage": true,
//!             "schema": {"openAPIV3Schema": {"type": "object"}}}]}
//! });
//! let verdict = capi_apiextensions::crd_validity(&crd);
//! let texts: Vec<String> = verdict.refusals.iter().map(ToString::to_string).collect();
//! assert!(texts.contains(&r#"spec.group: Invalid value: "example": should be a domain with at least one dot"#.to_owned()), "{texts:?}");
//! ```

#![deny(missing_docs)]

mod crd_validation;
mod field_error;
mod go_text;
mod go_url;
mod judge;
mod object_meta;
pub mod openapi;

pub use crd_validation::{
    CelCompiler, CelRule, CelVerdict, CrdValidity, Refusal, RuleJudge, crd_validity,
    crd_validity_with, crd_validity_without_cel,
};
pub use field_error::{BadValue, FieldError, FieldErrorType};
pub use go_text::{go_float, go_json, go_quote, go_type, go_v};
pub use judge::{CrdJudge, ServerCause, ServerVerdict};
pub use object_meta::{validate_meta_entries, validate_object_meta, validate_root_meta};
