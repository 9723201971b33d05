//! A MachinePool's kubelet versions and its skew verdicts against its control plane.

use capi_machinepool_api::v1beta2;

use crate::control_plane::{ControlPlaneVersions, ControlPlanes};
use crate::document::object_label;
use crate::skew::{self, SkewFinding, VersionAt};

/// `MachinePool ns/name` (or `MachinePool name`).
#[must_use]
fn pool_id(pool: &v1beta2::MachinePool) -> String {
    object_label(
        "MachinePool",
        pool.metadata.namespace.as_deref().unwrap_or_default(),
        pool.metadata.name.as_deref().unwrap_or_default(),
    )
}

/// The kubelet versions of a MachinePool: `spec.template.spec.version` and each
/// `status.versions[].version`.
#[must_use]
pub fn kubelet_versions(pool: &v1beta2::MachinePool) -> Vec<VersionAt> {
    let id = pool_id(pool);
    let mut out = vec![VersionAt::new(
        pool.spec.template.spec.version.clone(),
        format!("{id} spec.template.spec.version"),
    )];
    for (i, v) in pool.status.versions.iter().flatten().enumerate() {
        out.push(VersionAt::new(
            v.version.clone(),
            format!("{id} status.versions[{i}].version"),
        ));
    }
    out
}

/// The skew verdicts for a pool: against its Cluster's control plane when the input has it,
/// else against `fallback` (a version the caller knows, e.g. from the command line), else one
/// [`skew::SkewRule::NotChecked`] finding that says what is missing. Silence always means
/// "checked and within the policy".
#[must_use]
pub fn pool_skew(
    pool: &v1beta2::MachinePool,
    control_planes: &ControlPlanes,
    fallback: Option<&VersionAt>,
) -> Vec<SkewFinding> {
    let namespace = pool.metadata.namespace.as_deref().unwrap_or_default();
    let kubelets = kubelet_versions(pool);
    match (
        control_planes.for_cluster(namespace, &pool.spec.cluster_name),
        fallback,
    ) {
        (ControlPlaneVersions::Found(versions), _) => skew::check(&versions, &kubelets),
        (_, Some(known)) => skew::check(std::slice::from_ref(known), &kubelets),
        (ControlPlaneVersions::Desired(desired), None) => {
            let desired = VersionAt::new(
                desired.version,
                format!(
                    "{}, desired: the control plane object is not in the input",
                    desired.at
                ),
            );
            skew::check(&[desired], &kubelets)
        }
        (ControlPlaneVersions::Unknown(why), None) => vec![skew::not_checked(format_args!(
            "no control plane version known: {why}"
        ))],
    }
}
