//! Server-side apply of MachinePool status, owning only the fields a controller sets.
//!
//! A server-side apply body makes the field manager own every field it contains. v1beta1 has
//! value fields Go always prints (`status.replicas`, `bootstrapReady`, `infrastructureReady`,
//! `spec.clusterName`, ...), so a typed v1beta1 object as an apply body claims zeros it never
//! meant to set, and fights other managers over them. v1beta2, the storage version, prints
//! only what is set (`omitempty`, `omitzero`, pointers): apply with it.
//!
//! [`status_apply`] builds that body: the v1beta2 TypeMeta, the name and namespace, and the
//! status fields the caller set, nothing else. With kube-rs (`kube` with its client, which
//! this crate does not depend on):
//!
//! ```text
//! let body = status_apply("workers", "default", MachinePoolStatus { replicas: Some(3), ..Default::default() });
//! let api: kube::Api<v1beta2::MachinePool> = kube::Api::namespaced(client, "default");
//! api.patch_status("workers", &PatchParams::apply("my-controller"), &Patch::Apply(&body)).await?;
//! ```
//!
//! ```
//! use capi_machinepool_api::{ssa::status_apply, v1beta2::MachinePoolStatus};
//! let body = status_apply("workers", "default", MachinePoolStatus { replicas: Some(0), ..Default::default() });
//! assert_eq!(serde_json::to_value(&body).unwrap(), serde_json::json!({
//!     "kind": "MachinePool", "apiVersion": "cluster.x-k8s.io/v1beta2",
//!     "metadata": {"name": "workers", "namespace": "default"},
//!     "status": {"replicas": 0}}));
//! ```

use crate::v1beta2::{MachinePool, MachinePoolStatus};

/// A v1beta2 MachinePool holding only `name`, `namespace` and `status`: a server-side apply
/// body for the status subresource that owns exactly the status fields that are set.
#[must_use]
pub fn status_apply(name: &str, namespace: &str, status: MachinePoolStatus) -> MachinePool {
    let mut mp = MachinePool::new(name, Default::default());
    mp.metadata.namespace = Some(namespace.to_owned());
    mp.status = status;
    mp
}
