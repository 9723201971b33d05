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
/// (what runs now and next, [`apiservers::check_outlook`](crate::apiservers::check_outlook)), else
/// against `fallback` (a version the caller knows, e.g. from the command line), else one
/// [`skew::SkewRule::NotChecked`] finding that says what is missing. A pool without a version
/// (no `spec.template.spec.version`, no `status.versions`) gets a
/// [`skew::SkewRule::NotChecked`] note. Silence always means "checked and within the policy".
///
/// In a ClusterClass cluster whose control plane is in the input, the pool is also judged
/// against the step upstream's topology controller takes next
/// ([`topology::step_verdicts`](crate::topology::step_verdicts)): a note naming the step and
/// its plan, and an [`skew::SkewRule::UpstreamBreaksPool`] error when that step leaves a
/// kubelet of the pool outside the policy.
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
    let versions = control_planes.for_cluster(namespace, &pool.spec.cluster_name);
    let mut findings = versions.check_kubelets(&kubelets, fallback);
    if matches!(versions, ControlPlaneVersions::Found(_))
        && let Some(plan) = control_planes
            .topology()
            .state_for(namespace, &pool.spec.cluster_name)
    {
        findings.extend(crate::topology::step_verdicts(&plan, pool, &kubelets));
    }
    findings
}

impl ControlPlaneVersions {
    /// The skew verdicts of kubelet versions against these control plane versions: what runs
    /// now and next by the control plane's model ([`apiservers::check_outlook`](crate::apiservers::check_outlook)); without a running
    /// version, against `fallback` (a version the caller knows) or else the desired version,
    /// labelled as such; a topology Cluster's plan alone is not judged (the topology
    /// controller holds the control plane until the workers fit), nor is nothing known: one
    /// [`skew::SkewRule::NotChecked`] warning that says what is missing. What [`pool_skew`]
    /// says of a pool, for kubelet versions from anywhere (a provider's own pool type, say).
    #[must_use]
    pub fn check_kubelets(
        &self,
        kubelets: &[VersionAt],
        fallback: Option<&VersionAt>,
    ) -> Vec<SkewFinding> {
        match (self, fallback) {
            (Self::Found(set), Some(known)) if set.running.is_empty() => {
                skew::check(std::slice::from_ref(known), kubelets)
            }
            (Self::Found(set), _) => crate::apiservers::check_outlook(&set.outlook(), kubelets),
            (_, Some(known)) => skew::check(std::slice::from_ref(known), kubelets),
            (Self::Desired(plan), None) => vec![skew::not_checked(format_args!(
                "no control plane version known: the control plane object is not in the input, and {} {} is the topology controller's plan, not a running kube-apiserver: it moves the control plane one minor at a time and holds it while the workers must upgrade first (exp/topology/desiredstate computeControlPlaneVersion)",
                plan.at,
                capi_diagnostics::Excerpt::new(&plan.version)
            ))],
            (Self::Unknown(why), None) => vec![skew::not_checked(format_args!(
                "no control plane version known: {why}"
            ))],
        }
    }
}
