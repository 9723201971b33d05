//! The Kubernetes version skew policy between kube-apiserver and kubelets, for the Nodes of a
//! MachinePool. Pure functions; no I/O.
//!
//! Policy (<https://kubernetes.io/releases/version-skew-policy/#kubelet>, since Kubernetes
//! 1.28): *kubelet must not be newer than kube-apiserver, and may be up to three minor
//! versions older*. With several API servers (an upgrade in progress) the oldest counts.
//!
//! | kubelet minor vs. oldest kube-apiserver minor | verdict |
//! |---|---|
//! | newer (any amount) | error: [`SkewRule::KubeletNewerThanApiServer`] |
//! | equal, 1 or 2 older | allowed |
//! | exactly 3 older | warning: [`SkewRule::AtTheEdgeOfTheWindow`] (the control plane cannot be upgraded again before the pool) |
//! | 4 or more older | error: [`SkewRule::KubeletTooOld`] |
//! | another major version | error: [`SkewRule::MajorVersionDiffers`] |
//!
//! Only major and minor versions count: patch versions, pre-releases (`-rc.1`) and build
//! metadata (`+build.1`) never change a verdict (a `v1.35.0-rc.1` kubelet is a 1.35 kubelet).
//! A leading `v` is optional. A version that does not parse as semantic version is an error of
//! its own ([`SkewRule::InvalidVersion`]).
//!
//! ```
//! use capi_machinepool_api::skew::{Severity, VersionAt, check};
//! let cp = [VersionAt::new("v1.34.0", "KubeadmControlPlane default/cp spec.version")];
//! let pool = [VersionAt::new("v1.35.0", "MachinePool default/mp spec.template.spec.version")];
//! let findings = check(&cp, &pool);
//! assert_eq!(findings[0].severity, Severity::Error);
//! assert!(findings[0].to_string().contains("v1.35.0"));
//! ```

use std::fmt;

use crate::excerpt::Excerpt;

/// How many minor versions a kubelet may be older than kube-apiserver.
pub const MAX_KUBELET_MINORS_BEHIND: u64 = 3;

/// A version and where it was read (`Kind ns/name field`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionAt {
    /// The version text as written (`v1.34.2`, `1.34.2`, ...).
    pub version: String,
    /// Where it was read.
    pub at: String,
}

impl VersionAt {
    /// A version read at `at`.
    #[must_use]
    pub fn new(version: impl Into<String>, at: impl Into<String>) -> Self {
        Self {
            version: version.into(),
            at: at.into(),
        }
    }
}

/// The parsed version, `v` prefix allowed.
///
/// # Errors
/// The semver parser's message when the text is not a semantic version.
///
/// ```
/// use capi_machinepool_api::skew::parse_version;
/// assert_eq!(parse_version("v1.35.0-rc.1+abc").unwrap().minor, 35);
/// assert!(parse_version("v1.35").is_err());
/// ```
pub fn parse_version(text: &str) -> Result<semver::Version, semver::Error> {
    semver::Version::parse(text.strip_prefix('v').unwrap_or(text))
}

/// Which part of the policy a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SkewRule {
    /// The kubelet's minor version is newer than the oldest kube-apiserver's.
    KubeletNewerThanApiServer,
    /// The kubelet is more than three minor versions older.
    KubeletTooOld,
    /// The kubelet is exactly three minor versions older: allowed, at the edge.
    AtTheEdgeOfTheWindow,
    /// The major versions differ.
    MajorVersionDiffers,
    /// A version does not parse.
    InvalidVersion,
}

impl SkewRule {
    /// A short stable name (`kubelet-newer-than-apiserver`, ...).
    #[must_use]
    pub fn id(self) -> &'static str {
        match self {
            Self::KubeletNewerThanApiServer => "kubelet-newer-than-apiserver",
            Self::KubeletTooOld => "kubelet-too-old",
            Self::AtTheEdgeOfTheWindow => "kubelet-at-the-edge-of-the-window",
            Self::MajorVersionDiffers => "major-version-differs",
            Self::InvalidVersion => "invalid-version",
        }
    }
}

/// Error (the rollout breaks the policy) or warning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Breaks the skew policy (or cannot be judged).
    Error,
    /// Allowed, but at the edge.
    Warning,
}

/// One verdict of the policy on one kubelet version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkewFinding {
    /// The rule.
    pub rule: SkewRule,
    /// How bad it is.
    pub severity: Severity,
    /// The (oldest) kube-apiserver version compared with, and where it was read.
    pub control_plane: VersionAt,
    /// The kubelet version, and where it was read.
    pub kubelet: VersionAt,
    /// What the policy says about it.
    pub message: String,
}

impl fmt::Display for SkewFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: kubelet {} ({}) vs kube-apiserver {} ({}): {}",
            self.rule.id(),
            Excerpt::new(&self.kubelet.version),
            self.kubelet.at,
            Excerpt::new(&self.control_plane.version),
            self.control_plane.at,
            self.message
        )
    }
}

