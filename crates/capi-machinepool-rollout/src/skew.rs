//! The Kubernetes version skew policy between kube-apiserver and the kubelets of a
//! MachinePool, encoded from the policy's text. Pure functions; no I/O.
//!
//! The policy (kubernetes/website `content/en/releases/version-skew-policy.md`, "Supported
//! version skew"), sentence by sentence, and the rule each sentence becomes:
//!
//! | policy sentence | rule |
//! |---|---|
//! | "the newest and oldest `kube-apiserver` instances must be within one minor version" | [`SkewRule::ApiServersTooFarApart`] (error) |
//! | "`kubelet` must not be newer than `kube-apiserver`" | [`SkewRule::KubeletNewerThanApiServer`] (error), judged against the **oldest** kube-apiserver |
//! | "`kubelet` may be up to three minor versions older than `kube-apiserver`" | [`SkewRule::KubeletTooOld`] (error) beyond three, judged against the **newest** kube-apiserver |
//! | "(`kubelet` < 1.25 may only be up to two minor versions older than `kube-apiserver`)" | the same rule with two for kubelets older than 1.25 |
//! | "If version skew exists between `kube-apiserver` instances in an HA cluster, this narrows the allowed `kubelet` versions": at 1.xx and 1.(xx-1), "`kubelet` is supported at 1.(xx-1), 1.(xx-2), and 1.(xx-3)" | the two judgements above together: not newer than the oldest, not more than the window older than the newest |
//!
//! Beyond the policy, a kubelet exactly at the edge of its window is a warning
//! ([`SkewRule::AtTheEdgeOfTheWindow`]): the control plane cannot take its next minor upgrade
//! before the pool does. Versions of another major are an error
//! ([`SkewRule::MajorVersionDiffers`]).
//!
//! Only major and minor versions count: patch versions, pre-releases (`-rc.1`) and build
//! metadata (`+rke2r1`) never change a verdict (a `v1.35.0-rc.1` kubelet is a 1.35 kubelet). A
//! leading `v` is optional. Kubelet versions must be semantic versions (the MachinePool
//! webhook requires it); control plane versions read from objects may also be `vMAJOR.MINOR`
//! (managed control planes such as AWSManagedControlPlane publish `v1.34`).
//!
//! ```
//! use capi_machinepool_rollout::skew::{SkewRule, VersionAt, check};
//! use capi_diagnostics::Severity;
//! // A control plane upgrade in progress: apiservers at 1.35 and 1.34.
//! let cp = [
//!     VersionAt::new("v1.35.0", "RKE2ControlPlane default/cp spec.version"),
//!     VersionAt::new("v1.34.0+rke2r1", "RKE2ControlPlane default/cp status.version"),
//! ];
//! let pool = [VersionAt::new("v1.31.0", "MachinePool default/mp spec.template.spec.version")];
//! let findings = check(&cp, &pool);
//! assert_eq!(findings[0].rule, SkewRule::KubeletTooOld);
//! assert_eq!(findings[0].severity, Some(Severity::Error));
//! ```

use std::fmt;

use capi_diagnostics::{Excerpt, Severity};

use capi_versions::{KubeVersion, ParseKubeVersionError};

/// How many minor versions a kubelet of 1.25 or newer may be older than kube-apiserver.
pub const MAX_KUBELET_MINORS_BEHIND: u64 = 3;

/// How many minor versions a kubelet older than 1.25 may be older than kube-apiserver.
pub const MAX_PRE_1_25_KUBELET_MINORS_BEHIND: u64 = 2;

/// How many minor versions the newest and oldest kube-apiserver may be apart.
pub const MAX_API_SERVER_MINOR_SPREAD: u64 = 1;

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

impl fmt::Display for VersionAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", Excerpt::new(&self.version), self.at)
    }
}

