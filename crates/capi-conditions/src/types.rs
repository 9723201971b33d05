//! Condition types and reasons used by Cluster API v1beta2 conditions.

/// `True`.
pub const TRUE: &str = "True";
/// `False`.
pub const FALSE: &str = "False";
/// `Unknown`.
pub const UNKNOWN: &str = "Unknown";

/// Condition types.
pub mod condition {
    /// Available.
    pub const AVAILABLE: &str = "Available";
    /// Ready.
    pub const READY: &str = "Ready";
    /// UpToDate.
    pub const UP_TO_DATE: &str = "UpToDate";
    /// BootstrapConfigReady.
    pub const BOOTSTRAP_CONFIG_READY: &str = "BootstrapConfigReady";
    /// InfrastructureReady.
    pub const INFRASTRUCTURE_READY: &str = "InfrastructureReady";
    /// MachinesReady.
    pub const MACHINES_READY: &str = "MachinesReady";
    /// MachinesUpToDate.
    pub const MACHINES_UP_TO_DATE: &str = "MachinesUpToDate";
    /// RollingOut.
    pub const ROLLING_OUT: &str = "RollingOut";
    /// ScalingUp.
    pub const SCALING_UP: &str = "ScalingUp";
    /// ScalingDown.
    pub const SCALING_DOWN: &str = "ScalingDown";
    /// Remediating.
    pub const REMEDIATING: &str = "Remediating";
    /// Deleting.
    pub const DELETING: &str = "Deleting";
    /// Paused.
    pub const PAUSED: &str = "Paused";
    /// HealthCheckSucceeded (Machine).
    pub const HEALTH_CHECK_SUCCEEDED: &str = "HealthCheckSucceeded";
    /// OwnerRemediated (Machine).
    pub const OWNER_REMEDIATED: &str = "OwnerRemediated";
}

/// Reasons.
pub mod reason {
    /// Available.
    pub const AVAILABLE: &str = "Available";
    /// NotAvailable.
    pub const NOT_AVAILABLE: &str = "NotAvailable";
    /// Ready.
    pub const READY: &str = "Ready";
    /// NotReady.
    pub const NOT_READY: &str = "NotReady";
    /// ReadyUnknown.
    pub const READY_UNKNOWN: &str = "ReadyUnknown";
    /// UpToDate.
    pub const UP_TO_DATE: &str = "UpToDate";
    /// NotUpToDate.
    pub const NOT_UP_TO_DATE: &str = "NotUpToDate";
    /// UpToDateUnknown.
    pub const UP_TO_DATE_UNKNOWN: &str = "UpToDateUnknown";
    /// RollingOut.
    pub const ROLLING_OUT: &str = "RollingOut";
    /// NotRollingOut.
    pub const NOT_ROLLING_OUT: &str = "NotRollingOut";
    /// ScalingUp.
    pub const SCALING_UP: &str = "ScalingUp";
    /// NotScalingUp.
    pub const NOT_SCALING_UP: &str = "NotScalingUp";
    /// ScalingDown.
    pub const SCALING_DOWN: &str = "ScalingDown";
    /// NotScalingDown.
    pub const NOT_SCALING_DOWN: &str = "NotScalingDown";
    /// Remediating.
    pub const REMEDIATING: &str = "Remediating";
    /// NotRemediating.
    pub const NOT_REMEDIATING: &str = "NotRemediating";
    /// NoReplicas.
    pub const NO_REPLICAS: &str = "NoReplicas";
    /// WaitingForReplicasSet.
    pub const WAITING_FOR_REPLICAS_SET: &str = "WaitingForReplicasSet";
    /// WaitingForAvailableReplicasSet (MachineDeployment convention).
    pub const WAITING_FOR_AVAILABLE_REPLICAS_SET: &str = "WaitingForAvailableReplicasSet";
    /// InvalidConditionReported.
    pub const INVALID_CONDITION_REPORTED: &str = "InvalidConditionReported";
    /// InternalError.
    pub const INTERNAL_ERROR: &str = "InternalError";
    /// Paused.
    pub const PAUSED: &str = "Paused";
    /// NotPaused.
    pub const NOT_PAUSED: &str = "NotPaused";
    /// Deleting.
    pub const DELETING: &str = "Deleting";
    /// NotDeleting.
    pub const NOT_DELETING: &str = "NotDeleting";
    /// DeletionCompleted.
    pub const DELETION_COMPLETED: &str = "DeletionCompleted";
    /// DataSecretProvided (bootstrap data given directly, no config).
    pub const DATA_SECRET_PROVIDED: &str = "DataSecretProvided";
    /// BootstrapConfigDoesNotExist.
    pub const BOOTSTRAP_CONFIG_DOES_NOT_EXIST: &str = "BootstrapConfigDoesNotExist";
    /// BootstrapConfigDeleted.
    pub const BOOTSTRAP_CONFIG_DELETED: &str = "BootstrapConfigDeleted";
    /// InfrastructureDoesNotExist.
    pub const INFRASTRUCTURE_DOES_NOT_EXIST: &str = "InfrastructureDoesNotExist";
    /// InfrastructureDeleted.
    pub const INFRASTRUCTURE_DELETED: &str = "InfrastructureDeleted";
    /// NotYetReported (library: a condition missing on its source).
    pub const NOT_YET_REPORTED: &str = "NotYetReported";
    /// NoReasonReported (library: a condition read without reason).
    pub const NO_REASON_REPORTED: &str = "NoReasonReported";
    /// IssuesReported (library merge default).
    pub const ISSUES_REPORTED: &str = "IssuesReported";
    /// UnknownReported (library merge default).
    pub const UNKNOWN_REPORTED: &str = "UnknownReported";
    /// InfoReported (library merge default).
    pub const INFO_REPORTED: &str = "InfoReported";
}
