//! Checks of one CRD version's schema (`openAPIV3Schema`) against one contract version.

use std::sync::Arc;

use capi_contract::Contract;
use capi_contract::crd::CrdVersionView;
use capi_contract::fields::{
    infra_machine as machine, infra_machine_pool as pool, infra_machine_pool_template as template,
};
use serde_json::Value;

use crate::advice::{Language, go_field, key, rust_field};
use crate::input::{CheckOptions, Role};
use crate::report::{Outcome, Report, Subject};
use crate::rules::{self, Rule};
use crate::schema_view::{field, number, string, type_of, yaml_path};

/// Runs the rules of `contract` on version `version` (its entry of `spec.versions`).
pub(crate) fn check_version(
    report: &mut Report,
    opts: &CheckOptions,
    subject: &Arc<Subject>,
    contract: Contract,
    version: &str,
    entry: CrdVersionView<'_>,
    role: Role,
) {
    let schema = entry.schema();
    let mut c = VersionCheck {
        report,
        opts,
        subject,
        contract,
        version,
        schema,
        lang: Language::of(schema),
    };
    c.type_and_object_meta();
    match role {
        Role::Pool => {
            c.status_subresource(entry);
            c.provider_id_list();
            // The contract's own provisioning field: `status.ready` in a contract without
            // `status.initialization` (v1beta1), the initialization otherwise.
            if pool::INITIALIZATION.at(contract).is_none() {
                c.ready_v1beta1();
            } else {
                c.initialization();
            }
            c.replicas();
            c.conditions();
            c.terminal_failures();
            c.optional_fields();
        }
        Role::Template => c.template_spec(),
        Role::PoolMachine => {
            c.machine_provider_id();
            c.machine_provisioned();
        }
    }
}

struct VersionCheck<'a> {
    report: &'a mut Report,
    opts: &'a CheckOptions,
    subject: &'a Arc<Subject>,
    contract: Contract,
    version: &'a str,
    schema: &'a Value,
    /// The language the fixes are written in (the CRD's types', see [`crate::advice`]).
    lang: Language,
}

fn describe(node: Option<&Value>) -> String {
    match node {
        None => "missing".into(),
        Some(n) => format!("of type {}", type_of(n).unwrap_or("<none>")),
    }
}

