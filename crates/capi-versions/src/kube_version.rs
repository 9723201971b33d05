//! Kubernetes release versions.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

/// A Kubernetes release version: a semantic version (`1.35.0`, `1.37.0-rc.1`, `1.29.0+k3s1`)
/// with an optional leading `v`, as kubelets, control planes and
/// `spec.template.spec.version` write it.
///
/// Equality, ordering and hashing follow SemVer precedence (semver.org, item 11): a
/// pre-release sorts before its release, and build metadata is ignored (`v1.29.0+k3s1` equals
/// `v1.29.0`). [`Display`](fmt::Display) prints the text as read.
#[derive(Clone, Debug)]
pub struct KubeVersion {
    text: String,
    version: semver::Version,
}

/// Text that is not a semantic version (with an optional leading `v`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a Kubernetes version such as v1.34.0: {reason}")]
pub struct ParseKubeVersionError {
    /// The text read.
    pub text: String,
    /// What the SemVer parser refused.
    pub reason: String,
}

impl KubeVersion {
    /// Parses `v1.35.0` or `1.35.0` (pre-release and build metadata allowed).
    ///
    /// # Errors
    /// When the text without its `v` is not a semantic version (`v1.35`, `v1.35.01`).
    ///
    /// ```
    /// use capi_versions::KubeVersion;
    /// let v = KubeVersion::parse("v1.35.0-rc.1+abc").unwrap();
    /// assert_eq!((v.major(), v.minor(), v.patch()), (1, 35, 0));
    /// assert_eq!(v.pre_release(), "rc.1");
    /// assert_eq!(v.build(), "abc");
    /// assert!(KubeVersion::parse("v1.35").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Self, ParseKubeVersionError> {
        semver::Version::parse(without_v(text))
            .map(|version| Self {
                text: text.to_owned(),
                version,
            })
            .map_err(|e| ParseKubeVersionError {
                text: text.to_owned(),
                reason: e.to_string(),
            })
    }

    /// The major and minor version of a semantic version, or of `vMAJOR.MINOR` (canonical
    /// numbers, `v` optional) as managed control planes publish a kube-apiserver version.
    ///
    /// # Errors
    /// When the text is neither (the error is the SemVer parser's).
    ///
    /// ```
    /// use capi_versions::KubeVersion;
    /// assert_eq!(KubeVersion::major_minor("v1.34").unwrap(), (1, 34));
    /// assert_eq!(KubeVersion::major_minor("v1.34.0+rke2r1").unwrap(), (1, 34));
    /// assert!(KubeVersion::major_minor("v1.034").is_err());
    /// assert!(KubeVersion::major_minor("latest").is_err());
    /// ```
    pub fn major_minor(text: &str) -> Result<(u64, u64), ParseKubeVersionError> {
        let error = match Self::parse(text) {
            Ok(v) => return Ok((v.major(), v.minor())),
            Err(e) => e,
        };
        let number = |s: &str| {
            let canonical = !s.is_empty()
                && s.bytes().all(|b| b.is_ascii_digit())
                && (s == "0" || !s.starts_with('0'));
            canonical.then(|| s.parse::<u64>().ok()).flatten()
        };
        if let Some((major, minor)) = without_v(text).split_once('.')
            && let (Some(major), Some(minor)) = (number(major), number(minor))
        {
            return Ok((major, minor));
        }
        Err(error)
    }

    /// The major version.
    #[must_use]
    pub fn major(&self) -> u64 {
        self.version.major
    }

    /// The minor version.
    #[must_use]
    pub fn minor(&self) -> u64 {
        self.version.minor
    }

    /// The patch version.
    #[must_use]
    pub fn patch(&self) -> u64 {
        self.version.patch
    }

    /// The pre-release part after `-` (`rc.1`), empty for a release.
    #[must_use]
    pub fn pre_release(&self) -> &str {
        self.version.pre.as_str()
    }

    /// The build metadata after `+` (`k3s1`), empty when there is none.
    #[must_use]
    pub fn build(&self) -> &str {
        self.version.build.as_str()
    }

    /// The semantic version itself.
    #[must_use]
    pub fn semver(&self) -> &semver::Version {
        &self.version
    }
}

/// The text after an optional leading `v`.
fn without_v(text: &str) -> &str {
    text.strip_prefix('v').unwrap_or(text)
}

impl FromStr for KubeVersion {
    type Err = ParseKubeVersionError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse(text)
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl PartialEq for KubeVersion {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for KubeVersion {}

impl PartialOrd for KubeVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for KubeVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        self.version.cmp_precedence(&other.version)
    }
}

impl Hash for KubeVersion {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let v = &self.version;
        (v.major, v.minor, v.patch, v.pre.as_str()).hash(state);
    }
}
