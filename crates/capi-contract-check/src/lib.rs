//! Checks of Cluster API infrastructure providers against the InfraMachinePool contract, rule
//! by rule: the library behind `capi-machinepool check`.
//!
//! * [`rules`]: every contract rule as a constant (id, level, contracts, link).
//! * [`check`] / [`check_crds`] / [`Checker`]: CRDs (typed, JSON, or documents read with
//!   `capi-manifests`, kustomizations applied) and InfraMachinePool objects in, a [`Report`]
//!   out.
//! * Objects (`Checker::add_object`) are judged one by one and as a set: InfraMachinePools
//!   and their InfraMachines (MachinePool Machines), ClusterClasses and Cluster topologies
//!   against the template CRDs given ([`clusterclass`]).
//! * [`capabilities`]: what each InfraMachinePool kind supports, in `Report::capabilities`.
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
//! // INFO a kube-derive CRD cannot act on (listKind, implicit root fields) can be left out:
//! let report = report.without_derive_info();
//! assert_eq!(report.failed_rules().len(), 1, "only inframachinepool-crd");
//! ```
#![deny(missing_docs)]

mod advice;
pub mod capabilities;
mod capability_probe;
mod catalog;
mod checker;
pub mod clusterclass;
mod crd;
mod crd_valid;
pub mod featureset;
mod input;
mod inventory;
pub mod location;
mod machines;
mod near_miss;
mod object;
pub mod render;
pub mod report;
pub mod rules;
mod schema;
pub mod schema_view;
mod skipped;

/// The API server's model and verdicts, from `capi-apiextensions`.
pub use capi_apiextensions::{
    CrdJudge, CrdValidity, Refusal, ServerCause, ServerVerdict, crd_validity,
};
pub use checker::{Checker, check, check_crds, check_documents};
pub use input::{CheckOptions, CrdInput, Role, classify};
pub use location::{Anchor, Location};
pub use object::MAX_ITEM_FINDINGS;
pub use report::{Finding, Outcome, Report, Subject, Target};
pub use skipped::{NotChecked, Skipped, Unjudged};
