//! Cluster API MachinePools for Rust, through one door.
//!
//! This crate re-exports the workspace's crates, each behind a feature, as kube-rs's `kube`
//! re-exports `kube-core`, `kube-runtime` and `kube-derive`. Depend on it, reach each piece
//! through the modules below, and import the [`prelude`] for the traits' methods.
//! The split crates stay published for those who want one piece (their names are given with
//! each module).
//!
//! | Module | Crate | Feature | What |
//! |---|---|---|---|
//! | [`api`] | `capi-machinepool-api` | always | MachinePool `v1beta1`/`v1beta2` types, Go-exact JSON, the CRD, typed views, SSA bodies |
//! | [`diagnostics`] | `capi-diagnostics` | always | [`Severity`](diagnostics::Severity), escaped excerpts of input, error chains |
//! | [`versions`] | `capi-versions` | always | [`GroupVersion`](versions::GroupVersion), [`KubeVersion`](versions::KubeVersion) |
//! | `conversion` | `capi-machinepool-conversion` | `conversion` (default) | hub/spoke conversion, `LosslessSpoke`, ConversionReview |
//! | `contract` | `capi-contract` | `contract` (default) | contract labels, field accessors, readers, providerIDList and Node matching |
//! | `conditions` | `capi-conditions` | `conditions` (default) | generic v1beta2 conditions: set, mirror, summary, Paused |
//! | `status` | `capi-machinepool-status` | `status` (default) | MachinePool conditions and counters, the upgrade gate |
//! | `rollout` | `capi-machinepool-rollout` | `rollout` (default) | version skew policy, control plane versions, update changes |
//! | `admission` | `capi-machinepool-admission` | `admission` | upstream's defaulting and validation, with JSON schemas |
//! | `check` | `capi-contract-check` | `check` | the InfraMachinePool contract checker (a provider's unit tests) |
//! | `manifests` | `capi-manifests` | `manifests` | YAML streams, trees, the kustomize emulator |
//! | `testing` | `capi-machinepool-testing` | `testing` | proptest strategies, lossless round-trip properties |
//!
//! The default features are what a provider's controller and conversion webhook need; none
//! of them compiles a YAML parser or a JSON-schema validator. A provider's unit tests add
//! `check` (as a dev-dependency feature).
//!
//! Like every library crate of the workspace, this one selects no k8s-openapi Kubernetes
//! version: the binary does (a `k8s-openapi` feature such as `v1_33`, or
//! `K8S_OPENAPI_ENABLED_VERSION`).
//!
//! # The provider path
//!
//! ```
//! use capi_machinepool::api::{machine_pool_crd, v1beta2};
//! use capi_machinepool::contract::{Contract, fields, reader::InfraMachinePoolReader};
//! use capi_machinepool::versions::{GroupVersion, KubeVersion};
//!
//! // The InfraMachinePool contract's fields, each with one path and a typed get/set.
//! let mut pool = serde_json::json!({"spec": {"providerIDList": ["aws:///us-east-1a/i-1"]}});
//! fields::infra_machine_pool::REPLICAS.set(&mut pool, 1);
//! let reader = InfraMachinePoolReader::new(&pool, Contract::V1Beta2);
//! assert_eq!(reader.replicas(), Ok(1));
//! assert!(reader.provisioned().unwrap_err().is_missing(), "missing means not provisioned");
//!
//! // A MachinePool and its multi-version CRD.
//! let mp = v1beta2::MachinePool::new("workers", Default::default());
//! assert_eq!(mp.metadata.name.as_deref(), Some("workers"));
//! assert_eq!(machine_pool_crd().spec.versions.len(), 2);
//!
//! // Versions, parsed once.
//! let v: KubeVersion = "v1.35.0".parse().unwrap();
//! assert!(v > KubeVersion::parse("v1.35.0-rc.1").unwrap());
//! assert_eq!(GroupVersion::parse("cluster.x-k8s.io/v1beta2").unwrap().version, "v1beta2");
//! ```
//!
//! Gate on a MachinePool upgrade (`status`): the pool below still runs v1.34.2 on its one
//! replica although its template says v1.35.0.
//!
//! ```
//! use capi_machinepool::api::v1beta2;
//! use capi_machinepool::status::upgrade_verdict;
//! let pool: v1beta2::MachinePool = serde_json::from_value(serde_json::json!({
//!   "metadata": {"name": "pool", "generation": 2},
//!   "spec": {"clusterName": "c", "replicas": 1, "template": {"spec": {"clusterName": "c",
//!     "version": "v1.35.0", "bootstrap": {"dataSecretName": ""},
//!     "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "FooMachinePool", "name": "p"}}}},
//!   "status": {"observedGeneration": 2, "replicas": 1, "readyReplicas": 1, "availableReplicas": 1,
//!     "upToDateReplicas": 1, "versions": [{"version": "v1.34.2", "replicas": 1}]}})).unwrap();
//! let verdict = upgrade_verdict(&pool);
//! assert!(!verdict.is_complete());
//! for why in verdict.pending() {
//!     println!("{why}"); // status.versions has replicas not at v1.35.0: v1.34.2 (1)
//! }
//! ```
//!
//! Typed conversion (`conversion`, with the [`prelude`]'s `Spoke` methods): a v1beta1
//! MachinePool up to the hub (v1beta2) and back. Going down needs the `apiVersion` of each
//! referenced kind, here from a fixed map (a webhook resolves it from the CRDs' contract
//! labels with `CrdResolver`); what v1beta1 cannot hold travels in the
//! `cluster.x-k8s.io/conversion-data` annotation, so the round trip loses nothing.
//!
//! ```
//! use capi_machinepool::api::{v1beta1, v1beta2};
//! use capi_machinepool::conversion::StaticResolver;
//! use capi_machinepool::prelude::*;
//! let old: v1beta1::MachinePool = serde_json::from_value(serde_json::json!({
//!   "apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachinePool",
//!   "metadata": {"name": "workers", "namespace": "default"},
//!   "spec": {"clusterName": "c", "replicas": 3, "template": {"spec": {"clusterName": "c",
//!     "bootstrap": {"dataSecretName": "workers-bootstrap"},
//!     "infrastructureRef": {"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2",
//!       "kind": "FooMachinePool", "name": "workers", "namespace": "default"}}}}})).unwrap();
//! let resolver = StaticResolver::new().with(
//!     "infrastructure.cluster.x-k8s.io", "FooMachinePool", "infrastructure.cluster.x-k8s.io/v1beta2");
//!
//! let hub: v1beta2::MachinePool = old.clone().to_hub(&resolver)?;
//! let reference = &hub.spec.template.spec.infrastructure_ref;
//! assert_eq!(reference.api_group, "infrastructure.cluster.x-k8s.io"); // v1beta2 keeps the group only
//! assert_eq!(hub.spec.replicas, Some(3));
//!
//! // Down again, the reference gets its apiVersion back from the resolver and, as upstream
//! // writes v1beta1 references, the pool's namespace.
//! let back = v1beta1::MachinePool::from_hub(hub, &resolver)?;
//! assert_eq!(back.spec, old.spec);
//! # Ok::<(), capi_machinepool::conversion::ConversionError>(())
//! ```
//!
//! A provider's unit test runs the contract checker (feature `check`) on its CRDs:
//! `capi_machinepool::check::check(&[MyPool::crd(), MyPoolTemplate::crd()]).passes()`.
#![deny(missing_docs)]

