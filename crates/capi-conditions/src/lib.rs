//! Cluster API conditions for Rust.
//!
//! * v1beta2 conditions (`metav1.Condition`, from k8s-openapi) on any object implementing
//!   [`HasConditions`] / [`ConditionsMut`] (one line with [`impl_conditions!`]; kind, name and
//!   generation come from `kube_core::Resource` through [`ObjectIdentity`], or from fields
//!   with [`impl_object_identity!`]): [`get`], [`has`], [`is_true`], [`is_false`],
//!   [`is_unknown`], [`set`], [`delete`], default [`order`], [`validate`], and the merges
//!   [`mirror`], [`aggregate`](aggregate::aggregate) and [`summary`](summary::summary) with
//!   upstream's priorities and message formats.
//! * [`paused`]: `Paused` for any object (upstream's `util/paused`).
//! * [`v1beta1`]: deprecated conditions with severity.
//!
//! MachinePool status (its v1beta2 conditions, replica counters and the upgrade gate) is
//! built on these in the `capi-machinepool-status` crate.
//!
//! Time is always passed in (`now`), so results are deterministic.
#![deny(missing_docs)]

mod access;
pub mod aggregate;
pub mod merge;
pub mod mirror;
pub mod order;
pub mod paused;
mod setter;
pub mod summary;
pub mod time;
pub mod types;
pub mod unstructured;
pub mod v1beta1;
pub mod validate;

pub use access::{
    ConditionList, ConditionSet, ConditionSource, ConditionsMut, HasConditions, ObjectIdentity,
};
/// The v1beta2 condition type (k8s-openapi's `metav1.Condition`).
pub use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
pub use setter::{
    bool_to_status, delete, get, has, is_false, is_true, is_unknown, last_transition_time, message,
    new_condition, reason, set,
};
