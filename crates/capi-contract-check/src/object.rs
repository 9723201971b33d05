//! Checks of InfraMachinePool objects (instances) against the contract.

use std::sync::Arc;

use capi_conditions::unstructured::check_list;
use capi_conditions::validate::Shape;
use capi_contract::Contract;
use capi_contract::fields::{Field, infra_machine_pool as pool};
use capi_contract::provider_ids::{self, ProblemKind};
use capi_contract::reader::{InfraMachinePoolReader, ReadError};
use capi_diagnostics::Severity;
use capi_diagnostics::excerpt::excerpt;
use serde_json::Value;

use crate::report::{Report, Subject};
use crate::rules::{self, Rule};

/// At most this many offending list entries are reported one by one per rule; the rest are
/// counted in one more finding.
pub const MAX_ITEM_FINDINGS: usize = 10;

/// Records the findings of one InfraMachinePool object about `subject` (the caller decided it
/// is one, see `inventory::object_role`).
pub(crate) fn check_object(
    report: &mut Report,
    object: &Value,
    subject: &Arc<Subject>,
    contract: Contract,
) {
    let meta = &object["metadata"];
    let check = report.check(&rules::TYPE_AND_OBJECT_META, subject, contract, "metadata");
    if object["apiVersion"].is_string() && meta["name"].is_string() {
        check.pass("apiVersion, kind, metadata.name");
    } else {
        check.fail(
            "apiVersion or metadata.name missing",
            "set apiVersion and metadata.name",
        );
    }
    let mut c = ObjectCheck {
        report,
        subject,
        contract,
    };
    c.provider_ids(object);
    c.replicas(object);
    c.conditions(object);
    c.consistency(object);
}

/// `<section>.<name>` of the object, when present and not null.
/// The node of a contract field, when set and not null.
fn present<'a, T>(v: &'a Value, field: &Field<T>) -> Option<&'a Value> {
    field.node(v).ok().filter(|x| !x.is_null())
}

struct ObjectCheck<'a> {
    report: &'a mut Report,
    subject: &'a Arc<Subject>,
    contract: Contract,
}

/// Findings of one rule for list entries, capped at [`MAX_ITEM_FINDINGS`].
struct Capped {
    rule: &'static Rule,
    reported: usize,
    total: usize,
}

impl Capped {
    fn new(rule: &'static Rule) -> Self {
        Self {
            rule,
            reported: 0,
            total: 0,
        }
    }
}

