//! Which replicas run the template version: a kubelet's (or Machine's) version against
//! `spec.template.spec.version`, and `status.versions` tallied against it.

use capi_machinepool_api::v1beta2::MachinePool;
use capi_versions::KubeVersion;

/// The version part of a Kubernetes version without a leading `v`.
fn without_v(version: &str) -> &str {
    version.strip_prefix('v').unwrap_or(version)
}

/// True when a kubelet (or Machine) version runs the template version `desired`, both read
/// as [`KubeVersion`]s (the workspace's one version grammar).
///
/// Equal versions match (a leading `v` is optional on both). A desired release version
/// (`v1.29.0`, no pre-release or build part) also matches a kubelet version that only adds a
/// vendor tag as its pre-release or build part: managed pools report kubelets such as
/// `v1.29.0-eks-5e0fdde` (EKS), `v1.29.1-gke.1589018` (GKE) or `v1.29.0+k3s1`. A Kubernetes
/// pre-release of it (`v1.29.0-rc.1`) is another version, and a desired pre-release
/// (`v1.37.0-rc.1`) must match exactly. Texts that are not versions match only as equal texts.
///
/// ```
/// use capi_machinepool_status::conditions::runs_version;
/// assert!(runs_version("v1.35.0", "v1.35.0"));
/// assert!(runs_version("v1.29.0", "v1.29.0-eks-5e0fdde"));
/// assert!(!runs_version("v1.35.0", "v1.34.2"));
/// assert!(!runs_version("v1.35.0", "v1.35.01"));
/// assert!(!runs_version("v1.37.0-rc.1", "v1.37.0"));
/// assert!(!runs_version("v1.37.0", "v1.37.0-rc.1"));
/// ```
#[must_use]
pub fn runs_version(desired: &str, actual: &str) -> bool {
    let (Ok(d), Ok(a)) = (KubeVersion::parse(desired), KubeVersion::parse(actual)) else {
        return without_v(desired) == without_v(actual);
    };
    if (d.major(), d.minor(), d.patch()) != (a.major(), a.minor(), a.patch()) {
        return false;
    }
    if d.pre_release().is_empty() && d.build().is_empty() {
        a.pre_release().is_empty() || is_vendor_tag(a.pre_release())
    } else {
        d.pre_release() == a.pre_release() && d.build() == a.build()
    }
}

/// A pre-release part a vendor adds to a release (`eks-5e0fdde`, `gke.1589018`), as opposed
/// to a Kubernetes pre-release (`alpha.N`, `beta.N`, `rc.N`, the only pre-release names
/// Kubernetes releases use), which is another version.
fn is_vendor_tag(tag: &str) -> bool {
    !["alpha", "beta", "rc"].iter().any(|p| {
        tag.strip_prefix(p).is_some_and(|after| {
            after.is_empty()
                || after.starts_with(['.', '-'])
                || after.starts_with(|c: char| c.is_ascii_digit())
        })
    })
}

/// Replicas of `status.versions` at the template version and on other versions. Without a
/// template version every replica counts as at it (there is nothing to roll out).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VersionTally {
    /// Replicas whose kubelet runs `spec.template.spec.version` (see [`runs_version`]).
    pub at_template: i32,
    /// Entries of `status.versions` on another version.
    pub behind: Vec<(String, i32)>,
}

impl VersionTally {
    /// Replicas on another version.
    #[must_use]
    pub fn not_at_template(&self) -> i32 {
        self.behind
            .iter()
            .fold(0_i32, |sum, (_, n)| sum.saturating_add(*n))
    }
}

/// Tallies `status.versions` against `spec.template.spec.version`.
#[must_use]
pub fn version_tally(mp: &MachinePool) -> VersionTally {
    let desired = &mp.spec.template.spec.version;
    if desired.is_empty() {
        return VersionTally {
            at_template: mp.status.replicas.unwrap_or(0),
            behind: Vec::new(),
        };
    }
    let mut tally = VersionTally::default();
    for v in mp.status.versions.iter().flatten() {
        if runs_version(desired, &v.version) {
            tally.at_template = tally.at_template.saturating_add(v.replicas);
        } else {
            tally.behind.push((v.version.clone(), v.replicas));
        }
    }
    tally
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kubelet versions as managed services report them (`kubectl get nodes -o wide`, column
    /// VERSION): EKS `v1.29.0-eks-5e0fdde`, GKE `v1.29.1-gke.1589018`, k3s `v1.29.0+k3s1`;
    /// AKS and kubeadm report the plain release.
    #[test]
    fn runs_version_table() {
        let cases = [
            ("v1.35.0", "v1.35.0", true),
            ("1.35.0", "v1.35.0", true),
            ("v1.29.0", "v1.29.0-eks-5e0fdde", true),
            ("v1.29.1", "v1.29.1-gke.1589018", true),
            ("v1.29.0", "v1.29.0+k3s1", true),
            ("v1.35.0", "v1.34.2", false),
            ("v1.35.0", "v1.35.01", false),
            ("v1.35.0", "v1.35", false),
            ("v1.37.0-rc.1", "v1.37.0-rc.1", true),
            ("v1.37.0-rc.1", "v1.37.0", false),
            ("v1.37.0-rc.1", "v1.37.0-rc.1-eks-1", false),
            // Kubernetes pre-releases are other versions (found by the property test in
            // tests/upgrade.rs): alpha, beta and rc are the only names Kubernetes uses.
            ("v1.35.0", "v1.35.0-rc.1", false),
            ("v1.35.0", "v1.35.0-alpha.3", false),
            ("v1.35.0", "v1.35.0-beta.0", false),
            ("v1.35.0", "v1.35.0-", false),
        ];
        for (desired, actual, want) in cases {
            assert_eq!(runs_version(desired, actual), want, "{desired} vs {actual}");
        }
    }

    #[test]
    fn tally_without_template_version_counts_every_replica() {
        let mut mp = MachinePool::default();
        mp.status.replicas = Some(4);
        assert_eq!(
            version_tally(&mp),
            VersionTally {
                at_template: 4,
                behind: Vec::new()
            }
        );
    }
}
