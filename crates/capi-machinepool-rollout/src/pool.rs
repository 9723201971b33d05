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

/// The skew verdicts for a pool: against its Cluster's control plane when the input has it
/// (the running versions; the desired one only as a note, [`skew::check_running`]), else
/// against `fallback` (a version the caller knows, e.g. from the command line), else one
/// [`skew::SkewRule::NotChecked`] finding that says what is missing. A pool without a version
/// (no `spec.template.spec.version`, no `status.versions`) gets a
/// [`skew::SkewRule::NotChecked`] note. Silence always means "checked and within the policy".
#[must_use]
pub fn pool_skew(
    pool: &v1beta2::MachinePool,
    control_planes: &ControlPlanes,
    fallback: Option<&VersionAt>,
) -> Vec<SkewFinding> {
    let namespace = pool.metadata.namespace.as_deref().unwrap_or_default();
    let kubelets = kubelet_versions(pool);
    if kubelets.iter().all(|v| v.version.is_empty()) {
        let mut note = skew::not_checked(
            "skew not checked: the pool has no version (spec.template.spec.version, status.versions)",
        );
        note.severity = None;
        return vec![note];
    }
    control_planes
        .for_cluster(namespace, &pool.spec.cluster_name)
        .check_kubelets(&kubelets, fallback)
}

impl ControlPlaneVersions {
    /// The skew verdicts of kubelet versions against these control plane versions: the
    /// running versions (the desired one only as a note, [`skew::check_running`]); without a
    /// running version, against `fallback` (a version the caller knows) or else the desired
    /// version, labelled as such; with nothing known, one [`skew::SkewRule::NotChecked`]
    /// finding that says what is missing. What [`pool_skew`] says of a pool, for kubelet
    /// versions from anywhere (a provider's own pool type, say).
    #[must_use]
    pub fn check_kubelets(
        &self,
        kubelets: &[VersionAt],
        fallback: Option<&VersionAt>,
    ) -> Vec<SkewFinding> {
        match (self, fallback) {
            (Self::Found(set), _) if !set.running.is_empty() => {
                skew::check_running(&set.running, set.desired.as_ref(), kubelets)
            }
            (Self::Found(set), None) => {
                let desired = set.desired.as_ref().map(|d| {
                    VersionAt::new(
                        d.version.clone(),
                        format!(
                            "{}, desired: the control plane reports no running version",
                            d.at
                        ),
                    )
                });
                skew::check(desired.as_slice(), kubelets)
            }
            (_, Some(known)) => skew::check(std::slice::from_ref(known), kubelets),
            (Self::Desired(desired), None) => {
                let desired = VersionAt::new(
                    desired.version.clone(),
                    format!(
                        "{}, desired: the control plane object is not in the input",
                        desired.at
                    ),
                );
                skew::check(&[desired], kubelets)
            }
            (Self::Unknown(why), None) => vec![skew::not_checked(format_args!(
                "no control plane version known: {why}"
            ))],
        }
    }
}