/// The parsed kubelet version, `v` prefix allowed.
///
/// # Errors
/// When the text is not a semantic version.
///
/// ```
/// use capi_machinepool_rollout::skew::parse_version;
/// assert_eq!(parse_version("v1.35.0-rc.1+abc").unwrap().minor(), 35);
/// assert!(parse_version("v1.35").is_err());
/// ```
pub fn parse_version(text: &str) -> Result<KubeVersion, ParseKubeVersionError> {
    KubeVersion::parse(text)
}

/// A major and minor version: all the policy compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MinorVersion {
    /// Major version.
    pub major: u64,
    /// Minor version.
    pub minor: u64,
}

impl MinorVersion {
    /// A kubelet's version: a semantic version, `v` prefix allowed.
    ///
    /// # Errors
    /// When the text is not a semantic version.
    pub fn kubelet(text: &str) -> Result<Self, ParseKubeVersionError> {
        parse_version(text).map(|v| Self::from(&v))
    }

    /// A kube-apiserver version read from a control plane object: a semantic version, or
    /// `vMAJOR.MINOR` as managed control planes publish it.
    ///
    /// # Errors
    /// When the text is neither.
    ///
    /// ```
    /// use capi_machinepool_rollout::skew::MinorVersion;
    /// assert_eq!(MinorVersion::api_server("v1.34").unwrap(), MinorVersion { major: 1, minor: 34 });
    /// assert_eq!(MinorVersion::api_server("v1.34.0+rke2r1").unwrap().minor, 34);
    /// assert!(MinorVersion::api_server("latest").is_err());
    /// ```
    pub fn api_server(text: &str) -> Result<Self, ParseKubeVersionError> {
        KubeVersion::major_minor(text).map(|(major, minor)| Self { major, minor })
    }
}

impl From<&KubeVersion> for MinorVersion {
    fn from(v: &KubeVersion) -> Self {
        Self {
            major: v.major(),
            minor: v.minor(),
        }
    }
}

impl fmt::Display for MinorVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Which part of the policy a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SkewRule {
    /// The kubelet's minor version is newer than the oldest kube-apiserver's.
    KubeletNewerThanApiServer,
    /// The kubelet is older than its window allows (three minors; two below 1.25), counted
    /// from the newest kube-apiserver.
    KubeletTooOld,
    /// The kubelet is exactly as old as its window allows: allowed, at the edge.
    AtTheEdgeOfTheWindow,
    /// The major versions differ.
    MajorVersionDiffers,
    /// The control plane's own versions are more than one minor apart.
    ApiServersTooFarApart,
    /// A kubelet version does not parse.
    InvalidKubeletVersion,
    /// A control plane version does not parse.
    InvalidControlPlaneVersion,
    /// Nothing was checked: no control plane version is known (a warning), or the pool has no
    /// version (a note).
    NotChecked,
    /// The control plane's desired version (`spec.version`) is ahead of every running one: an
    /// upgrade in progress (a note naming how the control plane gets there; kubelets are
    /// judged against what runs now and next, [`crate::apiservers`]).
    ControlPlaneUpgrading,
    /// The kubelet fits what runs now and next, but not a desired version reached by later
    /// steps (EKS): upgrade the pool before the control plane takes them (a note).
    DesiredNarrowsWindow,
    /// The step upstream's topology controller takes next for a ClusterClass cluster's
    /// control plane, and the plan it comes from (a note,
    /// [`topology`](crate::topology)).
    TopologyNextStep,
    /// The step upstream's topology controller takes next leaves a kubelet of the pool
    /// outside the policy (an error naming the step and why upstream does not wait).
    UpstreamBreaksPool,
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
            Self::ApiServersTooFarApart => "apiservers-too-far-apart",
            Self::InvalidKubeletVersion => "invalid-kubelet-version",
            Self::InvalidControlPlaneVersion => "invalid-control-plane-version",
            Self::NotChecked => "not-checked",
            Self::ControlPlaneUpgrading => "control-plane-upgrading",
            Self::DesiredNarrowsWindow => "desired-narrows-window",
            Self::TopologyNextStep => "topology-next-step",
            Self::UpstreamBreaksPool => "upstream-breaks-pool",
        }
    }
}

