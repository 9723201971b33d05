//! Typed Cluster API MachinePool API, `cluster.x-k8s.io` [`v1beta1`] (deprecated) and
//! [`v1beta2`] (storage, conversion hub).
//!
//! * JSON is what the Go types emit: same field names, same `omitempty` / `omitzero`
//!   decisions, same pointer-vs-value distinctions (see `docs/serialization.md`).
//! * Both root types implement [`kube_core::Resource`] and [`kube_core::CustomResourceExt`].
//! * Each version's `crd()` is its own CRD (as kube-derive's); [`machine_pool_crd`] is their
//!   merge, the multi-version CRD built from the Rust types with schemars.
//! * [`wire`] prints the bytes Go's `encoding/json` prints (string escaping included).
//! * [`apimachinery`] holds apimachinery's name, label and condition-reason rules;
//!   [`label_format`] formats names into label values as upstream's `format.MustFormatValue`.
//! * [`views`] are minimal typed views of Cluster, Machine and KubeadmControlPlane for
//!   controllers, and the owner-MachinePool and pool-Machines helpers.
//!
//! Defaulting and validation (upstream's admission webhook) live in the
//! `capi-machinepool-admission` crate.
//!
//! Library crates never select a k8s-openapi Kubernetes version; binaries do (or set
//! `K8S_OPENAPI_ENABLED_VERSION`).
//!
//! ```
//! use capi_machinepool_api::v1beta1;
//! // v1beta1 value fields are always emitted, exactly like Go.
//! let mp = v1beta1::MachinePool::new("mp", Default::default());
//! let json = serde_json::to_value(&mp).unwrap();
//! assert_eq!(json["status"]["replicas"], 0);
//! assert_eq!(json["status"]["bootstrapReady"], false);
//! ```
#![deny(missing_docs)]

pub mod apimachinery;
mod common;
pub mod constants;
pub mod crd;
mod crd_version;
mod duration;
pub mod label_format;
mod omit;
mod phase;
mod resource;
pub mod schema;
pub mod ssa;
pub mod v1beta1;
pub mod v1beta2;
pub mod views;
pub mod wire;

pub use common::severity;
pub use crd::{machine_pool_crd, machine_pool_crd_value};
pub use duration::{Duration, ParseDurationError};
pub use phase::MachinePoolPhase;

/// Re-export of the k8s-openapi crate our types are built on.
pub use k8s_openapi;
/// Re-export of kube-core.
pub use kube_core;
