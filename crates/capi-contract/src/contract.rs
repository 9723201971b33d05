//! The Cluster API contract versions an infrastructure provider can implement, and the one
//! version policy every crate asks: which contract is current, which are deprecated, which a
//! core reads ([`Contract::current`], [`Contract::is_deprecated`], [`Contract::compatible`]).
//!
//! The versions are declared once, oldest first, in the `contracts!` list below; everything
//! else (the order, the label, parsing, "current", the compatibility window down to
//! [`Contract::OLDEST_READ`]) follows from that list. Adding a contract version is one line there: the accessors in
//! [`fields`](crate::fields) carry their newest path forward, rule tables name contracts by
//! range, and a test build with the `test-next-contract` feature proves it with a made-up
//! `v1beta3`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Declares the contract versions, oldest first: the enum, [`Contract::ALL`],
/// [`Contract::as_str`], [`Contract::label`] and parsing.
macro_rules! contracts {
    ($( $(#[doc = $doc:literal])* $(#[cfg($cfg:meta)])? $variant:ident => $name:literal, )+) => {
        /// A Cluster API contract version.
        ///
        /// The contract is what core Cluster API expects of provider objects; its version is
        /// the API version of the core types (`cluster.x-k8s.io/v1beta2` today). A provider
        /// CRD declares which of its API versions implement which contract through
        /// `cluster.x-k8s.io/<contract>` labels. Versions are ordered oldest first.
        ///
        /// ```
        /// use capi_contract::Contract;
        /// let c: Contract = "v1beta1".parse().unwrap();
        /// assert_eq!(c, Contract::V1Beta1);
        /// assert!(Contract::V1Beta1 < Contract::V1Beta2);
        /// # #[cfg(not(feature = "test-next-contract"))] {
        /// assert_eq!(Contract::current().label(), "cluster.x-k8s.io/v1beta2");
        /// assert_eq!(Contract::V1Beta2.compatible(), [Contract::V1Beta2, Contract::V1Beta1]);
        /// assert!(Contract::V1Beta1.is_deprecated());
        /// # }
        /// ```
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
        )]
        pub enum Contract {
            $( $(#[doc = $doc])* $(#[cfg($cfg)])? #[serde(rename = $name)] $variant, )+
        }

        impl Contract {
            /// Every contract, oldest first.
            pub const ALL: &'static [Self] = &[$( $(#[cfg($cfg)])? Self::$variant, )+];

            /// `v1beta1`, `v1beta2`, ...
            #[must_use]
            pub const fn as_str(self) -> &'static str {
                match self {
                    $( $(#[cfg($cfg)])? Self::$variant => $name, )+
                }
            }

            /// The CRD label naming the CRD versions that implement this contract:
            /// `cluster.x-k8s.io/<contract>`.
            #[must_use]
            pub const fn label(self) -> &'static str {
                match self {
                    $( $(#[cfg($cfg)])? Self::$variant => concat!("cluster.x-k8s.io/", $name), )+
                }
            }
        }
    };
}

contracts! {
    /// The deprecated contract (core API v1beta1), read by the current core under the
    /// temporary v1beta1 compatibility.
    V1Beta1 => "v1beta1",
    /// The current contract (core API v1beta2).
    V1Beta2 => "v1beta2",
    /// A made-up next contract that changes no field, compiled only with the
    /// `test-next-contract` feature: the test that adding a contract version is this one
    /// line (`crates/capi-contract-check/tests/next_contract.rs`).
    #[cfg(feature = "test-next-contract")]
    V1Beta3 => "v1beta3",
}

impl Contract {
    /// The contract core Cluster API implements today: the newest one.
    pub const CURRENT: Self = Self::ALL[Self::ALL.len() - 1];

    /// The contract core Cluster API implements today: the newest one ([`Contract::CURRENT`]).
    #[must_use]
    pub const fn current() -> Self {
        Self::CURRENT
    }

    /// The oldest contract a core still reads: upstream's temporary v1beta1 compatibility
    /// (`GetCompatibleVersions`: a v1beta2 core reads v1beta1 until v1beta1 is removed). A
    /// policy decision of its own: a new contract version does not end it, moving this line
    /// does.
    pub const OLDEST_READ: Self = Self::V1Beta1;

    /// The contract before this one, if any.
    #[must_use]
    pub fn previous(self) -> Option<Self> {
        let at = Self::ALL.iter().position(|c| *c == self)?;
        at.checked_sub(1).map(|i| Self::ALL[i])
    }

    /// True for every contract but the current one (older contracts a core still reads are
    /// accepted under the temporary compatibility, with a warning).
    #[must_use]
    pub fn is_deprecated(self) -> bool {
        self != Self::CURRENT
    }

    /// Contracts a core at this contract reads, newest first: itself and every older one down
    /// to [`Contract::OLDEST_READ`] (upstream's `GetCompatibleVersions`: a v1beta2 core reads
    /// v1beta1 too).
    #[must_use]
    pub fn compatible(self) -> Vec<Self> {
        Self::ALL
            .iter()
            .rev()
            .copied()
            .filter(|c| *c <= self && *c >= Self::OLDEST_READ.min(self))
            .collect()
    }

    /// Every contract name, oldest first, for messages and CLI help (`v1beta1, v1beta2`).
    #[must_use]
    pub fn names() -> String {
        Self::ALL
            .iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl Default for Contract {
    /// The current contract.
    fn default() -> Self {
        Self::CURRENT
    }
}

impl fmt::Display for Contract {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that is not a known contract version.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown contract version {0:?}: expected one of {names}", names = Contract::names())]
pub struct UnknownContract(pub String);

impl FromStr for Contract {
    type Err = UnknownContract;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .iter()
            .copied()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| UnknownContract(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_names_and_policy_follow_the_list() {
        assert_eq!(Contract::ALL.first(), Some(&Contract::V1Beta1));
        assert!(Contract::ALL.windows(2).all(|w| w[0] < w[1]));
        for c in Contract::ALL {
            assert_eq!(c.as_str().parse::<Contract>(), Ok(*c));
            assert_eq!(c.label(), format!("cluster.x-k8s.io/{c}"));
            assert_eq!(c.compatible()[0], *c);
            assert_eq!(c.is_deprecated(), *c != Contract::current());
        }
        assert_eq!(Contract::V1Beta1.previous(), None);
        assert_eq!(Contract::V1Beta1.compatible(), [Contract::V1Beta1]);
        assert_eq!(
            Contract::V1Beta2.compatible(),
            [Contract::V1Beta2, Contract::V1Beta1]
        );
        let err = "v2".parse::<Contract>().unwrap_err();
        assert!(
            err.to_string()
                .starts_with("unknown contract version \"v2\": expected one of v1beta1, v1beta2")
        );
    }
}
