//! MachinePool vs MachineDeployment, feature by feature, as data: what upstream Cluster API
//! does for each at the commit this project follows, with the upstream file that shows it.
//! `docs/machinepool-vs-machinedeployment.md` is generated from [`markdown`] (a drift test
//! keeps them equal), the "featureset comparison in the book" asked for upstream.
//!
//! ```
//! use capi_contract_check::featureset::{FEATURES, markdown};
//! assert!(FEATURES.iter().all(|f| !f.evidence.is_empty()));
//! assert!(markdown().contains("| MachineHealthChecks |"));
//! ```

/// The upstream Cluster API commit the rows describe.
pub const UPSTREAM_COMMIT: &str = "ae7ff047db499ac3858ade268ba38db8c9f128bb";

/// One compared feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Feature {
    /// The feature.
    pub name: &'static str,
    /// What MachineDeployments do.
    pub machine_deployment: &'static str,
    /// What MachinePools do.
    pub machine_pool: &'static str,
    /// Upstream files (repository paths at [`UPSTREAM_COMMIT`]) showing it, with what to look
    /// for in each.
    pub evidence: &'static [(&'static str, &'static str)],
}

/// Every compared feature, in table order.
pub static FEATURES: &[Feature] = &[
    Feature {
        name: "Who owns the instances",
        machine_deployment: "Cluster API: MachineSets and Machines, one InfraMachine each",
        machine_pool: "The infrastructure provider's pool service (ASG, VMSS, MIG, node pool); Cluster API sees a list of provider IDs (the spec's `providerIDList`)",
        evidence: &[("api/core/v1beta2/machinepool_types.go", "ProviderIDList")],
    },
    Feature {
        name: "`spec.replicas`",
        machine_deployment: "Desired Machines; defaulted by the webhook (autoscaler annotations, else 1)",
        machine_pool: "Same defaulting rules (min/max annotations, clamped on update, else 1); the value is handed to the provider, which scales the pool",
        evidence: &[(
            "core/webhooks/admission/machinepool.go",
            "calculateMachinePoolReplicas",
        )],
    },
    Feature {
        name: "Autoscaler",
        machine_deployment: "Cluster Autoscaler's Cluster API provider scales Machines and deletes specific ones",
        machine_pool: "Scales `spec.replicas` through the same annotations; deleting a specific instance needs MPM; `cluster.x-k8s.io/replicas-managed-by` marks an external autoscaler (phase `Scaling`)",
        evidence: &[
            (
                "api/core/v1beta2/common_types.go",
                "ReplicasManagedByAnnotation",
            ),
            (
                "core/reconcilers/machinepool/machinepool_controller_phases.go",
                "MachinePoolPhaseScaling",
            ),
        ],
    },
    Feature {
        name: "`minReadySeconds`",
        machine_deployment: "`spec.template.spec.minReadySeconds` (v1beta2), per Machine",
        machine_pool: "Same field since v1beta2 (was `spec.minReadySeconds`); used to count available Nodes",
        evidence: &[("api/core/v1beta2/machine_types.go", "MinReadySeconds")],
    },
    Feature {
        name: "Failure domains",
        machine_deployment: "Per Machine `spec.template.spec.failureDomain`, spread by the MachineSet",
        machine_pool: "`spec.failureDomains` list handed to the provider (`spec.template.spec.failureDomain` is not used; `validate` warns when both are set)",
        evidence: &[
            ("api/core/v1beta2/machinepool_types.go", "FailureDomains"),
            (
                "core/reconcilers/machineset/machineset_controller.go",
                "Template.Spec.FailureDomain",
            ),
        ],
    },
    Feature {
        name: "Rolling updates",
        machine_deployment: "Strategy RollingUpdate / OnDelete with `maxSurge`/`maxUnavailable`, new MachineSet per template change",
        machine_pool: "No Cluster API rollout: the provider updates the pool (e.g. instance refresh); `RollingOut` comes from Machines (MPM) or from `status.versions`",
        evidence: &[(
            "api/core/v1beta2/machinedeployment_types.go",
            "RollingUpdateMachineDeploymentStrategyType",
        )],
    },
    Feature {
        name: "Per-Machine objects",
        machine_deployment: "Always",
        machine_pool: "Only with MPM (Machines named after InfraMachines, selected by `cluster.x-k8s.io/cluster-name` and `cluster.x-k8s.io/pool-name` = `format.MustFormatValue(pool name)`)",
        evidence: &[
            (
                "core/reconcilers/machinepool/machinepool_controller_phases.go",
                "reconcileMachines",
            ),
            ("util/labels/format/helpers.go", "MustFormatValue"),
        ],
    },
    Feature {
        name: "MachineHealthChecks",
        machine_deployment: "Yes, remediation by the MachineSet",
        machine_pool: "Only with MPM; remediation is the provider's (the MachineHealthCheck leaves `OwnerRemediated` to the owner); whether a provider honours it cannot be seen in its CRDs (`check --capabilities` reports it as unknown unless declared)",
        evidence: &[
            (
                "core/reconcilers/machinehealthcheck/machinehealthcheck_controller.go",
                "OwnerRemediated",
            ),
            ("docs/proposals/20220209-machinepool-machines.md", "R2"),
        ],
    },
    Feature {
        name: "Metadata propagation",
        machine_deployment: "Template labels/annotations to Machines (in place), Nodes get label sync",
        machine_pool: "Template labels/annotations to MPM Machines; Node annotations `cluster.x-k8s.io/cluster-name`, `-namespace`, `owner-kind`, `owner-name`",
        evidence: &[
            (
                "core/reconcilers/machinepool/machinepool_controller_phases.go",
                "mp.Spec.Template.Annotations",
            ),
            (
                "core/reconcilers/machinepool/machinepool_controller_noderef.go",
                "OwnerKindAnnotation",
            ),
        ],
    },
    Feature {
        name: "Deleting one machine",
        machine_deployment: "Delete the Machine, or `cluster.x-k8s.io/delete-machine` annotation for scale-down",
        machine_pool: "Only through the provider (or the MPM Machine, if the provider honours it: not visible in CRDs); Nodes whose provider ID leaves `providerIDList` are deleted",
        evidence: &[
            (
                "api/core/v1beta2/common_types.go",
                "DeleteMachineAnnotation",
            ),
            (
                "core/reconcilers/machinepool/machinepool_controller_noderef.go",
                "deleteRetiredNodes",
            ),
            (
                "docs/proposals/20220209-machinepool-machines.md",
                "some implementations will not support node deletion",
            ),
        ],
    },
    Feature {
        name: "Node taints",
        machine_deployment: "`spec.template.spec.taints` propagation (feature gate)",
        machine_pool: "Rejected by the webhook (\"not yet implemented\")",
        evidence: &[(
            "core/webhooks/admission/machinepool.go",
            "taints feature for MachinePools is not yet implemented",
        )],
    },
    Feature {
        name: "ClusterClass",
        machine_deployment: "`workers.machineDeployments`",
        machine_pool: "`workers.machinePools` (InfraMachinePoolTemplate + a required bootstrap template, cluster-api#10943)",
        evidence: &[(
            "api/core/v1beta2/clusterclass_types.go",
            "MachinePools []MachinePoolClass",
        )],
    },
    Feature {
        name: "Bootstrap",
        machine_deployment: "One config per Machine from a template",
        machine_pool: "One config for the whole pool (`spec.template.spec.bootstrap.configRef`), or `dataSecretName` (`\"\"` for managed pools)",
        evidence: &[(
            "core/reconcilers/machinepool/machinepool_controller_phases.go",
            "reconcileBootstrap",
        )],
    },
    Feature {
        name: "v1beta2 conditions",
        machine_deployment: "Available, MachinesReady, MachinesUpToDate, RollingOut, ScalingUp, ScalingDown, Remediating, Deleting, Paused",
        machine_pool: "Upstream sets only `Paused`; `capi-machinepool-status` computes the full set (see [conditions.md](conditions.md))",
        evidence: &[(
            "core/reconcilers/machinepool/machinepool_controller.go",
            "EnsurePausedCondition",
        )],
    },
    Feature {
        name: "Replica counters",
        machine_deployment: "`readyReplicas`, `availableReplicas`, `upToDateReplicas` summed from MachineSets",
        machine_pool: "With MPM: Machines with Ready/Available/UpToDate True; without: ready = available = the status's `replicas`, up-to-date = `spec.replicas`",
        evidence: &[(
            "core/reconcilers/machinepool/machinepool_controller_status.go",
            "UpToDateReplicas",
        )],
    },
    Feature {
        name: "Provider contract",
        machine_deployment: "InfraMachine contract",
        machine_pool: "InfraMachinePool contract ([contract.md](contract.md)); MachinePool Machines need the InfraMachine kind's CRD and labels",
        evidence: &[(
            "docs/book/src/developer/providers/contracts/infra-machinepool.md",
            "MachinePoolMachines support",
        )],
    },
    Feature {
        name: "Feature gate",
        machine_deployment: "Always on",
        machine_pool: "`MachinePool` gate (Beta, on by default); the webhook forbids MachinePools when it is off",
        evidence: &[("feature/feature.go", "MachinePool:")],
    },
];