impl fmt::Display for SkewRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// One verdict of the policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkewFinding {
    /// The rule.
    pub rule: SkewRule,
    /// How bad it is; `None` for a note (a hint, or a check that did not apply).
    pub severity: Option<Severity>,
    /// The kubelet version judged, when the finding is about a kubelet.
    pub kubelet: Option<VersionAt>,
    /// The kube-apiserver version(s) it was judged against, or the control plane versions the
    /// finding is about.
    pub api_servers: Vec<VersionAt>,
    /// What the policy says about it.
    pub message: String,
}

impl fmt::Display for SkewFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.rule)?;
        if let Some(kubelet) = &self.kubelet {
            write!(f, "kubelet {kubelet}")?;
            if !self.api_servers.is_empty() {
                f.write_str(" vs ")?;
            }
        }
        for (i, api_server) in self.api_servers.iter().enumerate() {
            let sep = if i == 0 { "kube-apiserver " } else { " and " };
            write!(f, "{sep}{api_server}")?;
        }
        if self.kubelet.is_some() || !self.api_servers.is_empty() {
            f.write_str(": ")?;
        }
        f.write_str(&self.message)
    }
}

/// The kube-apiserver versions of a control plane, reduced to what the policy compares: the
/// oldest and the newest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiServers {
    oldest: (MinorVersion, VersionAt),
    newest: (MinorVersion, VersionAt),
}

impl ApiServers {
    /// Reads the control plane versions (`spec.version`, `status.version`, ...): empty texts are
    /// unset and ignored; versions that do not parse become findings. `None` when no version
    /// is known.
    #[must_use]
    pub fn from_versions(versions: &[VersionAt]) -> (Option<Self>, Vec<SkewFinding>) {
        let mut findings = Vec::new();
        let mut window: Option<Self> = None;
        for at in versions.iter().filter(|v| !v.version.is_empty()) {
            match MinorVersion::api_server(&at.version) {
                Ok(v) => {
                    let w = window.get_or_insert_with(|| Self {
                        oldest: (v, at.clone()),
                        newest: (v, at.clone()),
                    });
                    if v < w.oldest.0 {
                        w.oldest = (v, at.clone());
                    }
                    if v > w.newest.0 {
                        w.newest = (v, at.clone());
                    }
                }
                Err(e) => findings.push(SkewFinding {
                    rule: SkewRule::InvalidControlPlaneVersion,
                    severity: Some(Severity::Error),
                    kubelet: None,
                    api_servers: vec![at.clone()],
                    message: format!(
                        "not a Kubernetes version ({}): the version skew cannot be judged",
                        e.reason
                    ),
                }),
            }
        }
        (window, findings)
    }

    /// The oldest kube-apiserver minor version and where it was read.
    #[must_use]
    pub fn oldest(&self) -> (MinorVersion, &VersionAt) {
        (self.oldest.0, &self.oldest.1)
    }

    /// The newest kube-apiserver minor version and where it was read.
    #[must_use]
    pub fn newest(&self) -> (MinorVersion, &VersionAt) {
        (self.newest.0, &self.newest.1)
    }

    /// The control plane's own finding: its newest and oldest versions more than one minor
    /// apart, or of different majors.
    #[must_use]
    pub fn spread_finding(&self) -> Option<SkewFinding> {
        let (old, new) = (self.oldest.0, self.newest.0);
        let apart = old.major != new.major || new.minor - old.minor > MAX_API_SERVER_MINOR_SPREAD;
        apart.then(|| SkewFinding {
            rule: SkewRule::ApiServersTooFarApart,
            severity: Some(Severity::Error),
            kubelet: None,
            api_servers: vec![self.newest.1.clone(), self.oldest.1.clone()],
            message: format!(
                "kube-apiserver {new} and {old} are more than one minor version apart; the policy allows one"
            ),
        })
    }

