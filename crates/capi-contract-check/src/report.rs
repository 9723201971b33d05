//! Findings: what the checks concluded, rule by rule, about which subject, from which input.

use std::fmt;
use std::sync::Arc;

use capi_contract::Contract;
use capi_manifests::{Positions, SetBy, Source};
use serde::Serialize;

use crate::location::{Anchor, Location};
use crate::rules::{Level, Rule};
use crate::skipped::Skipped;

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

/// What a finding is about.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Target {
    /// A CRD as a whole.
    Crd {
        /// The CRD name.
        name: String,
    },
    /// One version of a CRD (its schema).
    CrdVersion {
        /// The CRD name.
        name: String,
        /// The version.
        version: String,
    },
    /// An object.
    Object {
        /// Its kind.
        kind: String,
        /// Its namespace, when set.
        namespace: Option<String>,
        /// Its name.
        name: String,
    },
    /// A kustomization (how the inputs were read).
    Kustomization {
        /// The kustomization file.
        file: String,
    },
    /// The inputs as a whole (what they hold or lack).
    Inputs,
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Crd { name } => f.write_str(name),
            Self::CrdVersion { name, version } => write!(f, "{name}@{version}"),
            Self::Object {
                kind,
                namespace: Some(ns),
                name,
            } => write!(f, "{kind} {ns}/{name}"),
            Self::Object { kind, name, .. } => write!(f, "{kind} {name}"),
            Self::Kustomization { file } => write!(f, "kustomization {file}"),
            Self::Inputs => f.write_str("inputs"),
        }
    }
}

/// What a finding is about and where it was read: two inputs holding a CRD of the same name
/// are two subjects.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Subject {
    /// The CRD, CRD version, object or kustomization.
    #[serde(flatten)]
    pub target: Target,
    /// The file, document and line it was read from (`None` for CRDs given as values).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceRef>,
    /// Values of it a kustomization set rather than its own file (a patch, `labels`): a
    /// finding on one of them points at the file that set it ([`Finding::set_by`]).
    #[serde(skip)]
    pub set_by: Vec<SetBy>,
    /// Where each value is written in the source file (see [`capi_manifests::Positions`]):
    /// a finding points at its field's line ([`Finding::location`]).
    #[serde(skip)]
    pub positions: Option<Arc<Positions>>,
}

/// Where a value a finding is about was set, when a kustomization set it: the patch file (or
/// the kustomization file, for `labels` and inline patches) and the kustomization field.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct SetByRef {
    /// The file, document and the line of the entry that set it (the document's first line
    /// when the entry's is not known).
    #[serde(flatten)]
    pub source: SourceRef,
    /// The column of the entry that set it, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// The kustomization field that set it (`patches[0]`, `labels`).
    pub field: String,
}

