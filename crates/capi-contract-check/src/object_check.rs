//! Checks of InfraMachinePool objects (instances) against the contract.

use serde_json::Value;

use crate::load::Document;
use crate::report::{Outcome, Report};

/// At most this many offending list entries are reported one by one.
const MAX_ITEM_FINDINGS: usize = 10;

fn subject_of(doc: &Document) -> String {
    let v = &doc.value;
    let kind = v["kind"].as_str().unwrap_or("<no kind>");
    let name = v["metadata"]["name"].as_str().unwrap_or("<no name>");
    match v["metadata"]["namespace"].as_str() {
        Some(ns) => format!("{} {kind} {ns}/{name}", doc.source),
        None => format!("{} {kind} {name}", doc.source),
    }
}

use capi_machinepool_api::admission::metadata::is_condition_reason as is_reason;

/// Checks one object against `contract`; non-InfraMachinePool documents are skipped.
pub fn check_object(doc: &Document, contract: &str, report: &mut Report) {
    let v = &doc.value;
    let kind = v["kind"].as_str().unwrap_or_default();
    if !kind.ends_with("MachinePool")
        || v["apiVersion"]
            .as_str()
            .is_some_and(|a| a.starts_with("cluster.x-k8s.io/"))
    {
        report.skipped.push(format!(
            "{}: kind {kind:?} is not an InfraMachinePool",
            doc.source
        ));
        return;
    }
    let subject = subject_of(doc);
    let meta_ok = v["apiVersion"].is_string() && v["metadata"]["name"].is_string();
    if meta_ok {
        report.record(
            "type-and-object-meta",
            Outcome::Pass,
            &subject,
            contract,
            "metadata",
            "apiVersion, kind, metadata.name".into(),
            "",
        );
    } else {
        report.record(
            "type-and-object-meta",
            Outcome::Fail,
            &subject,
            contract,
            "metadata",
            "apiVersion or metadata.name missing".into(),
            "set apiVersion and metadata.name",
        );
    }
    provider_ids(v, &subject, contract, report);
    replicas(v, &subject, contract, report);
    conditions(v, &subject, contract, report);
    consistency(v, &subject, contract, report);
}

/// `<section>.<name>` of the object, when present and not null.
fn present<'a>(v: &'a Value, section: &str, name: &str) -> Option<&'a Value> {
    v[section].get(name).filter(|x| !x.is_null())
}

fn provider_ids(v: &Value, subject: &str, contract: &str, report: &mut Report) {
    let path = "spec.providerIDList";
    let Some(list) = present(v, "spec", "providerIDList") else {
        return;
    };
    let Some(items) = list.as_array() else {
        report.record(
            "provider-id-list-values",
            Outcome::Fail,
            subject,
            contract,
            path,
            format!("not a list: {list}"),
            "make it a list of strings",
        );
        return;
    };
    let mut bad = 0usize;
    for (i, item) in items.iter().enumerate() {
        let problem = match item.as_str() {
            None => Some(format!("entry is not a string: {item}")),
            Some("") => Some("entry is empty".to_owned()),
            Some(s) if s.chars().count() > 512 => Some(format!(
                "entry has {} characters (at most 512)",
                s.chars().count()
            )),
            Some(_) => None,
        };
        if let Some(problem) = problem {
            bad += 1;
            if bad <= MAX_ITEM_FINDINGS {
                report.record(
                    "provider-id-list-values",
                    Outcome::Fail,
                    subject,
                    contract,
                    &format!("{path}[{i}]"),
                    problem,
                    "report one non-empty provider ID per instance",
                );
            }
        }
    }
    if bad > MAX_ITEM_FINDINGS {
        report.record(
            "provider-id-list-values",
            Outcome::Fail,
            subject,
            contract,
            path,
            format!("and {} more invalid entries", bad - MAX_ITEM_FINDINGS),
            "",
        );
    }
    if items.len() > 10000 {
        report.record(
            "provider-id-list-values",
            Outcome::Fail,
            subject,
            contract,
            path,
            format!("{} entries (at most 10000)", items.len()),
            "",
        );
    } else if bad == 0 {
        report.record(
            "provider-id-list-values",
            Outcome::Pass,
            subject,
            contract,
            path,
            format!("{} valid entries", items.len()),
            "",
        );
    }
}

