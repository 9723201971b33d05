//! `apiVersion` strings: group and version.

use std::fmt;

/// An `apiVersion` split into its API group (empty for the core group) and version, borrowing
/// the text it was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GroupVersion<'a> {
    /// The API group, `""` for the core group (`v1`).
    pub group: &'a str,
    /// The version.
    pub version: &'a str,
}

/// An `apiVersion` with more than one `/`, which apimachinery refuses.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unexpected GroupVersion string: {0}")]
pub struct ParseGroupVersionError(pub String);

impl<'a> GroupVersion<'a> {
    /// Parses as apimachinery's `schema.ParseGroupVersion`: `""` and `"/"` are the empty
    /// GroupVersion, no `/` is a core-group version, one `/` separates group and version,
    /// more is an error (its message is Go's).
    ///
    /// # Errors
    /// When `api_version` has more than one `/` (and is not `"/"`).
    ///
    /// ```
    /// use capi_versions::GroupVersion;
    /// assert_eq!(GroupVersion::parse("apps/v1").unwrap().group, "apps");
    /// assert_eq!(GroupVersion::parse("/").unwrap(), GroupVersion::parse("").unwrap());
    /// assert_eq!(
    ///     GroupVersion::parse("a/b/c").unwrap_err().to_string(),
    ///     "unexpected GroupVersion string: a/b/c"
    /// );
    /// ```
    pub fn parse(api_version: &'a str) -> Result<Self, ParseGroupVersionError> {
        if api_version.is_empty() || api_version == "/" {
            return Ok(Self {
                group: "",
                version: "",
            });
        }
        match api_version.matches('/').count() {
            0 | 1 => Ok(Self::split(api_version)),
            _ => Err(ParseGroupVersionError(api_version.to_owned())),
        }
    }

    /// Splits at the first `/`, as kustomize's `resid.ParseGroupVersion` and kube-core's
    /// `GroupVersion::from_str` do: never fails (`a/b/c` is group `a`, version `b/c`).
    ///
    /// ```
    /// use capi_versions::GroupVersion;
    /// let gv = GroupVersion::split("a/b/c");
    /// assert_eq!((gv.group, gv.version), ("a", "b/c"));
    /// assert_eq!(GroupVersion::split("v1").group, "");
    /// ```
    #[must_use]
    pub fn split(api_version: &'a str) -> Self {
        match api_version.split_once('/') {
            Some((group, version)) => Self { group, version },
            None => Self {
                group: "",
                version: api_version,
            },
        }
    }

    /// The group of `api_version` as apimachinery reads it, `None` when apimachinery refuses
    /// the string: what matching an object's group against a known one needs.
    ///
    /// ```
    /// use capi_versions::GroupVersion;
    /// assert_eq!(GroupVersion::group_of("cluster.x-k8s.io/v1beta2"), Some("cluster.x-k8s.io"));
    /// assert_eq!(GroupVersion::group_of("v1"), Some(""));
    /// assert_eq!(GroupVersion::group_of("cluster.x-k8s.io/x/v1beta2"), None);
    /// ```
    #[must_use]
    pub fn group_of(api_version: &'a str) -> Option<&'a str> {
        Self::parse(api_version).ok().map(|gv| gv.group)
    }
}

/// `group/version`, or the version alone for the core group (the `apiVersion` form).
impl fmt::Display for GroupVersion<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.group.is_empty() {
            f.write_str(self.version)
        } else {
            write!(f, "{}/{}", self.group, self.version)
        }
    }
}
