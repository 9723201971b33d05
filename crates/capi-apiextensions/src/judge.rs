//! The API server's own verdict on a CRD, for callers that have one.
//!
//! The model of CRD validation ([`crate::crd_validity`]) judges what it can without an API
//! server and says what it did not judge. When the user has a real API server (a kind cluster
//! in provider CI, a kubeconfig), a [`CrdJudge`] hands the CRD to it instead. This crate holds
//! no HTTP client: the command line (`check --server`) implements [`CrdJudge`] with a kube
//! client doing a server-side dry-run create, and a provider's own tests can do the same with
//! theirs.
//!
//! ```
//! use capi_apiextensions::{CrdJudge, ServerCause, ServerVerdict};
//! use serde_json::Value;
//!
//! #[derive(Debug)]
//! struct RefuseEverything;
//! impl CrdJudge for RefuseEverything {
//!     fn server(&self) -> String {
//!         "a test server".into()
//!     }
//!     fn judge(&self, _crd: &Value) -> ServerVerdict {
//!         ServerVerdict::Refused {
//!             message: "refused".into(),
//!             causes: vec![ServerCause {
//!                 field: "spec.group".into(),
//!                 message: "Invalid value: \"x\": should be a domain with at least one dot".into(),
//!             }],
//!         }
//!     }
//! }
//! let verdict = RefuseEverything.judge(&serde_json::json!({}));
//! assert!(matches!(verdict, ServerVerdict::Refused { causes, .. } if causes[0].field == "spec.group"));
//! ```

use std::fmt;

use serde_json::Value;

/// One cause of a refusal, as the API server reports it in `status.details.causes`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerCause {
    /// The field path (`spec.versions[0].schema.openAPIV3Schema.properties[spec].type`); empty
    /// when the server named none.
    pub field: String,
    /// The server's message for that field (`Required value: ...`).
    pub message: String,
}

/// What an API server said of a CRD on a server-side dry-run create (nothing stored).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerVerdict {
    /// The server would create it.
    Accepted,
    /// The server refuses it.
    Refused {
        /// The whole `status.message`.
        message: String,
        /// Its causes, field by field (may be empty: then `message` says why).
        causes: Vec<ServerCause>,
    },
    /// The server was not asked, or did not answer with a verdict (unreachable, forbidden,
    /// timed out): the CRD is not judged.
    NotJudged {
        /// Why.
        reason: String,
    },
}

/// Hands a CRD to an API server and returns its verdict. Implemented by the command line with
/// a kube client.
pub trait CrdJudge: fmt::Debug {
    /// Which server judges, for messages (`the API server https://127.0.0.1:6443`).
    fn server(&self) -> String;

    /// The server's verdict on `crd` (an `apiextensions.k8s.io/v1` CustomResourceDefinition as
    /// JSON, exactly as read).
    fn judge(&self, crd: &Value) -> ServerVerdict;
}

impl<T: CrdJudge + ?Sized> CrdJudge for std::sync::Arc<T> {
    fn server(&self) -> String {
        (**self).server()
    }

    fn judge(&self, crd: &Value) -> ServerVerdict {
        (**self).judge(crd)
    }
}