impl fmt::Display for SetByRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` in {}", self.field, self.source)
    }
}

/// The keys of a finding's path: `metadata.labels[cluster.x-k8s.io/v1beta2]` is `metadata`,
/// `labels`, `cluster.x-k8s.io/v1beta2` (a bracket holds one key, dots included).
pub(crate) fn path_keys(path: &str) -> Vec<&str> {
    let mut keys = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(inner) = rest.strip_prefix('[') {
            let end = inner.find(']').unwrap_or(inner.len());
            keys.push(&inner[..end]);
            rest = inner.get(end + 1..).unwrap_or_default();
        } else {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            if end > 0 {
                keys.push(&rest[..end]);
            }
            rest = &rest[end..];
        }
        rest = rest.strip_prefix('.').unwrap_or(rest);
    }
    keys
}

/// [`Source`] as reports print it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct SourceRef {
    /// The file (`-` for standard input).
    pub file: String,
    /// Index of the document in the file (from 0).
    pub document: usize,
    /// First line of the document (from 1).
    pub line: usize,
}

impl From<&Source> for SourceRef {
    fn from(s: &Source) -> Self {
        Self {
            file: s.file.to_string(),
            document: s.document,
            line: s.line,
        }
    }
}

impl fmt::Display for SourceRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{} (line {})", self.file, self.document, self.line)
    }
}

impl Subject {
    /// A subject read from `source`.
    #[must_use]
    pub fn new(target: Target, source: Option<SourceRef>) -> Self {
        Self {
            target,
            source,
            set_by: Vec::new(),
            positions: None,
        }
    }

    /// The same subject, with where its values are written.
    #[must_use]
    pub fn with_positions(mut self, positions: Option<Arc<Positions>>) -> Self {
        self.positions = positions;
        self
    }

    /// The same subject, with the values a kustomization set.
    #[must_use]
    pub fn with_set_by(mut self, set_by: Vec<SetBy>) -> Self {
        self.set_by = set_by;
        self
    }

    /// The same input, another target (a version of this CRD, say).
    #[must_use]
    pub fn with_target(&self, target: Target) -> Self {
        Self {
            target,
            source: self.source.clone(),
            set_by: self.set_by.clone(),
            positions: self.positions.clone(),
        }
    }

    /// What set the value at the finding path `path`, when a kustomization did.
    #[must_use]
    pub fn set_by_at(&self, path: &str) -> Option<SetByRef> {
        capi_manifests::parse::set_by_at(&self.set_by, &path_keys(path)).map(|s| SetByRef {
            source: SourceRef {
                line: s.at.map_or(s.source.line, |at| at.line),
                ..SourceRef::from(&s.source)
            },
            column: s.at.map(|at| at.column),
            field: s.field.clone(),
        })
    }
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.target, f)
    }
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// The rule.
    #[serde(serialize_with = "rule_id")]
    pub rule: &'static Rule,
    /// The rule's level.
    pub level: Level,
    /// What the check concluded.
    pub outcome: Outcome,
    /// What was checked, and where it was read.
    #[serde(serialize_with = "subject")]
    pub subject: Arc<Subject>,
    /// The contract the check was made against.
    pub contract: Contract,
    /// YAML path of the offending (or checked) field.
    pub path: String,
    /// What was found (input quoted as short excerpts).
    pub message: String,
    /// How to fix it (empty for passes).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub fix: String,
    /// Link to the contract section.
    pub url: String,
    /// Where the value at `path` was set, when a kustomization set it (a patch file, the
    /// kustomization's `labels`): the file to fix.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub set_by: Option<SetByRef>,
    /// Where to fix it: the line and column of the entry that set the value
    /// ([`Finding::set_by`]), else of the field in the document it was read from (its nearest
    /// present parent when it is missing, `metadata.name` for the whole document).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
}

impl Finding {
    /// Where to fix it (see [`Finding::location`](Finding#structfield.location)).
    #[must_use]
    pub fn location(&self) -> Option<&Location> {
        self.location.as_ref()
    }
}

fn subject<S: serde::Serializer>(subject: &Arc<Subject>, s: S) -> Result<S::Ok, S::Error> {
    Serialize::serialize(subject.as_ref(), s)
}

fn rule_id<S: serde::Serializer>(rule: &&'static Rule, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(rule.id)
}

/// Every finding of a run, and the inputs that were read but not checked.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The findings, in check order (grouped by subject).
    pub findings: Vec<Finding>,
    /// Inputs that were read but not checked (other kinds), with the reason.
    pub skipped: Vec<Skipped>,
    /// What each InfraMachinePool kind read supports (see [`crate::capabilities`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<crate::capabilities::Capability>,
    /// What of the API server's CRD validation was left not judged, CRD by CRD (empty when
    /// every CRD was judged in full).
    #[serde(rename = "notJudged", skip_serializing_if = "Vec::is_empty")]
    pub unjudged: Vec<crate::skipped::Unjudged>,
}

/// A finding being recorded: `report.check(&rules::SCOPE, &subject, contract, "spec.scope")`
/// followed by `.pass(..)`, `.fail(.., fix)`, `.warn(.., fix)`, `.info(.., fix)` or
/// `.violation(.., fix)` (FAIL for a MUST rule, WARN otherwise).
#[must_use = "a check records nothing until it is given an outcome"]
pub struct Check<'r> {
    report: &'r mut Report,
    rule: &'static Rule,
    subject: Arc<Subject>,
    contract: Contract,
    path: String,
}

impl Check<'_> {
    /// Records the finding with an outcome; nothing when the rule does not apply to the
    /// contract checked (its `contracts` column is enforced here, in one place).
    pub fn outcome(self, outcome: Outcome, message: impl Into<String>, fix: impl Into<String>) {
        if !self.rule.applies_to_contract(self.contract) {
            return;
        }
        let set_by = self.subject.set_by_at(&self.path);
        let location = locate(&self.subject, &self.path, set_by.as_ref());
        self.report.findings.push(Finding {
            location,
            set_by,
            rule: self.rule,
            level: self.rule.level,
            outcome,
            subject: self.subject,
            contract: self.contract,
            path: self.path,
            message: message.into(),
            fix: fix.into(),
            url: self.rule.url(),
        });
    }

    /// The rule holds.
    pub fn pass(self, message: impl Into<String>) {
        self.outcome(Outcome::Pass, message, String::new());
    }

    /// The rule is violated and the check fails.
    pub fn fail(self, message: impl Into<String>, fix: impl Into<String>) {
        self.outcome(Outcome::Fail, message, fix);
    }

    /// A warning.
    pub fn warn(self, message: impl Into<String>, fix: impl Into<String>) {
        self.outcome(Outcome::Warn, message, fix);
    }

    /// Worth knowing.
    pub fn info(self, message: impl Into<String>, fix: impl Into<String>) {
        self.outcome(Outcome::Info, message, fix);
    }

    /// The rule is violated: FAIL for a MUST rule, WARN for SHOULD and MAY rules.
    pub fn violation(self, message: impl Into<String>, fix: impl Into<String>) {
        let outcome = match self.rule.level {
            Level::Must => Outcome::Fail,
            Level::Should | Level::May => Outcome::Warn,
        };
        self.outcome(outcome, message, fix);
    }
}

impl Report {
    /// Starts recording a finding of `rule` about `subject` at `path`.
    pub fn check(
        &mut self,
        rule: &'static Rule,
        subject: &Arc<Subject>,
        contract: Contract,
        path: impl Into<String>,
    ) -> Check<'_> {
        Check {
            report: self,
            rule,
            subject: Arc::clone(subject),
            contract,
            path: path.into(),
        }
    }

    /// True when a finding failed (a MUST rule is violated).
    #[must_use]
    pub fn has_failures(&self) -> bool {
        self.findings.iter().any(|f| f.outcome == Outcome::Fail)
    }

    /// True when no MUST rule is violated (the exit status 0 of `capi-machinepool check`).
    #[must_use]
    pub fn passes(&self) -> bool {
        !self.has_failures()
    }

    /// How many CRDs were left not judged in full, and how many things in them (CEL rules,
    /// server verdicts) were left not judged.
    #[must_use]
    pub fn unjudged_counts(&self) -> (usize, usize) {
        let mut crds: Vec<&str> = self.unjudged.iter().map(|u| u.crd.as_str()).collect();
        crds.sort_unstable();
        crds.dedup();
        (crds.len(), self.unjudged.iter().map(|u| u.count).sum())
    }

    /// What was left not judged, summed over the CRDs: `47 CEL rules (x-kubernetes-validations)
    /// not compiled here` (empty when everything was judged).
    #[must_use]
    pub fn unjudged_summary(&self) -> String {
        let mut totals: Vec<(&str, usize)> = Vec::new();
        for u in &self.unjudged {
            match totals.iter_mut().find(|(what, _)| *what == u.what) {
                Some((_, n)) => *n += u.count,
                None => totals.push((&u.what, u.count)),
            }
        }
        totals
            .iter()
            .map(|(what, n)| format!("{n} {what}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Number of findings with the outcome.
    #[must_use]
    pub fn count(&self, outcome: Outcome) -> usize {
        self.findings
            .iter()
            .filter(|f| f.outcome == outcome)
            .count()
    }

    /// Findings grouped by subject, in first-seen order.
    #[must_use]
    pub fn grouped(&self) -> Vec<(&Arc<Subject>, Vec<&Finding>)> {
        let mut groups: Vec<(&Arc<Subject>, Vec<&Finding>)> = Vec::new();
        let mut last: Option<usize> = None;
        for f in &self.findings {
            // Findings of one subject are usually consecutive: look at the last group first.
            let index = match last {
                Some(i) if groups[i].0 == &f.subject => Some(i),
                _ => groups.iter().position(|(s, _)| *s == &f.subject),
            };
            match index {
                Some(i) => {
                    groups[i].1.push(f);
                    last = Some(i);
                }
                None => {
                    groups.push((&f.subject, vec![f]));
                    last = Some(groups.len() - 1);
                }
            }
        }
        groups
    }

    /// The worst outcome of `rule` (FAIL, then WARN, INFO, PASS), `None` when it was not
    /// checked.
    ///
    /// ```
    /// use capi_contract_check::{Outcome, Report, rules};
    /// assert_eq!(Report::default().outcome(&rules::SCOPE), None::<Outcome>);
    /// ```
    #[must_use]
    pub fn outcome(&self, rule: &Rule) -> Option<Outcome> {
        self.findings_of(rule.id)
            .into_iter()
            .map(|f| f.outcome)
            .min()
    }

    /// The findings of the rule with id `rule_id` (e.g. `"crd-valid"`), in report order.
    ///
    /// ```
    /// use capi_contract_check::Report;
    /// assert!(Report::default().findings_of("scope").is_empty());
    /// ```
    #[must_use]
    pub fn findings_of(&self, rule_id: &str) -> Vec<&Finding> {
        self.findings
            .iter()
            .filter(|f| f.rule.id == rule_id)
            .collect()
    }

    /// The rules with a failing finding, each once, in report order.
    #[must_use]
    pub fn failed_rules(&self) -> Vec<&'static Rule> {
        let mut rules: Vec<&'static Rule> = Vec::new();
        for f in self.findings.iter().filter(|f| f.outcome == Outcome::Fail) {
            if !rules.iter().any(|r| r.id == f.rule.id) {
                rules.push(f.rule);
            }
        }
        rules
    }

    /// The report without the INFO findings a CRD derived with kube-derive cannot act on
    /// (`listKind` not written, `apiVersion`/`kind`/`metadata` left implicit in the schema:
    /// the API server supplies both).
    #[must_use]
    pub fn without_derive_info(mut self) -> Self {
        self.findings.retain(|f| {
            !(f.outcome == Outcome::Info
                && (f.rule.id == crate::rules::LIST_KIND.id
                    || f.rule.id == crate::rules::TYPE_AND_OBJECT_META.id))
        });
        self
    }

    /// Distinct `(rule id, outcome)` pairs of the subjects whose display starts with
    /// `subject_prefix`, sorted: a compact verdict.
    #[must_use]
    pub fn verdicts(&self, subject_prefix: &str) -> Vec<(&'static str, Outcome)> {
        let mut v: Vec<_> = self
            .findings
            .iter()
            .filter(|f| f.subject.to_string().starts_with(subject_prefix))
            .map(|f| (f.rule.id, f.outcome))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// Where the finding at `path` of `subject` is fixed (`set_by`: what set its value).
pub(crate) fn locate(subject: &Subject, path: &str, set_by: Option<&SetByRef>) -> Option<Location> {
    if let Some(set_by) = set_by {
        return Some(Location {
            file: set_by.source.file.clone(),
            document: set_by.source.document,
            line: set_by.source.line,
            column: set_by.column.unwrap_or(1),
            at: Anchor::Setter,
        });
    }
    let source = subject.source.as_ref()?;
    let place = |(line, column), at| Location {
        file: source.file.clone(),
        document: source.document,
        line,
        column,
        at,
    };
    let Some(positions) = subject.positions.as_deref() else {
        return Some(place((source.line, 1), Anchor::Document));
    };
    let keys = path_keys(path);
    match positions.find(&keys) {
        Some(found) if found.depth == keys.len() => {
            Some(place((found.at.line, found.at.column), Anchor::Field))
        }
        Some(found) => Some(place((found.at.line, found.at.column), Anchor::Parent)),
        None => Some(match positions.find(&["metadata", "name"]) {
            Some(name) if name.depth == 2 => place((name.at.line, name.at.column), Anchor::Name),
            _ => place((source.line, 1), Anchor::Document),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules;

    #[test]
    fn accessors_and_derive_info() {
        let mut r = Report::default();
        let s = Arc::new(Subject::new(Target::Crd { name: "c".into() }, None));
        let c = Contract::CURRENT;
        r.check(&rules::SCOPE, &s, c, "spec.scope").pass("ok");
        r.check(&rules::LIST_KIND, &s, c, "spec.names.listKind")
            .pass("defaulted");
        r.check(&rules::LIST_KIND, &s, c, "spec.names.listKind")
            .info("not written", "");
        r.check(&rules::CRD_NAME, &s, c, "metadata.name")
            .fail("bad", "fix");
        r.check(&rules::SCOPE, &s, c, "spec.scope")
            .warn("odd", "fix");
        assert_eq!(r.outcome(&rules::SCOPE), Some(Outcome::Warn));
        assert_eq!(r.outcome(&rules::CRD_NAME), Some(Outcome::Fail));
        assert_eq!(r.outcome(&rules::CATEGORIES), None);
        assert_eq!(r.failed_rules(), [&rules::CRD_NAME]);
        let quiet = r.without_derive_info();
        assert_eq!(quiet.count(Outcome::Info), 0);
        assert_eq!(quiet.outcome(&rules::LIST_KIND), Some(Outcome::Pass));
    }
}
