//! Round-trip testing for Cluster API providers written in Rust: what upstream's
//! `util/conversion.FuzzTestFunc` gives a Go provider.
//!
//! * [`strategies`]: proptest strategies for the apimachinery types providers embed
//!   (`ObjectMeta`, `metav1.Condition` and Cluster API's legacy condition, `Time`,
//!   `Duration`, `Quantity`, `IntOrString`, `ObjectReference`) and for MachinePools of both
//!   versions.
//! * [`go_normalized`]: what Go makes of an object when it prints and reads it back, on the
//!   in-memory path and on the JSON path a webhook sees.
//! * [`lossless`]: [`assert_lossless`] fuzzes hub -> spoke -> hub and spoke -> hub -> spoke
//!   through the `cluster.x-k8s.io/conversion-data` annotation, every conversion going
//!   through a `ConversionReview` as the webhook serves it.
//!
//! A dev-dependency of a provider's tests:
//!
//! ```text
//! #[test]
//! fn foo_machine_pool_is_lossless() {
//!     assert_lossless(&converter(StaticResolver::new()), hub_pools(), v1alpha1_pools());
//! }
//! ```
//!
//! Library crates never select a k8s-openapi Kubernetes version; the test crate does.
#![deny(missing_docs)]

pub mod go_normalized;
pub mod lossless;
pub mod strategies;

pub use lossless::{
    LosslessError, Options, assert_lossless, assert_lossless_with, check_lossless,
    convert_via_review,
};

/// Re-export of the proptest crate the strategies are built with.
pub use proptest;
