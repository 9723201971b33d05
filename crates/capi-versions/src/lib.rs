//! The two kinds of version a Cluster API tool reads, each parsed in one place:
//!
//! * [`GroupVersion`]: an object's `apiVersion` (`cluster.x-k8s.io/v1beta2`, `v1`), split as
//!   apimachinery's `schema.ParseGroupVersion` ([`GroupVersion::parse`], strict) or as
//!   kustomize's `resid.ParseGroupVersion` and kube-core's `GroupVersion::from_str`
//!   ([`GroupVersion::split`], at the first `/`, never failing).
//! * [`KubeVersion`]: a Kubernetes release version (`v1.35.0`, `v1.37.0-rc.1`,
//!   `v1.29.0+k3s1`): a semantic version with an optional leading `v`, ordered by SemVer
//!   precedence (pre-releases before their release, build metadata ignored).
//!
//! The crate is a leaf (no Kubernetes types), so the YAML loader, the API types, rollout and
//! contract checks share it without compiling each other. The style follows stackable
//! operator-rs's `k8s-version` crate: small value types with `parse`, `Display` and an error
//! per parser.
//!
//! ```
//! use capi_versions::{GroupVersion, KubeVersion};
//! let gv = GroupVersion::parse("cluster.x-k8s.io/v1beta2").unwrap();
//! assert_eq!((gv.group, gv.version), ("cluster.x-k8s.io", "v1beta2"));
//! assert_eq!(GroupVersion::parse("v1").unwrap().group, "");
//! let v: KubeVersion = "v1.35.0-rc.1".parse().unwrap();
//! assert!(v < KubeVersion::parse("1.35.0").unwrap());
//! assert_eq!(v.minor(), 35);
//! ```
#![deny(missing_docs)]

mod group_version;
mod kube_version;

pub use group_version::{GroupVersion, ParseGroupVersionError};
pub use kube_version::{KubeVersion, ParseKubeVersionError};