impl VersionCheck<'_> {
    /// The fix in the CRD's language.
    fn fix(&self, go: impl Into<String>, rust: impl Into<String>) -> String {
        self.lang.pick(go, rust)
    }

    /// A missing field's message with the near miss (`providerIdList` for `providerIDList`)
    /// named when its parent has one.
    fn missing(&self, message: String, f: &[&str]) -> String {
        match (crate::near_miss::sibling(self.schema, f), f.last()) {
            (Some(found), Some(name)) => message + &crate::near_miss::note(name, found),
            _ => message,
        }
    }

    fn check(&mut self, rule: &'static Rule, fields: &[&str]) -> crate::report::Check<'_> {
        let path = yaml_path(self.version, fields);
        self.report.check(rule, self.subject, self.contract, path)
    }

    fn type_and_object_meta(&mut self) {
        let expected = [
            ("apiVersion", "string"),
            ("kind", "string"),
            ("metadata", "object"),
        ];
        let mut absent = Vec::new();
        let mut wrong = Vec::new();
        for (f, t) in expected {
            match field(self.schema, &[f]).map(type_of) {
                None => absent.push(f),
                Some(found) if found != Some(t) => wrong.push(format!("{f} ({t})")),
                Some(_) => {}
            }
        }
        if !wrong.is_empty() {
            let fix = self.fix(
                "embed metav1.TypeMeta and metav1.ObjectMeta in the root type",
                "drop the schema's own apiVersion, kind and metadata: `#[derive(CustomResource)]` adds them",
            );
            self.check(&rules::TYPE_AND_OBJECT_META, &[])
                .fail(format!("mistyped: {}", wrong.join(", ")), fix);
            return;
        }
        if absent.is_empty() {
            self.check(&rules::TYPE_AND_OBJECT_META, &[])
                .pass("apiVersion, kind, metadata");
            return;
        }
        // The API server treats apiVersion, kind and metadata as implicit in every CRD
        // schema (kube-derive leaves them out): the stored objects have them.
        self.check(&rules::TYPE_AND_OBJECT_META, &[])
            .pass("apiVersion, kind, metadata (implicit: the API server adds them)");
        let fix = self.fix(
            "controller-gen declares them; nothing to do for CRDs derived with kube-derive",
            "nothing to do: kube-derive leaves them implicit and the API server adds them",
        );
        self.check(&rules::TYPE_AND_OBJECT_META, &[]).info(
            format!("the root schema does not declare {}", absent.join(", ")),
            fix,
        );
    }

    fn status_subresource(&mut self, entry: CrdVersionView<'_>) {
        let path = format!("spec.versions[{}].subresources.status", self.version);
        let fix = self.fix(
            "add `+kubebuilder:subresource:status`",
            "add `#[kube(status = \"<Kind>Status\")]` to the spec type (kube-derive enables the status subresource)",
        );
        let check = self.report.check(
            &rules::STATUS_SUBRESOURCE,
            self.subject,
            self.contract,
            path,
        );
        if entry.has_status_subresource() {
            check.pass("enabled");
        } else {
            check.warn("status subresource not enabled", fix);
        }
    }

    fn provider_id_list(&mut self) {
        let f = pool::PROVIDER_ID_LIST.path();
        let node = field(self.schema, f);
        let items_type = node.and_then(|n| n.get("items")).and_then(type_of);
        let Some(node) =
            node.filter(|n| type_of(n) == Some("array") && items_type == Some("string"))
        else {
            let message = match node {
                Some(n) if type_of(n) == Some("array") => {
                    format!("items are {}", items_type.unwrap_or("untyped"))
                }
                other => format!("{} is {}", f.join("."), describe(other)),
            };
            let message = if node.is_none() {
                self.missing(message, f)
            } else {
                message
            };
            let name = key(f);
            let fix = self.fix(
                format!("add `{}` to the spec", go_field(name, "[]string", true)),
                format!(
                    "add `#[serde(default, skip_serializing_if = \"Vec::is_empty\")] {}` to the spec",
                    rust_field(name, "Vec<String>")
                ),
            );
            self.check(&rules::PROVIDER_ID_LIST, f).fail(message, fix);
            return;
        };
        self.check(&rules::PROVIDER_ID_LIST, f)
            .pass("array of string");
        let items = &node["items"];
        // Each missing validation: the controller-gen marker and the schemars attribute.
        let mut missing: Vec<(&str, &str)> = Vec::new();
        if string(node, "x-kubernetes-list-type") != Some("atomic") {
            missing.push((
                "+listType=atomic",
                "extend(\"x-kubernetes-list-type\" = \"atomic\")",
            ));
        }
        if number(node, "maxItems").is_none_or(|m| m > 10000.0) {
            missing.push((
                "+kubebuilder:validation:MaxItems=10000",
                "length(max = 10000)",
            ));
        }
        let min = number(items, "minLength").is_none_or(|m| m < 1.0);
        let max = number(items, "maxLength").is_none_or(|m| m > 512.0);
        if min {
            missing.push(("+kubebuilder:validation:items:MinLength=1", ""));
        }
        if max {
            missing.push(("+kubebuilder:validation:items:MaxLength=512", ""));
        }
        let mut rust: Vec<&str> = missing
            .iter()
            .map(|(_, r)| *r)
            .filter(|r| !r.is_empty())
            .collect();
        let inner = match (min, max) {
            (true, true) => "inner(length(min = 1, max = 512))",
            (true, false) => "inner(length(min = 1))",
            (false, true) => "inner(length(max = 512))",
            (false, false) => "",
        };
        if !inner.is_empty() {
            rust.push(inner);
        }
        let markers: Vec<&str> = missing.iter().map(|(go, _)| *go).collect();
        let fix = self.fix(
            format!("add the markers {}", markers.join(" ")),
            format!("add `#[schemars({})]` to the field", rust.join(", ")),
        );
        let check = self.check(&rules::PROVIDER_ID_LIST_VALIDATION, f);
        if missing.is_empty() {
            check.pass("atomic, at most 10000 items of 1-512 characters");
        } else {
            check.warn(
                format!(
                    "missing the contract example's validation: {}",
                    markers.join(", ")
                ),
                fix,
            );
        }
    }

    fn initialization(&mut self) {
        let f = pool::PROVISIONED.path_in(self.contract);
        let ready_path = pool::PROVISIONED.path_in(Contract::V1Beta1);
        let provisioned = field(self.schema, f);
        let ready = field(self.schema, ready_path);
        match (provisioned.and_then(type_of), ready.and_then(type_of)) {
            (Some("boolean"), _) => {
                self.check(&rules::INITIALIZATION_PROVISIONED, f)
                    .pass("boolean");
                let init_path = pool::INITIALIZATION.path_in(self.contract);
                let min = field(self.schema, init_path).and_then(|i| number(i, "minProperties"));
                let fix = self.fix(
                    "add `+kubebuilder:validation:MinProperties=1` to the initialization status type",
                    "add `#[schemars(extend(\"minProperties\" = 1))]` to the initialization status type",
                );
                let check = self.check(&rules::INITIALIZATION_MIN_PROPERTIES, init_path);
                if min.is_some_and(|m| m >= 1.0) {
                    check.pass("minProperties 1");
                } else {
                    check.warn(format!("{} has no minProperties", init_path.join(".")), fix);
                }
            }
            (None, Some("boolean")) => {
                let outcome = self.opts.compat_outcome();
                let fix = self.fix(
                    format!(
                        "add `{}` (*bool) and set it with {} until v1beta1 support is dropped",
                        f.join("."),
                        ready_path.join(".")
                    ),
                    format!(
                        "add `{}` (`Option<bool>`) and set it with {} until v1beta1 support is dropped",
                        f.join("."),
                        ready_path.join(".")
                    ),
                );
                self.check(&rules::INITIALIZATION_PROVISIONED, f).outcome(
                    outcome,
                    format!(
                        "initialization is reported through the deprecated {} (v1beta1 contract), not {}",
                        ready_path.join("."),
                        f.join(".")
                    ),
                    fix,
                );
            }
            _ => {
                let message =
                    self.missing(format!("{} is {}", f.join("."), describe(provisioned)), f);
                let init = key(pool::INITIALIZATION.path_in(self.contract));
                let fix = self.fix(
                    format!(
                        "add `{}` with `{}`",
                        go_field(init, "<Kind>InitializationStatus", true),
                        go_field(key(f), "*bool", true)
                    ),
                    format!(
                        "add `{}` to the status, with `{}`",
                        rust_field(init, "Option<<Kind>InitializationStatus>"),
                        rust_field(key(f), "Option<bool>")
                    ),
                );
                self.check(&rules::INITIALIZATION_PROVISIONED, f)
                    .fail(message, fix);
            }
        }
    }

    fn ready_v1beta1(&mut self) {
        let f = pool::PROVISIONED.path_in(Contract::V1Beta1);
        let node = field(self.schema, f);
        let message = self.missing(format!("{} is {}", f.join("."), describe(node)), f);
        let fix = self.fix(
            format!("add `{}` to the status", go_field(key(f), "bool", false)),
            format!("add `{}` to the status", rust_field(key(f), "bool")),
        );
        let check = self.check(&rules::READY, f);
        match node {
            Some(n) if type_of(n) == Some("boolean") => check.pass("boolean"),
            _ => check.fail(message, fix),
        }
    }

    fn replicas(&mut self) {
        let f = pool::REPLICAS.path();
        let node = field(self.schema, f);
        let declare = self.fix(
            format!("declare `{}`", go_field(key(f), "int32", false)),
            format!("declare `{}` (not an `Option`)", rust_field(key(f), "i32")),
        );
        let nullable_fix = self.fix(
            format!("drop `nullable: true` (a pointer field with +nullable); {declare}"),
            format!("drop `nullable: true` (schemars writes it for an `Option`); {declare}"),
        );
        let int32_fix = self.fix(
            format!("declare {} as int32", f.join(".")),
            format!("declare {} as `i32`", f.join(".")),
        );
        let add_fix = self.fix(
            format!("add `{}` to the status", go_field(key(f), "int32", false)),
            format!("add `{}` to the status", rust_field(key(f), "i32")),
        );
        let missing = self.missing(format!("{} is {}", f.join("."), describe(node)), f);
        let check = self.check(&rules::REPLICAS, f);
        match node {
            // The contract's example is `Replicas int32 `json:"replicas"`` (infra-machinepool.md,
            // "InfraMachinePool: replicas"): a number, never null; a null is read as no count.
            Some(n) if type_of(n) == Some("integer") && n["nullable"] == true => check.warn(
                format!("{} is nullable: the API server accepts null where the contract's `Replicas int32` is a number the MachinePool controller copies", f.join(".")),
                nullable_fix,
            ),
            Some(n) if type_of(n) == Some("integer") => match string(n, "format") {
                None | Some("int32") => check.pass("integer (int32)"),
                Some(other) => check.warn(
                    format!("format is {other:?}; the value is copied into an int32"),
                    int32_fix,
                ),
            },
            _ => check.fail(missing, add_fix),
        }
    }

    fn conditions(&mut self) {
        let f = pool::CONDITIONS.path();
        let list_map_fix = self.fix(
            "add `+listType=map` and `+listMapKey=type`",
            "add `#[schemars(extend(\"x-kubernetes-list-type\" = \"map\", \"x-kubernetes-list-map-keys\" = [\"type\"]))]`",
        );
        let use_condition = self.fix(
            "use []metav1.Condition",
            "use `Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition>`",
        );
        let Some(node) = field(self.schema, f) else {
            let fix = self.fix(
                "add `Conditions []metav1.Condition` with a Ready condition",
                format!(
                    "add `{}` with a Ready condition (`Condition` from k8s-openapi; capi_machinepool::conditions sets them)",
                    rust_field("conditions", "Vec<Condition>")
                ),
            );
            let message = self.missing(format!("no {}", f.join(".")), f);
            self.check(&rules::CONDITIONS, f).warn(message, fix);
            return;
        };
        let item = &node["items"];
        let string_property = |k: &str| {
            item.get("properties")
                .and_then(|p| p.get(k))
                .and_then(type_of)
                == Some("string")
        };
        if type_of(node) != Some("array") || !string_property("type") || !string_property("status")
        {
            self.check(&rules::CONDITIONS, f).warn(
                format!("{} is not a list of {{type, status}} objects", f.join(".")),
                use_condition,
            );
            return;
        }
        let required: Vec<&str> = item["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let metav1 = ["lastTransitionTime", "message", "reason", "status", "type"]
            .iter()
            .all(|k| required.contains(k))
            && item["properties"].get("severity").is_none();
        let list_map = string(node, "x-kubernetes-list-type") == Some("map");
        // Conditions are metav1.Condition from the v1beta2 contract on.
        let legacy_contract = self.contract < Contract::V1Beta2;
        let check = self.check(&rules::CONDITIONS, f);
        if legacy_contract {
            let shape = if metav1 {
                "metav1.Condition"
            } else {
                "Cluster API v1beta1 conditions"
            };
            check.pass(format!("list of {shape}"));
        } else if !metav1 {
            check.warn(
                "deprecated Cluster API v1beta1 conditions (with severity); read only under the temporary v1beta1 compatibility",
                format!("{use_condition} (move the old list to status.deprecated.v1beta1.conditions)"),
            );
        } else if !list_map {
            check.warn(
                "metav1.Condition list without +listType=map / +listMapKey=type",
                list_map_fix,
            );
        } else {
            check.pass("list of metav1.Condition (map keyed by type)");
        }
    }

    fn terminal_failures(&mut self) {
        for failure in [pool::FAILURE_REASON, pool::FAILURE_MESSAGE] {
            let f = failure.path_in(Contract::V1Beta1);
            let Some(node) = field(self.schema, f) else {
                continue;
            };
            let is_string = type_of(node) == Some("string");
            let in_contract = failure.at(self.contract).is_some();
            let declare = self.fix("declare it as *string", "declare it as `Option<String>`");
            let check = self.check(&rules::TERMINAL_FAILURES, f);
            if !is_string {
                check.fail(
                    format!(
                        "{} is {}; the MachinePool controller reads it as a string",
                        f.join("."),
                        describe(Some(node))
                    ),
                    declare,
                );
            } else if in_contract {
                check.pass("string");
            } else {
                check.info(
                    format!(
                        "{} is a v1beta1 contract field, surfaced only under the temporary compatibility",
                        f.join(".")
                    ),
                    "report terminal failures through conditions",
                );
            }
        }
    }

    fn optional_fields(&mut self) {
        let optional: [(&'static Rule, &[&str], &str, Outcome); 3] = [
            (
                &rules::INSTANCES,
                pool::INSTANCES.path(),
                "array",
                Outcome::Warn,
            ),
            (
                &rules::MACHINE_POOL_MACHINES,
                pool::INFRASTRUCTURE_MACHINE_KIND.path(),
                "string",
                Outcome::Fail,
            ),
            (
                &rules::PROVIDER_ID,
                machine::PROVIDER_ID.path(),
                "string",
                Outcome::Warn,
            ),
        ];
        for (rule, f, expected, on_wrong) in optional {
            match field(self.schema, f) {
                None if rule.id == rules::MACHINE_POOL_MACHINES.id => {
                    let message = self.missing("MachinePool Machines not supported".into(), f);
                    self.check(rule, f).info(message, String::new());
                }
                None => {}
                Some(n) if type_of(n) == Some(expected) => self.check(rule, f).pass(expected),
                Some(n) => {
                    let message = format!(
                        "{} is {}, expected {expected}",
                        f.join("."),
                        describe(Some(n))
                    );
                    self.check(rule, f).outcome(
                        on_wrong,
                        message,
                        format!("declare it as {expected}"),
                    );
                }
            }
        }
    }

    /// The InfraMachine of MachinePool Machines: the MachinePool controller reads its
    /// `spec.providerID` as a string to find the Node (`createOrUpdateMachines`).
    fn machine_provider_id(&mut self) {
        let f = machine::PROVIDER_ID.path();
        let node = field(self.schema, f);
        let message = self.missing(format!("{} is {}", f.join("."), describe(node)), f);
        let fix = self.fix(
            format!("add `{}` to the spec", go_field(key(f), "string", true)),
            format!("add `{}` to the spec", rust_field(key(f), "Option<String>")),
        );
        let check = self.check(&rules::MACHINE_POOL_MACHINE_CRD, f);
        match node.and_then(type_of) {
            Some("string") => check.pass(format!("{} is a string", f.join("."))),
            _ => check.fail(message, fix),
        }
    }

    /// infra-machine.md at ae7ff047: "Each InfraMachine MUST report when Machine's
    /// infrastructure is fully provisioned (initialization) by setting
    /// `status.initialization.provisioned`"; "Cluster API will continue to temporarily support
    /// InfraMachine resource using `status.ready`". A MachinePool Machine's InfraMachine is
    /// waited for like any other, so a CRD with neither never gets a running Machine.
    fn machine_provisioned(&mut self) {
        let provisioned = machine::PROVISIONED.path_in(Contract::current());
        let ready = machine::PROVISIONED.path_in(Contract::V1Beta1);
        let is_bool = |path: &[&str]| field(self.schema, path).and_then(type_of) == Some("boolean");
        let (has_provisioned, has_ready) = (is_bool(provisioned), is_bool(ready));
        let outcome = self.opts.compat_outcome();
        // The contract checked reads `status.ready` itself (v1beta1), not only under the
        // compatibility.
        let v1beta1 = machine::PROVISIONED.path_in(self.contract) == ready;
        // `status.initialization.provisioned`: the object's key and the flag's.
        let (init, flag) = match provisioned {
            [.., init, flag] => (*init, *flag),
            _ => ("", ""),
        };
        let advice = self.fix(
            format!(
                "add `{}` with `{}` to the status",
                go_field(init, "<Kind>InitializationStatus", true),
                go_field(flag, "*bool", true)
            ),
            format!(
                "add `{}` with `{}` to the status",
                rust_field(init, "Option<<Kind>InitializationStatus>"),
                rust_field(flag, "Option<bool>")
            ),
        );
        let (provisioned, ready) = (provisioned.join("."), ready.join("."));
        let check = self.check(&rules::MACHINE_POOL_MACHINE_CRD, &["status"]);
        if has_provisioned {
            check.pass(format!("{provisioned} is a boolean"));
        } else if has_ready && v1beta1 {
            check.pass(format!("{ready} is a boolean (v1beta1 contract)"));
        } else if has_ready {
            check.outcome(
                outcome,
                format!("the InfraMachine reports initialization through the deprecated {ready} (v1beta1 contract), not {provisioned}"),
                advice,
            );
        } else {
            check.fail(
                format!("neither {provisioned} nor {ready}: the Machine controller waits for one of them on every Machine, so no MachinePool Machine ever becomes running"),
                advice,
            );
        }
    }

    fn template_spec(&mut self) {
        let path = template::TEMPLATE_SPEC.path();
        let found = field(self.schema, path).and_then(type_of);
        let check = self.check(&rules::TEMPLATE_SPEC, path);
        match found {
            Some("object") => check.pass("object"),
            other => check.violation(
                format!(
                    "{} is {}",
                    path.join("."),
                    other.map_or("missing".to_owned(), |t| format!("of type {t}"))
                ),
                format!(
                    "give the template {} (the InfraMachinePool spec)",
                    path.join(".")
                ),
            ),
        }
    }
}
