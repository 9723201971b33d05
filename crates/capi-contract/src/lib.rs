//! The Cluster API InfraMachinePool contract as code.
//!
//! * [`rules`]: every contract rule as data (id, level, contract versions, link).
//! * [`crd_check`]: checks provider CRDs (names, scope, labels, versions, schemas).
//! * [`object_check`]: checks InfraMachinePool objects.
//! * [`reader`]: contract-aware, typed reads of unstructured InfraMachinePools.
//! * [`naming`] and [`version`]: CRD names and contract version resolution as upstream does.
//! * [`load`]: reading CRDs from files, directories (with `kustomization.yaml` labels) and
//!   rendered bundles.
#![deny(missing_docs)]

pub mod crd_check;
pub mod load;
pub mod naming;
pub mod object_check;
mod pool_schema;
pub mod reader;
pub mod report;
pub mod rules;
pub mod schema_view;
pub mod version;

pub use crd_check::{CheckOptions, CrdInput, check_crds};
pub use report::{Finding, Outcome, Report};