impl ObjectCheck<'_> {
    fn item(&mut self, capped: &mut Capped, path: String, message: String, fix: &str) {
        capped.total += 1;
        if capped.reported < MAX_ITEM_FINDINGS {
            capped.reported += 1;
            self.report
                .check(capped.rule, self.subject, self.contract, path)
                .violation(message, fix);
        }
    }

    fn rest(&mut self, capped: &Capped, path: &str, what: &str) {
        if capped.total > capped.reported {
            self.report
                .check(capped.rule, self.subject, self.contract, path)
                .violation(
                    format!("and {} more {what}", capped.total - capped.reported),
                    String::new(),
                );
        }
    }

    /// `provider-id-list-values` and `provider-id-format` on `spec.providerIDList`.
    fn provider_ids(&mut self, v: &Value) {
        let path = &pool::PROVIDER_ID_LIST.dotted();
        let Some(list) = present(v, &pool::PROVIDER_ID_LIST) else {
            return;
        };
        let Some(items) = list.as_array() else {
            self.report
                .check(
                    &rules::PROVIDER_ID_LIST_VALUES,
                    self.subject,
                    self.contract,
                    path,
                )
                .fail(
                    format!("not a list: {}", excerpt(&list.to_string())),
                    "make it a list of strings",
                );
            return;
        };
        let mut values = Capped::new(&rules::PROVIDER_ID_LIST_VALUES);
        let mut format = Capped::new(&rules::PROVIDER_ID_FORMAT);
        for problem in provider_id_problems(items) {
            self.provider_id_problem(&mut values, &mut format, items, problem);
        }
        self.rest(&values, path, "invalid entries");
        self.rest(&format, path, "entries that do not look like provider IDs");
        self.provider_id_passes(&values, &format, items.len());
    }

    /// Records one problem of the list: a non-string entry or a `ProblemKind`, with the rule
    /// its severity belongs to.
    fn provider_id_problem(
        &mut self,
        values: &mut Capped,
        format: &mut Capped,
        items: &[Value],
        (index, kind): (Option<usize>, Option<ProblemKind>),
    ) {
        let path = &pool::PROVIDER_ID_LIST.dotted();
        let at = index.map_or_else(|| path.clone(), |i| format!("{path}[{i}]"));
        let Some(kind) = kind else {
            let item = index.map_or(&Value::Null, |i| &items[i]);
            self.item(
                values,
                at,
                format!("entry is not a string: {}", excerpt(&item.to_string())),
                "report one non-empty provider ID per instance",
            );
            return;
        };
        let entry = index.and_then(|i| items[i].as_str()).unwrap_or_default();
        let message = match (&kind, index) {
            (ProblemKind::NotAProviderId | ProblemKind::Duplicate { .. }, Some(_)) => {
                format!("{}: {kind}", excerpt(entry))
            }
            _ => kind.to_string(),
        };
        let fix = provider_id_fix(&kind);
        if kind.severity() == Severity::Warning {
            self.item(format, at, message, fix);
        } else if index.is_none() {
            self.report
                .check(values.rule, self.subject, self.contract, at)
                .fail(message, fix);
        } else {
            self.item(values, at, message, fix);
        }
    }

    /// The passes of the two providerIDList rules when nothing was found.
    fn provider_id_passes(&mut self, values: &Capped, format: &Capped, len: usize) {
        let path = &pool::PROVIDER_ID_LIST.dotted();
        if values.total == 0 && len <= provider_ids::MAX_ITEMS {
            self.report
                .check(
                    &rules::PROVIDER_ID_LIST_VALUES,
                    self.subject,
                    self.contract,
                    path,
                )
                .pass(format!("{len} valid entries"));
        }
        if format.total == 0 && len > 0 {
            self.report
                .check(
                    &rules::PROVIDER_ID_FORMAT,
                    self.subject,
                    self.contract,
                    path,
                )
                .pass("every entry is <provider>://<id>");
        }
    }

    /// `replicas-values`: `status.replicas`, read as core reads it, is an int32 >= 0.
    fn replicas(&mut self, v: &Value) {
        let replicas = InfraMachinePoolReader::new(v, self.contract).replicas();
        if replicas.as_ref().is_err_and(ReadError::is_missing) {
            return;
        }
        let check = self.report.check(
            &rules::REPLICAS_VALUES,
            self.subject,
            self.contract,
            pool::REPLICAS.dotted(),
        );
        let fix = "report the observed number of instances";
        match replicas {
            Ok(n) if n >= 0 => check.pass(n.to_string()),
            Ok(n) => check.fail(format!("{n} is negative"), fix),
            Err(e) => check.fail(e.to_string(), fix),
        }
    }

    fn conditions(&mut self, v: &Value) {
        let path = &pool::CONDITIONS.dotted();
        let Some(list) = present(v, &pool::CONDITIONS) else {
            return;
        };
        // metav1.Condition from the v1beta2 contract on.
        let shape = if self.contract < Contract::V1Beta2 {
            Shape::V1Beta1
        } else {
            Shape::V1Beta2
        };
        let issues = check_list(list, shape);
        let mut capped = Capped::new(&rules::CONDITIONS_VALUES);
        for issue in &issues {
            self.item(
                &mut capped,
                issue.path(path),
                issue.problem.to_string(),
                "set type, status and a CamelCase reason, as metav1.Condition requires",
            );
        }
        self.rest(&capped, path, "condition problems");
        if issues.is_empty() {
            let count = list.as_array().map_or(0, Vec::len);
            self.report
                .check(&rules::CONDITIONS_VALUES, self.subject, self.contract, path)
                .pass(format!("{count} well-formed conditions"));
        }
    }

    /// `replicas-consistency`, reading the fields as core does for the object's contract
    /// (`status.ready` for v1beta1; `status.initialization.provisioned`, with `status.ready`
    /// under the temporary compatibility, for v1beta2).
    fn consistency(&mut self, v: &Value) {
        let reader = InfraMachinePoolReader::new(v, self.contract);
        let (Ok(true), Ok(replicas), Ok(ids)) = (
            reader.provisioned(),
            reader.replicas(),
            reader.provider_id_list(),
        ) else {
            return;
        };
        let check = self.report.check(
            &rules::REPLICAS_CONSISTENCY,
            self.subject,
            self.contract,
            pool::REPLICAS.dotted(),
        );
        match provider_ids::replicas_mismatch(true, replicas, ids.len()) {
            None => check.pass("matches providerIDList"),
            Some(mismatch) => check.warn(
                mismatch.to_string(),
                "keep providerIDList and replicas in step",
            ),
        }
    }
}

/// Entries that are not strings, then what `provider_ids::check_list` finds in the others, in
/// list order (a problem of the whole list first).
fn provider_id_problems(items: &[Value]) -> Vec<(Option<usize>, Option<ProblemKind>)> {
    let strings: Vec<&str> = items
        .iter()
        .map(|i| i.as_str().unwrap_or_default())
        .collect();
    let mut problems: Vec<(Option<usize>, Option<ProblemKind>)> = items
        .iter()
        .enumerate()
        .filter(|(_, item)| !item.is_string())
        .map(|(i, _)| (Some(i), None))
        .collect();
    problems.extend(
        provider_ids::check_list(&strings)
            .into_iter()
            .filter(|p| p.index.is_none_or(|i| items[i].is_string()))
            .map(|p| (p.index, Some(p.kind))),
    );
    problems.sort_by_key(|(index, _)| *index);
    problems
}

