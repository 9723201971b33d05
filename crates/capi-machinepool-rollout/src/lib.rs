//! Rollout verdicts for Cluster API MachinePools: one home for what decides whether a
//! change to a pool is safe to apply.
//!
//! * [`skew`]: the Kubernetes version skew policy between kube-apiserver and kubelets,
//!   encoded sentence by sentence from its published text (pre-1.25 kubelets, control planes
//!   mid-upgrade).
//! * [`control_plane`]: which kube-apiserver versions a pool must respect, read from any
//!   control plane kind its Cluster's `spec.controlPlaneRef` names.
//! * [`apiservers`]: which of them run now and next, by what each control plane kind does
//!   with its desired version (KubeadmControlPlane, the contract, EKS, the topology
//!   controller), with the source lines.
//! * [`upgrade_plan`]: upstream's upgrade plan for a ClusterClass cluster and the versions
//!   its topology controller writes next (Cluster API v1.14.2, held to its running code);
//!   [`topology`] reads them from a stream and judges every pool of the cluster, owned by
//!   the topology or not, against the step the control plane takes next.
//! * [`change`]: what an update of a pool will do to its instances (version rollouts,
//!   renamed bootstrap configs, in-place edits that never roll out); bootstrap configs are
//!   compared at one API version ([`kubeadm_config`]).
//! * [`Validation`]: a manifest stream validated as the API server would, plus the two
//!   above, as one [`ValidationReport`] per stream; `capi-machinepool validate` prints it.
//!
//! Severities are [`capi_diagnostics::Severity`], the one severity type of the workspace (not
//! re-exported here: one type, one path).
//!
//! The default feature `validation` brings [`Validation`] and with it the admission pipeline
//! (JSON schemas, upstream's webhook). A controller that only needs the policy, control plane
//! versions or change comparison uses `default-features = false` and compiles none of it:
//!
//! ```toml
//! capi-machinepool-rollout = { version = "0.1", default-features = false }
//! ```
//!
//! Built without `validation`, the two names above link to the documentation of the default
//! build.
//!
#![cfg_attr(feature = "validation", doc = "[`Validation`]: crate::Validation")]
#![cfg_attr(
    feature = "validation",
    doc = "[`ValidationReport`]: crate::ValidationReport"
)]
#![cfg_attr(
    not(feature = "validation"),
    doc = "[`Validation`]: https://docs.rs/capi-machinepool-rollout/latest/capi_machinepool_rollout/struct.Validation.html"
)]
#![cfg_attr(
    not(feature = "validation"),
    doc = "[`ValidationReport`]: https://docs.rs/capi-machinepool-rollout/latest/capi_machinepool_rollout/struct.ValidationReport.html"
)]
#![deny(missing_docs)]

pub mod apiservers;
pub mod change;
pub mod control_plane;
mod document;
pub mod kubeadm_config;
mod pool;
pub mod skew;
pub mod topology;
pub mod upgrade_plan;
#[cfg(feature = "validation")]
mod validation;

pub use pool::{kubelet_versions, pool_skew};
#[cfg(feature = "validation")]
pub use validation::{PoolFinding, PoolReport, Validation, ValidationReport};
