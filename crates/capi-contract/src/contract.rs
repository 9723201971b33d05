//! The Cluster API contract versions an infrastructure provider can implement.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A Cluster API contract version.
///
/// The contract is what core Cluster API expects of provider objects; its version is the API
/// version of the core types (`cluster.x-k8s.io/v1beta2` today). A provider CRD declares which
/// of its API versions implement which contract through `cluster.x-k8s.io/<contract>` labels.
///
/// ```
/// use capi_contract::Contract;
/// let c: Contract = "v1beta1".parse().unwrap();
/// assert_eq!(c, Contract::V1Beta1);
/// assert_eq!(Contract::CURRENT.label(), "cluster.x-k8s.io/v1beta2");
/// assert_eq!(Contract::V1Beta2.compatible(), [Contract::V1Beta2, Contract::V1Beta1]);
/// ```
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
pub enum Contract {
    /// The deprecated contract (core API v1beta1), read by the current core under the
    /// temporary v1beta1 compatibility.
    #[serde(rename = "v1beta1")]
    V1Beta1,
    /// The current contract (core API v1beta2).
    #[default]
    #[serde(rename = "v1beta2")]
    V1Beta2,
}

impl Contract {
    /// The contract core Cluster API implements today.
    pub const CURRENT: Self = Self::V1Beta2;

    /// Every contract, oldest first.
    pub const ALL: [Self; 2] = [Self::V1Beta1, Self::V1Beta2];

    /// `v1beta1` or `v1beta2`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V1Beta1 => "v1beta1",
            Self::V1Beta2 => "v1beta2",
        }
    }

    /// The CRD label naming the CRD versions that implement this contract:
    /// `cluster.x-k8s.io/<contract>`.
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Self::V1Beta1 => "cluster.x-k8s.io/v1beta1",
            Self::V1Beta2 => "cluster.x-k8s.io/v1beta2",
        }
    }

    /// Contracts a core at this contract reads, newest first: itself and, for v1beta2, the
    /// deprecated v1beta1 (temporary compatibility, upstream's `GetCompatibleVersions`).
    #[must_use]
    pub fn compatible(self) -> Vec<Self> {
        match self {
            Self::V1Beta2 => vec![Self::V1Beta2, Self::V1Beta1],
            Self::V1Beta1 => vec![Self::V1Beta1],
        }
    }
}

impl fmt::Display for Contract {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that is not a known contract version.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown contract version {0:?}: expected v1beta1 or v1beta2")]
pub struct UnknownContract(pub String);

impl FromStr for Contract {
    type Err = UnknownContract;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "v1beta1" => Ok(Self::V1Beta1),
            "v1beta2" => Ok(Self::V1Beta2),
            other => Err(UnknownContract(other.to_owned())),
        }
    }
}