fn provider_id_fix(kind: &ProblemKind) -> &'static str {
    match kind {
        ProblemKind::Duplicate { .. } => "list every instance once",
        ProblemKind::NotAProviderId => {
            "list the IDs exactly as the Nodes report theirs (`<provider>://<id>`)"
        }
        _ => "report one non-empty provider ID of at most 512 characters per instance",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Outcome;
    use serde_json::json;

    fn run(value: Value) -> Report {
        let mut r = Report::default();
        let source = crate::report::SourceRef {
            file: "t.yaml".into(),
            document: 0,
            line: 1,
        };
        let meta = crate::inventory::Meta::of(&value, Some(source));
        check_object(&mut r, &value, &meta.subject, Contract::V1Beta2);
        r
    }

    #[test]
    fn provider_id_values() {
        let long = "x".repeat(513);
        let r = run(
            json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "FooMachinePool",
            "metadata": {"name": "a"}, "spec": {"providerIDList": ["ok://1", "", long, 3, "ok://1"]}}),
        );
        let paths: Vec<_> = r
            .findings
            .iter()
            .filter(|f| f.outcome == Outcome::Fail)
            .map(|f| f.path.as_str())
            .collect();
        assert_eq!(
            paths,
            [
                "spec.providerIDList[1]",
                "spec.providerIDList[2]",
                "spec.providerIDList[3]",
                "spec.providerIDList[4]"
            ]
        );
        let duplicate = r
            .findings
            .iter()
            .find(|f| f.path == "spec.providerIDList[4]")
            .unwrap();
        assert!(
            duplicate.message.contains("duplicate of entry 0"),
            "{}",
            duplicate.message
        );
    }

    #[test]
    fn provider_ids_that_do_not_look_like_ones_are_warnings() {
        let r = run(
            json!({"apiVersion": "x/v1", "kind": "FooMachinePool", "metadata": {"name": "a"},
            "spec": {"providerIDList": ["i-0123", "aws:///a/i-1"]}}),
        );
        assert_eq!(
            r.verdicts(""),
            vec![
                ("provider-id-format", Outcome::Warn),
                ("provider-id-list-values", Outcome::Pass),
                ("type-and-object-meta", Outcome::Pass),
            ]
        );
    }

    #[test]
    fn huge_lists_are_bounded() {
        let ids: Vec<Value> = (0..10_001).map(|_| json!("")).collect();
        let r = run(
            json!({"apiVersion": "x/v1", "kind": "FooMachinePool", "metadata": {"name": "a"}, "spec": {"providerIDList": ids}}),
        );
        assert_eq!(r.count(Outcome::Fail), MAX_ITEM_FINDINGS + 2);
    }

    #[test]
    fn replicas_and_conditions() {
        let r = run(
            json!({"apiVersion": "x/v1", "kind": "FooMachinePool", "metadata": {"name": "a"},
            "spec": {"providerIDList": ["a://1"]},
            "status": {"replicas": -1, "initialization": {"provisioned": true},
                "conditions": [{"type": "Ready", "status": "yes", "reason": "not camel"}]}}),
        );
        assert_eq!(
            r.verdicts(""),
            vec![
                ("conditions-values", Outcome::Warn),
                ("provider-id-format", Outcome::Pass),
                ("provider-id-list-values", Outcome::Pass),
                ("replicas-consistency", Outcome::Warn),
                ("replicas-values", Outcome::Fail),
                ("type-and-object-meta", Outcome::Pass),
            ]
        );
    }

    #[test]
    fn every_condition_problem_is_reported_not_only_the_first_64() {
        let conditions: Vec<Value> = (0..100)
            .map(|i| json!({"type": format!("T{i}"), "status": "yes", "reason": "R", "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}))
            .collect();
        let r = run(
            json!({"apiVersion": "x/v1", "kind": "FooMachinePool", "metadata": {"name": "a"},
            "status": {"conditions": conditions}}),
        );
        let warned: Vec<&str> = r
            .findings
            .iter()
            .filter(|f| f.rule.id == "conditions-values")
            .map(|f| f.message.as_str())
            .collect();
        assert_eq!(warned.len(), MAX_ITEM_FINDINGS + 1);
        // 100 invalid statuses and the list is longer than 32.
        assert_eq!(warned[MAX_ITEM_FINDINGS], "and 91 more condition problems");
    }
}
