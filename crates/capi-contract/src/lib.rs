//! The Cluster API InfraMachinePool contract as code.
//!
//! * [`naming`]: CRD names as upstream computes them (`CalculateCRDName`, flect plurals).
//! * [`version`]: contract labels and Kubernetes-aware API version ordering.
#![deny(missing_docs)]

pub mod naming;
pub mod version;
