//! The Cluster API contract at run time: what a controller or conversion webhook needs to talk
//! to infrastructure providers' objects. No YAML, no file system (the checker tooling is the
//! `capi-contract-check` crate).
//!
//! * [`Contract`]: the contract versions (`v1beta2`, and the deprecated `v1beta1`).
//! * [`labels`]: the `cluster.x-k8s.io/<contract>` CRD labels and the API version core Cluster
//!   API derives from them.
//! * [`naming`]: CRD names as upstream computes them (flect pluralisation).
//! * [`version`]: Kubernetes-aware ordering of API version names.
//! * [`crd`]: what the contract reads in a CRD (names, scope, contract labels, versions and
//!   their schemas), as a view over the CRD as written.
//! * [`fields`]: every contract field once, path plus typed get/set (upstream's
//!   `internal/contract`).
//! * [`reader`]: contract-aware, typed reads of unstructured InfraMachinePools.
//! * [`provider_ids`]: `providerIDList` hygiene and matching Nodes to provider IDs.
#![deny(missing_docs)]

mod contract;
pub mod crd;
pub mod fields;
pub mod labels;
pub mod naming;
pub mod provider_ids;
mod read_error;
pub mod reader;
pub mod version;

pub use contract::{Contract, UnknownContract};
