//! Error or warning.

use std::fmt;

/// How bad a finding is. Errors sort before warnings.
///
/// Admission findings, version-skew and rollout verdicts and providerIDList hygiene all use
/// this one type; contract rules have their own levels (MUST/SHOULD/MAY) in
/// `capi-contract-check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The object is rejected, or the rollout breaks a policy: a command fails.
    Error,
    /// Accepted, but something is lost, suspicious or at the edge of a policy.
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