/// The verdict of the policy for one kubelet against one kube-apiserver (both parsed).
#[must_use]
pub fn verdict(
    api_server: &semver::Version,
    kubelet: &semver::Version,
) -> Option<(SkewRule, Severity, String)> {
    if api_server.major != kubelet.major {
        return Some((
            SkewRule::MajorVersionDiffers,
            Severity::Error,
            format!(
                "major versions {} and {} differ",
                kubelet.major, api_server.major
            ),
        ));
    }
    if kubelet.minor > api_server.minor {
        return Some((
            SkewRule::KubeletNewerThanApiServer,
            Severity::Error,
            format!(
                "kubelet 1.{} is newer than kube-apiserver 1.{}: upgrade the control plane first",
                kubelet.minor, api_server.minor
            ),
        ));
    }
    let behind = api_server.minor - kubelet.minor;
    if behind > MAX_KUBELET_MINORS_BEHIND {
        return Some((
            SkewRule::KubeletTooOld,
            Severity::Error,
            format!(
                "kubelet is {behind} minor versions older than kube-apiserver (at most {MAX_KUBELET_MINORS_BEHIND})"
            ),
        ));
    }
    (behind == MAX_KUBELET_MINORS_BEHIND).then(|| {
        (
            SkewRule::AtTheEdgeOfTheWindow,
            Severity::Warning,
            format!(
                "kubelet is {behind} minor versions older than kube-apiserver, the most allowed: upgrade the pool before the control plane's next minor upgrade"
            ),
        )
    })
}

fn invalid(at: &VersionAt, other: &VersionAt, e: &semver::Error) -> SkewFinding {
    SkewFinding {
        rule: SkewRule::InvalidVersion,
        severity: Severity::Error,
        control_plane: other.clone(),
        kubelet: at.clone(),
        message: format!(
            "\"{}\" at {} is not a semantic version ({e})",
            Excerpt::new(&at.version),
            at.at
        ),
    }
}

/// Checks every kubelet version against the oldest of the control plane versions (its
/// `spec.version`, `status.version`, the versions of its Machines: whatever is known).
/// Empty version texts (unset) are ignored; with no control plane version nothing is checked.
#[must_use]
pub fn check(control_plane: &[VersionAt], kubelets: &[VersionAt]) -> Vec<SkewFinding> {
    let mut findings = Vec::new();
    let mut oldest: Option<(semver::Version, &VersionAt)> = None;
    for cp in control_plane.iter().filter(|v| !v.version.is_empty()) {
        match parse_version(&cp.version) {
            Ok(v) => {
                if oldest
                    .as_ref()
                    .is_none_or(|(o, _)| (v.major, v.minor) < (o.major, o.minor))
                {
                    oldest = Some((v, cp));
                }
            }
            Err(e) => findings.push(SkewFinding {
                rule: SkewRule::InvalidVersion,
                severity: Severity::Error,
                control_plane: cp.clone(),
                kubelet: cp.clone(),
                message: format!(
                    "control plane version \"{}\" at {} is not a semantic version ({e})",
                    Excerpt::new(&cp.version),
                    cp.at
                ),
            }),
        }
    }
    let Some((api_server, cp_at)) = oldest else {
        return findings;
    };
    for kubelet in kubelets.iter().filter(|v| !v.version.is_empty()) {
        match parse_version(&kubelet.version) {
            Ok(v) => {
                if let Some((rule, severity, message)) = verdict(&api_server, &v) {
                    findings.push(SkewFinding {
                        rule,
                        severity,
                        control_plane: cp_at.clone(),
                        kubelet: kubelet.clone(),
                        message,
                    });
                }
            }
            Err(e) => findings.push(invalid(kubelet, cp_at, &e)),
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(cp: &str, kubelet: &str) -> Option<(SkewRule, Severity)> {
        let found = check(
            &[VersionAt::new(cp, "cp")],
            &[VersionAt::new(kubelet, "mp")],
        );
        assert!(found.len() <= 1);
        found.first().map(|f| (f.rule, f.severity))
    }

    #[test]
    fn policy_edges() {
        use Severity::{Error, Warning};
        use SkewRule::*;
        assert_eq!(one("v1.34.0", "v1.34.0"), None, "equal");
        assert_eq!(
            one("v1.34.0", "v1.34.9"),
            None,
            "patch versions do not count"
        );
        assert_eq!(
            one("v1.34.0", "v1.35.0"),
            Some((KubeletNewerThanApiServer, Error))
        );
        assert_eq!(one("v1.34.0", "v1.33.2"), None, "one older");
        assert_eq!(one("v1.34.0", "v1.32.0"), None, "two older");
        assert_eq!(
            one("v1.34.0", "v1.31.0"),
            Some((AtTheEdgeOfTheWindow, Warning)),
            "exactly three"
        );
        assert_eq!(
            one("v1.34.0", "v1.30.0"),
            Some((KubeletTooOld, Error)),
            "four older"
        );
        assert_eq!(
            one("v1.34.0", "v2.34.0"),
            Some((MajorVersionDiffers, Error))
        );
        assert_eq!(
            one("v1.34.0", "v1.35.0-rc.1"),
            Some((KubeletNewerThanApiServer, Error)),
            "a 1.35 pre-release is 1.35"
        );
        assert_eq!(
            one("v1.35.0-alpha.0", "v1.35.0"),
            None,
            "pre-release control plane, same minor"
        );
        assert_eq!(
            one("1.34.0+build.7", "v1.34.1"),
            None,
            "no v, build metadata"
        );
        assert_eq!(one("v1.34.0", "v1.35"), Some((InvalidVersion, Error)));
        assert_eq!(one("v1.34.0", ""), None, "unset");
    }

    #[test]
    fn the_oldest_api_server_counts() {
        let cp = [
            VersionAt::new("v1.35.0", "spec.version"),
            VersionAt::new("v1.34.2", "status.version"),
        ];
        let found = check(&cp, &[VersionAt::new("v1.35.0", "mp")]);
        assert_eq!(found[0].rule, SkewRule::KubeletNewerThanApiServer);
        assert_eq!(found[0].control_plane.at, "status.version");
    }
}
