//! Checks of Cluster API infrastructure providers against the InfraMachinePool contract, rule
//! by rule: the library behind `capi-machinepool check`.
//!
//! * [`rules`]: every contract rule as a constant (id, level, contracts, link).
//! * [`check`] / [`check_crds`] / [`Checker`]: CRDs (typed, JSON, or documents read with
//!   `capi-manifests`, kustomizations applied) and InfraMachinePool objects in, a [`Report`]
//!   out.
//! * [`Report`]: findings with their rule, outcome, subject and source (file, document,
//!   line); `Display` prints the human report, [`render`] the JSON, JUnit and GitHub
//!   Actions forms.
//!
//! ```
//! use capi_contract_check::check;
//! # let my_crds: Vec<capi_machinepool_api::k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition> = vec![];
//! // In a provider's unit test: `check(&[MyPool::crd(), MyPoolTemplate::crd()])`.
//! let report = check(&my_crds);
//! // Here `my_crds` is empty: nothing checked is never a pass.
//! assert!(!report.passes(), "{report}");
//! ```
#![deny(missing_docs)]

mod checker;
mod crd;
mod input;
mod object;
pub mod render;
pub mod report;
pub mod rules;
mod schema;
pub mod schema_view;

pub use checker::{Checker, check, check_crds, check_documents};
pub use input::{CheckOptions, CrdInput, Role, classify};
pub use object::MAX_ITEM_FINDINGS;
pub use report::{Finding, Outcome, Report, Subject, Target};
