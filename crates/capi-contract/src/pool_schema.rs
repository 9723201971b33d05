//! Schema checks of one InfraMachinePool CRD version against one contract version.

use serde_json::Value;

use crate::crd_check::Ctx;
use crate::report::Outcome;
use crate::schema_view::{field, number, string, type_of, yaml_path};

/// Runs every field rule of `contract` on `schema` (the version's `openAPIV3Schema`).
pub(crate) fn check_pool_schema(
    ctx: &mut Ctx<'_>,
    subject: &str,
    contract: &str,
    version: &str,
    schema: &Value,
) {
    let c = Check {
        subject,
        contract,
        version,
        schema,
    };
    c.provider_id_list(ctx);
    if contract == "v1beta1" {
        c.ready_v1beta1(ctx);
    } else {
        c.initialization(ctx);
    }
    c.replicas(ctx);
    c.conditions(ctx);
    c.terminal_failures(ctx);
    c.optional_fields(ctx);
}

struct Check<'a> {
    subject: &'a str,
    contract: &'a str,
    version: &'a str,
    schema: &'a Value,
}

fn describe(node: Option<&Value>) -> String {
    match node {
        None => "missing".into(),
        Some(n) => format!("of type {}", type_of(n).unwrap_or("<none>")),
    }
}

impl Check<'_> {
    fn path(&self, fields: &[&str]) -> String {
        yaml_path(self.version, fields)
    }

    fn add(
        &self,
        ctx: &mut Ctx<'_>,
        id: &str,
        outcome: Outcome,
        fields: &[&str],
        message: String,
        fix: &str,
    ) {
        ctx.report.record(
            id,
            outcome,
            self.subject,
            self.contract,
            &self.path(fields),
            message,
            fix,
        );
    }

    fn provider_id_list(&self, ctx: &mut Ctx<'_>) {
        let f = ["spec", "providerIDList"];
        let node = field(self.schema, &f);
        let items_type = node.and_then(|n| n.get("items")).and_then(type_of);
        if node.and_then(type_of) != Some("array") || items_type != Some("string") {
            let message = match node {
                Some(n) if type_of(n) == Some("array") => {
                    format!("items are {}", items_type.unwrap_or("untyped"))
                }
                other => format!("spec.providerIDList is {}", describe(other)),
            };
            self.add(
                ctx,
                "provider-id-list",
                Outcome::Fail,
                &f,
                message,
                "add `ProviderIDList []string `json:\"providerIDList,omitempty\"`` to the spec",
            );
            return;
        }
        self.add(
            ctx,
            "provider-id-list",
            Outcome::Pass,
            &f,
            "array of string".into(),
            "",
        );
        let Some(node) = node else { return };
        let items = &node["items"];
        let mut missing = Vec::new();
        if string(node, "x-kubernetes-list-type") != Some("atomic") {
            missing.push("+listType=atomic");
        }
        if number(node, "maxItems").is_none_or(|m| m > 10000.0) {
            missing.push("+kubebuilder:validation:MaxItems=10000");
        }
        if number(items, "minLength").is_none_or(|m| m < 1.0) {
            missing.push("+kubebuilder:validation:items:MinLength=1");
        }
        if number(items, "maxLength").is_none_or(|m| m > 512.0) {
            missing.push("+kubebuilder:validation:items:MaxLength=512");
        }
        if missing.is_empty() {
            self.add(
                ctx,
                "provider-id-list-validation",
                Outcome::Pass,
                &f,
                "atomic, at most 10000 items of 1-512 characters".into(),
                "",
            );
        } else {
            self.add(
                ctx,
                "provider-id-list-validation",
                Outcome::Warn,
                &f,
                format!(
                    "missing the contract example's validation: {}",
                    missing.join(", ")
                ),
                &format!("add the markers {}", missing.join(" ")),
            );
        }
    }

    fn initialization(&self, ctx: &mut Ctx<'_>) {
        let f = ["status", "initialization", "provisioned"];
        let provisioned = field(self.schema, &f);
        let ready = field(self.schema, &["status", "ready"]);
        match (provisioned.and_then(type_of), ready.and_then(type_of)) {
            (Some("boolean"), _) => {
                self.add(
                    ctx,
                    "initialization-provisioned",
                    Outcome::Pass,
                    &f,
                    "boolean".into(),
                    "",
                );
                let init = field(self.schema, &["status", "initialization"]);
                if init
                    .and_then(|i| number(i, "minProperties"))
                    .is_some_and(|m| m >= 1.0)
                {
                    self.add(
                        ctx,
                        "initialization-min-properties",
                        Outcome::Pass,
                        &["status", "initialization"],
                        "minProperties 1".into(),
                        "",
                    );
                } else {
                    self.add(ctx, "initialization-min-properties", Outcome::Warn, &["status", "initialization"],
                        "status.initialization has no minProperties".into(), "add `+kubebuilder:validation:MinProperties=1` to the initialization status type");
                }
            }
            (None, Some("boolean")) => {
                let outcome = ctx.compat();
                self.add(ctx, "initialization-provisioned", outcome, &f,
                    "initialization is reported through the deprecated status.ready (v1beta1 contract), not status.initialization.provisioned".into(),
                    "add `status.initialization.provisioned` (*bool) and set it with status.ready until v1beta1 support is dropped");
            }
            _ => {
                self.add(ctx, "initialization-provisioned", Outcome::Fail, &f,
                    format!("status.initialization.provisioned is {}", describe(provisioned)),
                    "add `Initialization FooMachinePoolInitializationStatus` with `Provisioned *bool `json:\"provisioned,omitempty\"``");
            }
        }
    }

    fn ready_v1beta1(&self, ctx: &mut Ctx<'_>) {
        let f = ["status", "ready"];
        match field(self.schema, &f) {
            Some(n) if type_of(n) == Some("boolean") => {
                self.add(ctx, "ready", Outcome::Pass, &f, "boolean".into(), "")
            }
            other => self.add(
                ctx,
                "ready",
                Outcome::Fail,
                &f,
                format!("status.ready is {}", describe(other)),
                "add `Ready bool `json:\"ready\"`` to the status",
            ),
        }
    }

    fn replicas(&self, ctx: &mut Ctx<'_>) {
        let f = ["status", "replicas"];
        match field(self.schema, &f) {
            Some(n) if type_of(n) == Some("integer") => {
                if string(n, "format").is_none_or(|fmt| fmt == "int32") {
                    self.add(
                        ctx,
                        "replicas",
                        Outcome::Pass,
                        &f,
                        "integer (int32)".into(),
                        "",
                    );
                } else {
                    self.add(
                        ctx,
                        "replicas",
                        Outcome::Warn,
                        &f,
                        format!(
                            "format is {:?}; the value is copied into an int32",
                            string(n, "format")
                        ),
                        "declare status.replicas as int32",
                    );
                }
            }
            other => self.add(
                ctx,
                "replicas",
                Outcome::Fail,
                &f,
                format!("status.replicas is {}", describe(other)),
                "add `Replicas int32 `json:\"replicas\"`` to the status",
            ),
        }
    }

    fn conditions(&self, ctx: &mut Ctx<'_>) {
        let f = ["status", "conditions"];
        let Some(node) = field(self.schema, &f) else {
            self.add(
                ctx,
                "conditions",
                Outcome::Warn,
                &f,
                "no status.conditions".into(),
                "add `Conditions []metav1.Condition` with a Ready condition",
            );
            return;
        };
        let item = &node["items"];
        let props = |k: &str| {
            item.get("properties")
                .and_then(|p| p.get(k))
                .and_then(type_of)
                == Some("string")
        };
        if type_of(node) != Some("array") || !props("type") || !props("status") {
            self.add(
                ctx,
                "conditions",
                Outcome::Warn,
                &f,
                "status.conditions is not a list of {type, status} objects".into(),
                "use []metav1.Condition",
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
        if self.contract == "v1beta1" {
            let shape = if metav1 {
                "metav1.Condition"
            } else {
                "Cluster API v1beta1 conditions"
            };
            self.add(
                ctx,
                "conditions",
                Outcome::Pass,
                &f,
                format!("list of {shape}"),
                "",
            );
        } else if !metav1 {
            self.add(ctx, "conditions", Outcome::Warn, &f,
                "deprecated Cluster API v1beta1 conditions (with severity); read only under the temporary v1beta1 compatibility".into(),
                "use []metav1.Condition (move the old list to status.deprecated.v1beta1.conditions)");
        } else if string(node, "x-kubernetes-list-type") != Some("map") {
            self.add(
                ctx,
                "conditions",
                Outcome::Warn,
                &f,
                "metav1.Condition list without +listType=map / +listMapKey=type".into(),
                "add `+listType=map` and `+listMapKey=type`",
            );
        } else {
            self.add(
                ctx,
                "conditions",
                Outcome::Pass,
                &f,
                "list of metav1.Condition (map keyed by type)".into(),
                "",
            );
        }
    }

    fn terminal_failures(&self, ctx: &mut Ctx<'_>) {
        for name in ["failureReason", "failureMessage"] {
            let f = ["status", name];
            let Some(node) = field(self.schema, &f) else {
                continue;
            };
            if type_of(node) != Some("string") {
                self.add(
                    ctx,
                    "terminal-failures",
                    Outcome::Fail,
                    &f,
                    format!(
                        "status.{name} is {}; the MachinePool controller reads it as a string",
                        describe(Some(node))
                    ),
                    "declare it as *string",
                );
            } else if self.contract == "v1beta1" {
                self.add(
                    ctx,
                    "terminal-failures",
                    Outcome::Pass,
                    &f,
                    "string".into(),
                    "",
                );
            } else {
                self.add(ctx, "terminal-failures", Outcome::Info, &f,
                    format!("status.{name} is a v1beta1 contract field, surfaced only under the temporary compatibility"),
                    "report terminal failures through conditions");
            }
        }
    }

    fn optional_fields(&self, ctx: &mut Ctx<'_>) {
        let optional: [(&str, &[&str], &str, Outcome); 3] = [
            (
                "instances",
                &["status", "instances"],
                "array",
                Outcome::Warn,
            ),
            (
                "machine-pool-machines",
                &["status", "infrastructureMachineKind"],
                "string",
                Outcome::Fail,
            ),
            (
                "provider-id",
                &["spec", "providerID"],
                "string",
                Outcome::Warn,
            ),
        ];
        for (id, f, expected, on_wrong) in optional {
            match field(self.schema, f) {
                None if id == "machine-pool-machines" => self.add(
                    ctx,
                    id,
                    Outcome::Info,
                    f,
                    "MachinePool Machines not supported".into(),
                    "",
                ),
                None => {}
                Some(n) if type_of(n) == Some(expected) => {
                    self.add(ctx, id, Outcome::Pass, f, expected.to_owned(), "")
                }
                Some(n) => self.add(
                    ctx,
                    id,
                    on_wrong,
                    f,
                    format!(
                        "{} is {}, expected {expected}",
                        f.join("."),
                        describe(Some(n))
                    ),
                    &format!("declare it as {expected}"),
                ),
            }
        }
    }
}