/// Link to an upstream file at [`UPSTREAM_COMMIT`].
#[must_use]
pub fn evidence_url(path: &str) -> String {
    format!("https://github.com/kubernetes-sigs/cluster-api/blob/{UPSTREAM_COMMIT}/{path}")
}

/// The comparison page (`docs/machinepool-vs-machinedeployment.md`).
#[must_use]
pub fn markdown() -> String {
    let mut out = format!(
        "# MachinePool vs MachineDeployment\n\n\
         <!-- Generated from crates/capi-contract-check/src/featureset.rs: edit the data there, then\n\
         UPDATE_DOCS=1 cargo test -p capi-contract-check --test featureset_doc -->\n\n\
         What upstream Cluster API (main, commit {}) does today for each, so that a provider or\n\
         platform team can pick deliberately. \"MPM\" = MachinePool Machines (the InfraMachinePool reports\n\
         `status.infrastructureMachineKind` and creates one InfraMachine per instance). Each row links\n\
         the upstream file that shows it (look for the quoted text). Which provider supports what is\n\
         reported by `capi-machinepool check --capabilities` (see [contract.md](contract.md)).\n\n\
         | Feature | MachineDeployment | MachinePool | Evidence |\n|---|---|---|---|\n",
        &UPSTREAM_COMMIT[..8]
    );
    for f in FEATURES {
        let evidence: Vec<String> = f
            .evidence
            .iter()
            .map(|(path, needle)| {
                let file = path.rsplit('/').next().unwrap_or(path);
                format!(
                    "[`{file}`]({}) (`{}`)",
                    evidence_url(path),
                    needle.replace('|', "\\|")
                )
            })
            .collect();
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            f.name,
            f.machine_deployment,
            f.machine_pool,
            evidence.join(", ")
        ));
    }
    out
}
