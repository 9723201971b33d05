//! What a run read but did not check, typed: [`Skipped`] (in `Report::skipped`),
//! [`NotChecked`], why a document is not checked as a contract CRD, and [`Unjudged`] (in
//! `Report::unjudged`), what of the API server's validation of a CRD was left not judged.

use std::fmt;

use capi_diagnostics::excerpt::{Excerpt, excerpt};
use capi_machinepool_api::constants::GROUP;
use serde::Serialize;

/// Why a document is not checked as an InfraMachinePool CRD (or template, or pool machine).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotChecked {
    /// The document is not a CustomResourceDefinition.
    #[error("{}: not a CustomResourceDefinition", Excerpt::new(name))]
    NotACrd {
        /// `metadata.name`, or `<unnamed>`.
        name: String,
    },
    /// A CRD of core Cluster API.
    #[error("{}: core Cluster API CRD (group {GROUP})", Excerpt::new(name))]
    CoreCrd {
        /// The CRD name.
        name: String,
    },
    /// A CRD of another kind.
    #[error(
        "{}: kind {} is not an InfraMachinePool, InfraMachinePoolTemplate or InfraMachinePoolMachine",
        Excerpt::new(name),
        Excerpt::new(kind)
    )]
    OtherKind {
        /// The CRD name.
        name: String,
        /// Its kind.
        kind: String,
    },
    /// A CRD of an `apiextensions.k8s.io` version the API server no longer serves: `v1beta1`
    /// CRDs are not served since Kubernetes 1.22 (Kubernetes deprecated API migration guide,
    /// "v1.22": "The apiextensions.k8s.io/v1beta1 API version of CustomResourceDefinition is
    /// no longer served").
    #[error(
        "{}: apiextensions.k8s.io/{} is not served by Kubernetes since 1.22; use apiextensions.k8s.io/v1",
        Excerpt::new(name),
        Excerpt::new(version)
    )]
    UnservedApiVersion {
        /// The CRD name.
        name: String,
        /// The `apiextensions.k8s.io` version it was written in.
        version: String,
    },
}

/// An input read but not checked. `Display` (and the JSON report, which prints it as a
/// string) gives the one-line form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Skipped {
    /// A document that is not a contract CRD.
    Crd {
        /// Why.
        reason: NotChecked,
        /// Where it was read (`file#document`), when known.
        source: Option<String>,
    },
    /// An object not judged (a core MachinePool read for its reference, a Cluster without a
    /// topology, a kind that is none of the contract's).
    Object {
        /// Why.
        reason: String,
        /// Where it was read, when known.
        source: Option<String>,
    },
    /// An InfraMachine candidate no given pool owns or selects.
    UnclaimedMachine {
        /// The object, as findings name it.
        subject: String,
        /// Its kind.
        kind: String,
    },
    /// Anything else a caller records with `Checker::skip`.
    Other(String),
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Crd { reason, source } => {
                write!(f, "{reason}")?;
                match source {
                    Some(s) => write!(f, " ({s})"),
                    None => Ok(()),
                }
            }
            Self::Object { reason, source } => match source {
                Some(s) => write!(f, "{s}: {reason}"),
                None => f.write_str(reason),
            },
            Self::UnclaimedMachine { subject, kind } => write!(
                f,
                "{subject}: {} is not an InfraMachinePool, and no pool given owns or selects it",
                excerpt(kind)
            ),
            Self::Other(text) => f.write_str(text),
        }
    }
}

impl Serialize for Skipped {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Something of the API server's validation of one CRD left not judged (`crd-valid`): the
/// model left it to the server (a CEL rule), or the server gave no verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Unjudged {
    /// The CRD's name.
    pub crd: String,
    /// What was not judged (`CEL rules (x-kubernetes-validations) not compiled here`).
    pub what: String,
    /// How many of it.
    pub count: usize,
}