fn replicas(v: &Value, subject: &str, contract: &str, report: &mut Report) {
    let path = "status.replicas";
    let Some(r) = present(v, "status", "replicas") else {
        return;
    };
    match r.as_i64() {
        Some(n) if (0..=i64::from(i32::MAX)).contains(&n) => report.record(
            "replicas-values",
            Outcome::Pass,
            subject,
            contract,
            path,
            n.to_string(),
            "",
        ),
        _ => report.record(
            "replicas-values",
            Outcome::Fail,
            subject,
            contract,
            path,
            format!("{r} is not an int32 >= 0"),
            "report the observed number of instances",
        ),
    }
}

fn conditions(v: &Value, subject: &str, contract: &str, report: &mut Report) {
    let Some(list) = present(v, "status", "conditions") else {
        return;
    };
    let Some(items) = list.as_array() else {
        report.record(
            "conditions-values",
            Outcome::Warn,
            subject,
            contract,
            "status.conditions",
            "not a list".into(),
            "",
        );
        return;
    };
    let mut problems = 0;
    for (i, c) in items.iter().enumerate().take(64) {
        let path = format!("status.conditions[{i}]");
        let mut issues = Vec::new();
        if c["type"].as_str().is_none_or(str::is_empty) {
            issues.push("type is not set".to_owned());
        }
        match c["status"].as_str() {
            Some("True" | "False" | "Unknown") => {}
            other => issues.push(format!("status {other:?} is not True, False or Unknown")),
        }
        if let Some(reason) = c["reason"].as_str().filter(|r| !r.is_empty())
            && contract == "v1beta2"
            && !is_reason(reason)
        {
            issues.push(format!(
                "reason {reason:?} is not CamelCase ([A-Za-z][A-Za-z0-9_,:]*)"
            ));
        }
        if c["message"]
            .as_str()
            .is_some_and(|m| m.chars().count() > 32768)
        {
            issues.push("message is longer than 32768 characters".into());
        }
        if let Some(t) = c["lastTransitionTime"].as_str()
            && t.parse::<capi_machinepool_api::k8s_openapi::jiff::Timestamp>()
                .is_err()
        {
            issues.push(format!("lastTransitionTime {t:?} is not RFC 3339"));
        }
        if !issues.is_empty() {
            problems += 1;
            report.record(
                "conditions-values",
                Outcome::Warn,
                subject,
                contract,
                &path,
                issues.join("; "),
                "set type, status and a CamelCase reason",
            );
        }
    }
    if problems == 0 {
        report.record(
            "conditions-values",
            Outcome::Pass,
            subject,
            contract,
            "status.conditions",
            format!("{} well-formed conditions", items.len()),
            "",
        );
    }
}

fn consistency(v: &Value, subject: &str, contract: &str, report: &mut Report) {
    let provisioned = v["status"]["initialization"]["provisioned"]
        .as_bool()
        .or_else(|| v["status"]["ready"].as_bool());
    let (Some(true), Some(replicas), Some(ids)) = (
        provisioned,
        v["status"]["replicas"].as_i64(),
        v["spec"]["providerIDList"].as_array(),
    ) else {
        return;
    };
    if usize::try_from(replicas).ok() == Some(ids.len()) {
        report.record(
            "replicas-consistency",
            Outcome::Pass,
            subject,
            contract,
            "status.replicas",
            "matches providerIDList".into(),
            "",
        );
    } else {
        report.record(
            "replicas-consistency",
            Outcome::Warn,
            subject,
            contract,
            "status.replicas",
            format!(
                "status.replicas is {replicas} but spec.providerIDList has {} entries",
                ids.len()
            ),
            "keep providerIDList and replicas in step",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(value: Value) -> Report {
        let mut r = Report::default();
        check_object(
            &Document {
                source: "t.yaml#0".into(),
                value,
            },
            "v1beta2",
            &mut r,
        );
        r
    }

    #[test]
    fn provider_id_values() {
        let long = "x".repeat(513);
        let r = run(
            json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "FooMachinePool",
            "metadata": {"name": "a"}, "spec": {"providerIDList": ["ok", "", long, 3]}}),
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
                "spec.providerIDList[3]"
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
            "spec": {"providerIDList": ["a"]},
            "status": {"replicas": -1, "initialization": {"provisioned": true},
                "conditions": [{"type": "Ready", "status": "yes", "reason": "not camel"}]}}),
        );
        assert_eq!(
            r.verdicts(""),
            vec![
                ("conditions-values", Outcome::Warn),
                ("provider-id-list-values", Outcome::Pass),
                ("replicas-consistency", Outcome::Warn),
                ("replicas-values", Outcome::Fail),
                ("type-and-object-meta", Outcome::Pass),
            ]
        );
    }
}