/// Text shown to users and the one severity (crate `capi-diagnostics`).
pub use capi_diagnostics as diagnostics;
/// The typed MachinePool API (crate `capi-machinepool-api`).
pub use capi_machinepool_api as api;
/// API group/versions and Kubernetes release versions (crate `capi-versions`).
pub use capi_versions as versions;

/// Hub/spoke conversion and ConversionReview handling (crate `capi-machinepool-conversion`).
#[cfg(feature = "conversion")]
pub use capi_machinepool_conversion as conversion;

/// The runtime InfraMachinePool contract (crate `capi-contract`).
#[cfg(feature = "contract")]
pub use capi_contract as contract;

/// Generic v1beta2 conditions (crate `capi-conditions`).
#[cfg(feature = "conditions")]
pub use capi_conditions as conditions;

/// MachinePool conditions, counters and the upgrade gate (crate `capi-machinepool-status`).
#[cfg(feature = "status")]
pub use capi_machinepool_status as status;

/// Version skew, control plane versions and update changes (crate `capi-machinepool-rollout`).
#[cfg(feature = "rollout")]
pub use capi_machinepool_rollout as rollout;

/// The API server's model: CRD and custom-resource validation, `FieldError` (crate
/// `capi-apiextensions`).
#[cfg(feature = "apiextensions")]
pub use capi_apiextensions as apiextensions;

/// Defaulting and validation (crate `capi-machinepool-admission`).
#[cfg(feature = "admission")]
pub use capi_machinepool_admission as admission;

/// The InfraMachinePool contract checker (crate `capi-contract-check`).
#[cfg(feature = "check")]
pub use capi_contract_check as check;

/// YAML manifests and the kustomize emulator (crate `capi-manifests`).
#[cfg(feature = "manifests")]
pub use capi_manifests as manifests;

/// proptest strategies and round-trip properties for provider tests (crate
/// `capi-machinepool-testing`).
#[cfg(feature = "testing")]
pub use capi_machinepool_testing as testing;

/// Re-export of k8s-openapi (no Kubernetes version selected).
pub use capi_machinepool_api::k8s_openapi;
/// Re-export of kube-core.
pub use capi_machinepool_api::kube_core;

/// The traits a provider's code calls methods of, as kube's prelude holds kube's traits:
/// `use capi_machinepool::prelude::*;` brings no type or function into scope, only the methods
/// of the enabled features' traits. Types and functions are reached through the modules
/// (`api::v1beta2::MachinePool`, `contract::reader::InfraMachinePoolReader`, ...).
pub mod prelude {
    #[cfg(feature = "conditions")]
    pub use capi_conditions::{ConditionsMut, HasConditions, ObjectIdentity};
    #[cfg(feature = "contract")]
    pub use capi_contract::reader::ReadResultExt;
    #[cfg(feature = "conversion")]
    pub use capi_machinepool_conversion::{
        ApiVersionResolver, Hub, LosslessSpoke, ObjectConverter, Spoke,
    };
    #[cfg(feature = "status")]
    pub use capi_machinepool_status::AnyMachinePool;
}
