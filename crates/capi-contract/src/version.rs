//! Kubernetes-aware ordering of API version names (`v1alpha1 < v1beta1 < v1`), as
//! apimachinery's `CompareKubeAwareVersionStrings` orders them.
//!
//! [`kube_core::Version`] implements the same order with one difference: it also accepts
//! `v1alpha` and `v1beta` (no number) as pre-releases, while apimachinery (and so Cluster API's
//! contract label resolution) treats them as non-conformant names. This module uses
//! `kube_core::Version` and maps those two forms back to non-conformant, so a version picked
//! here is the one the Cluster API controllers pick.

use std::cmp::Ordering;

use kube_core::Version;

/// The parsed version, with `v<N>alpha` / `v<N>beta` (no number) treated as non-conformant.
fn parse(v: &str) -> Version {
    match Version::parse(v) {
        Version::Alpha(_, None) | Version::Beta(_, None) => Version::Nonconformant(v.to_owned()),
        parsed => parsed,
    }
}

/// True when `version` is of the form `v<N>`, `v<N>alpha<M>` or `v<N>beta<M>`.
///
/// ```
/// use capi_contract::version::is_kube_like;
/// assert!(is_kube_like("v1beta2") && is_kube_like("v10"));
/// assert!(!is_kube_like("v1beta") && !is_kube_like("1.0") && !is_kube_like("v99999999999"));
/// ```
#[must_use]
pub fn is_kube_like(version: &str) -> bool {
    !matches!(parse(version), Version::Nonconformant(_))
}

/// Kubernetes-aware version ordering: `v1alpha1 < v2alpha1 < v1beta1 < v1beta2 < v1 < v2`;
/// versions not of the form `v<N>[alpha|beta<M>]` sort before all of those, in reverse
/// lexicographic order.
///
/// ```
/// use capi_contract::version::compare_kube_aware;
/// use std::cmp::Ordering;
/// assert_eq!(compare_kube_aware("v1beta2", "v1"), Ordering::Less);
/// assert_eq!(compare_kube_aware("v2alpha1", "v1beta1"), Ordering::Less);
/// assert_eq!(compare_kube_aware("foo", "v1alpha1"), Ordering::Less);
/// ```
#[must_use]
pub fn compare_kube_aware(a: &str, b: &str) -> Ordering {
    parse(a).priority().cmp(&parse(b).priority())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kube_aware_order() {
        let mut v = vec![
            "v10", "v1", "v11beta2", "v1beta2", "v1beta1", "v2alpha1", "v1alpha1", "foo", "bar",
            "v2",
        ];
        v.sort_by(|a, b| compare_kube_aware(a, b));
        assert_eq!(
            v,
            [
                "foo", "bar", "v1alpha1", "v2alpha1", "v1beta1", "v1beta2", "v11beta2", "v1", "v2",
                "v10"
            ]
        );
    }

    #[test]
    fn overflowing_numbers_are_not_kube_like() {
        assert_eq!(
            compare_kube_aware("v99999999999999999999", "v1"),
            Ordering::Less
        );
    }

    #[test]
    fn pre_releases_without_number_are_not_kube_like() {
        assert_eq!(compare_kube_aware("v1beta", "v1alpha1"), Ordering::Less);
        assert_eq!(compare_kube_aware("v1alpha", "v1beta"), Ordering::Greater);
    }
}