    /// The policy's verdict on one kubelet minor version, or `None` when it is inside the
    /// window and not at its edge.
    #[must_use]
    pub fn verdict(
        &self,
        kubelet: MinorVersion,
    ) -> Option<(SkewRule, Severity, &VersionAt, String)> {
        let (oldest, oldest_at) = self.oldest();
        let (newest, newest_at) = self.newest();
        if kubelet.major != oldest.major || kubelet.major != newest.major {
            return Some((
                SkewRule::MajorVersionDiffers,
                Severity::Error,
                newest_at,
                format!(
                    "major versions {} and {} differ",
                    kubelet.major, newest.major
                ),
            ));
        }
        if kubelet.minor > oldest.minor {
            let which = if oldest == newest {
                ""
            } else {
                " (the oldest kube-apiserver)"
            };
            return Some((
                SkewRule::KubeletNewerThanApiServer,
                Severity::Error,
                oldest_at,
                format!(
                    "kubelet {kubelet} is newer than kube-apiserver {oldest}{which}: upgrade the control plane first"
                ),
            ));
        }
        let window = window_for(kubelet);
        let behind = newest.minor - kubelet.minor;
        let which = if oldest == newest {
            ""
        } else {
            " (the newest kube-apiserver)"
        };
        if behind > window {
            return Some((
                SkewRule::KubeletTooOld,
                Severity::Error,
                newest_at,
                format!(
                    "kubelet {kubelet} is {behind} minor versions older than kube-apiserver {newest}{which}; a {} kubelet may be at most {window} older",
                    kubelet_class(kubelet)
                ),
            ));
        }
        (behind == window).then(|| {
            (
                SkewRule::AtTheEdgeOfTheWindow,
                Severity::Warning,
                newest_at,
                format!(
                    "kubelet {kubelet} is {behind} minor versions older than kube-apiserver {newest}{which}, the most a {} kubelet may be: upgrade the pool before the control plane's next minor upgrade",
                    kubelet_class(kubelet)
                ),
            )
        })
    }
}

/// How many minor versions older than kube-apiserver a kubelet may be.
#[must_use]
pub fn window_for(kubelet: MinorVersion) -> u64 {
    if kubelet.major == 1 && kubelet.minor < 25 {
        MAX_PRE_1_25_KUBELET_MINORS_BEHIND
    } else {
        MAX_KUBELET_MINORS_BEHIND
    }
}

fn kubelet_class(kubelet: MinorVersion) -> &'static str {
    if window_for(kubelet) == MAX_PRE_1_25_KUBELET_MINORS_BEHIND {
        "pre-1.25"
    } else {
        "1.25+"
    }
}

/// Checks every kubelet version against the control plane versions (its `spec.version`,
/// `status.version`: whatever is known, all treated as kube-apiserver versions that may run
/// at once). Empty version texts (unset) are ignored; with no control plane version, nothing
/// is checked and nothing is returned (see [`SkewRule::NotChecked`] for saying so).
#[must_use]
pub fn check(control_plane: &[VersionAt], kubelets: &[VersionAt]) -> Vec<SkewFinding> {
    let (window, mut findings) = ApiServers::from_versions(control_plane);
    let Some(window) = window else {
        return findings;
    };
    findings.extend(window.spread_finding());
    for kubelet in kubelets.iter().filter(|v| !v.version.is_empty()) {
        match MinorVersion::kubelet(&kubelet.version) {
            Ok(v) => {
                if let Some((rule, severity, against, message)) = window.verdict(v) {
                    findings.push(SkewFinding {
                        rule,
                        severity: Some(severity),
                        kubelet: Some(kubelet.clone()),
                        api_servers: vec![against.clone()],
                        message,
                    });
                }
            }
            Err(e) => findings.push(SkewFinding {
                rule: SkewRule::InvalidKubeletVersion,
                severity: Some(Severity::Error),
                kubelet: Some(kubelet.clone()),
                api_servers: Vec::new(),
                message: format!(
                    "not a semantic version ({}): the version skew cannot be judged",
                    e.reason
                ),
            }),
        }
    }
    findings
}

