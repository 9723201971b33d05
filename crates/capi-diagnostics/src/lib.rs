//! The text the capi-machinepool crates show their users, in one leaf crate with no
//! dependencies: every other crate (the YAML loader included) uses it without compiling the
//! Kubernetes types.
//!
//! * [`excerpt`](mod@excerpt): short, escaped excerpts of input for messages (input comes from pull
//!   requests: nothing it holds may reach a terminal or CI log raw).
//! * [`error_chain()`]: an error and its sources on one line.
//! * [`workflow_command`]: the encoding of GitHub Actions workflow commands.
//! * [`Severity`]: error or warning, the one severity of every finding that is not a contract
//!   rule (admission, version skew, rollout, providerIDList hygiene).
//!
//! ```
//! use capi_diagnostics::{Severity, excerpt::excerpt};
//! assert_eq!(excerpt("bad\u{1b}[31m"), "bad\\u{1b}[31m");
//! assert!(Severity::Error < Severity::Warning, "errors sort first");
//! ```
#![deny(missing_docs)]

mod chain;
pub mod excerpt;
mod severity;
pub mod workflow_command;

pub use chain::{ErrorChain, error_chain};
pub use excerpt::{Excerpt, excerpt};
pub use severity::Severity;
