//! Findings: what a check concluded, rule by rule.

use std::fmt;

use serde::Serialize;

use crate::rules::{Level, Rule};

/// Outcome of one check of one rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// A MUST rule is violated (or a compatibility allowance was refused).
    Fail,
    /// A SHOULD rule is violated, or a deprecated form is used.
    Warn,
    /// Worth knowing, not a problem.
    Info,
    /// The rule holds.
    Pass,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Fail => "FAIL",
            Self::Warn => "WARN",
            Self::Info => "INFO",
            Self::Pass => "PASS",
        })
    }
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// Rule id (see [`crate::rules::RULES`]).
    pub rule: &'static str,
    /// The rule's level.
    pub level: Level,
    /// What the check concluded.
    pub outcome: Outcome,
    /// What was checked: a CRD name, `CRD@version`, or `file#doc Kind ns/name` for objects.
    pub subject: String,
    /// The contract version the check was made against.
    pub contract: String,
    /// YAML path of the offending (or checked) field.
    pub path: String,
    /// What was found.
    pub message: String,
    /// How to fix it (empty for passes).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub fix: String,
    /// Link to the contract section.
    pub url: String,
}

impl Finding {
    /// A finding for `rule` (its level and link filled in).
    #[must_use]
    pub fn new(
        rule: &'static Rule,
        outcome: Outcome,
        subject: &str,
        contract: &str,
        path: &str,
        message: String,
    ) -> Self {
        Self {
            rule: rule.id,
            level: rule.level,
            outcome,
            subject: subject.to_owned(),
            contract: contract.to_owned(),
            path: path.to_owned(),
            message,
            fix: String::new(),
            url: rule.url(),
        }
    }

    /// Adds the fix text.
    #[must_use]
    pub fn with_fix(mut self, fix: &str) -> Self {
        fix.clone_into(&mut self.fix);
        self
    }
}

/// Every finding of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The findings, in check order.
    pub findings: Vec<Finding>,
    /// Inputs that were read but not checked (other kinds), with the reason.
    pub skipped: Vec<String>,
}

impl Report {
    /// Appends a finding.
    pub fn push(&mut self, finding: Finding) {
        self.findings.push(finding);
    }

    /// Appends a finding for the rule `id` (its level and link filled in); ids are the
    /// crate's own constants, checked by a test, so an unknown id is a bug and is skipped.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn record(
        &mut self,
        id: &str,
        outcome: Outcome,
        subject: &str,
        contract: &str,
        path: &str,
        message: String,
        fix: &str,
    ) {
        debug_assert!(crate::rules::rule(id).is_some(), "unknown rule id {id}");
        if let Some(rule) = crate::rules::rule(id) {
            self.push(Finding::new(rule, outcome, subject, contract, path, message).with_fix(fix));
        }
    }

    /// True when a finding failed (a MUST rule is violated).
    #[must_use]
    pub fn has_failures(&self) -> bool {
        self.findings.iter().any(|f| f.outcome == Outcome::Fail)
    }

    /// Number of findings with the outcome.
    #[must_use]
    pub fn count(&self, outcome: Outcome) -> usize {
        self.findings
            .iter()
            .filter(|f| f.outcome == outcome)
            .count()
    }

    /// Distinct `(rule, outcome)` pairs for a subject prefix, sorted: a compact verdict.
    #[must_use]
    pub fn verdicts(&self, subject_prefix: &str) -> Vec<(&'static str, Outcome)> {
        let mut v: Vec<_> = self
            .findings
            .iter()
            .filter(|f| f.subject.starts_with(subject_prefix))
            .map(|f| (f.rule, f.outcome))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}
