//! MachinePool phases.

use std::fmt;

/// The phase of a MachinePool, as reported in `status.phase` (a plain string on the wire).
///
/// [`MachinePoolPhase::parse`] maps any unrecognised string (including the empty one) to
/// [`MachinePoolPhase::Unknown`], like upstream `GetTypedPhase`.
///
/// ```
/// use capi_machinepool_api::MachinePoolPhase;
/// assert_eq!(MachinePoolPhase::parse("Running"), MachinePoolPhase::Running);
/// assert_eq!(MachinePoolPhase::parse("Bogus"), MachinePoolPhase::Unknown);
/// assert_eq!(MachinePoolPhase::ScalingUp.as_str(), "ScalingUp");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MachinePoolPhase {
    /// Created, waiting to be provisioned.
    Pending,
    /// Bootstrap data is ready, infrastructure is being provisioned.
    Provisioning,
    /// Infrastructure is provisioned and nodes are registered.
    Provisioned,
    /// Desired replicas are ready.
    Running,
    /// Replicas are being added.
    ScalingUp,
    /// Replicas are being removed.
    ScalingDown,
    /// Replicas are managed by an external autoscaler and are changing.
    Scaling,
    /// Being deleted.
    Deleting,
    /// Deprecated: a terminal failure (never set by v1beta2 controllers).
    Failed,
    /// State cannot be determined.
    Unknown,
}

impl MachinePoolPhase {
    /// Every phase, in upstream's enum order.
    pub const ALL: [MachinePoolPhase; 10] = [
        Self::Pending,
        Self::Provisioning,
        Self::Provisioned,
        Self::Running,
        Self::ScalingUp,
        Self::ScalingDown,
        Self::Scaling,
        Self::Deleting,
        Self::Failed,
        Self::Unknown,
    ];

    /// The wire string.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "Pending",
            Self::Provisioning => "Provisioning",
            Self::Provisioned => "Provisioned",
            Self::Running => "Running",
            Self::ScalingUp => "ScalingUp",
            Self::ScalingDown => "ScalingDown",
            Self::Scaling => "Scaling",
            Self::Deleting => "Deleting",
            Self::Failed => "Failed",
            Self::Unknown => "Unknown",
        }
    }

    /// Parses a wire string; anything unrecognised is `Unknown`.
    #[must_use]
    pub fn parse(phase: &str) -> Self {
        Self::ALL
            .into_iter()
            .find(|p| p.as_str() == phase)
            .unwrap_or(Self::Unknown)
    }
}

impl fmt::Display for MachinePoolPhase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