/// Which versions an upgrade of the pool may pick so that its kubelets fit both the oldest
/// running kube-apiserver and the desired one (a 1.25+ kubelet: up to three minors older).
pub(crate) fn upgrade_range(oldest_running: MinorVersion, desired: MinorVersion) -> String {
    let lowest = desired.minor.saturating_sub(MAX_KUBELET_MINORS_BEHIND);
    if lowest > oldest_running.minor || desired.major != oldest_running.major {
        format!(
            "no kubelet version fits both {oldest_running} (oldest running) and {desired} (desired)"
        )
    } else {
        format!(
            "an upgrade of the pool to {}.{lowest} .. {oldest_running} fits both the running and the desired kube-apiserver",
            desired.major
        )
    }
}

/// The finding that says a pool's skew was not checked, and why (a warning).
#[must_use]
pub fn not_checked(why: impl fmt::Display) -> SkewFinding {
    SkewFinding {
        rule: SkewRule::NotChecked,
        severity: Some(Severity::Warning),
        kubelet: None,
        api_servers: Vec::new(),
        message: why.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(cp: &[&str], kubelet: &str) -> Vec<(SkewRule, Severity)> {
        let cp: Vec<VersionAt> = cp.iter().map(|v| VersionAt::new(*v, "cp")).collect();
        check(&cp, &[VersionAt::new(kubelet, "mp")])
            .iter()
            .filter_map(|f| Some((f.rule, f.severity?)))
            .collect()
    }

    #[test]
    fn messages_name_each_side_for_what_it_is() {
        let found = check(
            &[VersionAt::new(
                "garbage",
                "KubeadmControlPlane ns/cp spec.version",
            )],
            &[VersionAt::new(
                "v1.34.0",
                "MachinePool ns/mp spec.template.spec.version",
            )],
        );
        let text = found[0].to_string();
        assert!(text.starts_with("invalid-control-plane-version: kube-apiserver garbage (KubeadmControlPlane ns/cp spec.version)"), "{text}");
        assert!(!text.contains("kubelet"), "{text}");
        let found = check(
            &[VersionAt::new("v1.34.0", "cp")],
            &[VersionAt::new("v1.35", "mp")],
        );
        assert_eq!(found[0].rule, SkewRule::InvalidKubeletVersion);
        assert!(
            found[0]
                .to_string()
                .starts_with("invalid-kubelet-version: kubelet v1.35 (mp): ")
        );
    }

    #[test]
    fn versions_compare_by_major_and_minor_only() {
        assert!(rules(&["v1.34.0"], "v1.34.9").is_empty(), "patch");
        assert!(
            rules(&["v1.35.0-alpha.0"], "v1.35.0").is_empty(),
            "pre-release control plane"
        );
        assert!(
            rules(&["1.34.0+build.7"], "v1.34.1").is_empty(),
            "no v, build metadata"
        );
        assert_eq!(
            rules(&["v1.34.0"], "v1.35.0-rc.1"),
            vec![(SkewRule::KubeletNewerThanApiServer, Severity::Error)],
            "a 1.35 pre-release is 1.35"
        );
        assert!(rules(&["v1.34.0"], "").is_empty(), "unset");
        assert!(
            rules(&[""], "v1.34.0").is_empty(),
            "no control plane version"
        );
    }

    #[test]
    fn managed_control_planes_publish_major_minor() {
        assert!(rules(&["v1.34"], "v1.34.2").is_empty());
        assert_eq!(
            rules(&["v1.34"], "v1.35.0"),
            vec![(SkewRule::KubeletNewerThanApiServer, Severity::Error)]
        );
        for bad in ["v1", "v1.x", "v1.34.", "latest", "v01.34"] {
            assert_eq!(
                rules(&[bad], "v1.34.0"),
                vec![(SkewRule::InvalidControlPlaneVersion, Severity::Error)],
                "{bad}"
            );
        }
    }
}
