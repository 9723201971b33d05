//! The generated differential of CRD validity: real CRDs (the fixtures' provider CRDs the
//! server accepts) mutated across every rule family of `docs/crd-validation.md`, each mutant
//! sent to the real `apiextensions-apiserver` (`dryRun=All`, nothing stored) and to the model
//! (`capi_apiextensions::crd_validity`, re-exported by the contract checker). Required, case by case:
//!
//! - the server refuses <=> the model refuses, with the **same set of causes**: field path
//!   and message as the server prints them (where the server prints the Go dump of an
//!   internal struct as the value, `DUMPED_VALUES`, the message is compared without it); or
//! - the model says what it did not judge (CEL compilation, Go-only pattern syntax) and
//!   refuses nothing: then it claims nothing, and the case is counted as "not judged";
//!   where it refuses something and leaves something unjudged, each path it names is among
//!   the server's (the server may name more).
//!
//! Cases are drawn by proptest from a fixed seed (reproducible in CI); every disagreement is
//! printed with its mutant. Fixed disagreements are kept as unit tests of the model
//! (`crates/capi-apiextensions/src/crd_validation/tests.rs`).
#![allow(clippy::unwrap_used, clippy::panic, clippy::expect_used)]

use std::collections::BTreeSet;

use capi_e2e::differential::{Pick, Tally, runner};
use proptest::prelude::*;
use serde_json::{Value, json};

const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

/// How many mutants are judged (every family dozens of times over; about 20 s).
const CASES: u32 = 1000;

/// Base CRDs: real provider CRDs (SOURCE notes beside each under tests/fixtures).
const BASES: &[&str] = &[
    "provider-trees/capi-dev/config/crd/bases/infrastructure.cluster.x-k8s.io_devmachinepools.yaml",
    "providers/capd-v1.11.0/crds.yaml",
    "providers/capz-v1.3.2/crds.yaml",
    "providers/oci-v0.15.0/crds.yaml",
];

/// The `pattern` family's patterns: Go's refusals by class, forms it accepts, Go-only syntax
/// the model leaves not judged, and Go's limits on well-formed patterns.
const PATTERNS: &[&str] = &[
    "^[a-z]+$",
    "(?=a)",
    "(?!a)b",
    "(?<=a)b",
    "(a)\\1",
    "(a",
    "a)",
    "[a",
    "a\\",
    "*a",
    "a**",
    "a{1001}",
    "a{2,5}",
    "(?i)abc",
    "(?x)a",
    "\\d+",
    "[[:alpha:]]",
    "(?P<n>a)",
    "\\Qa.b\\E",
    "a{,3}",
    "\\pL",
    "\\C",
    "a*?",
    "a??",
    "a???",
    "\\z",
    // Go's limits on a well-formed pattern (issue 65): nested repetitions over
    // 1000 and a tree higher than 1000.
    "(a{100}){100}",
    "((a{10}){10}){11}",
    "((a{10}){10}){10}",
    "(a{2}){500}",
    "(?:a{2}){501}",
    "((a{100})*){10}",
    DEEP_GROUPS,
    SHALLOW_GROUPS,
];

/// 1000 nested capture groups: Go's `checkHeight` refuses the pattern ("expression nests too
/// deeply").
const DEEP_GROUPS: &str = concat!(
    "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((",
    "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((",
    "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((",
    "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((",
    "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((",
    "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((",
    "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((",
    "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((",
    "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((",
    "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((",
    "))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))",
    "))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))",
    "))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))",
    "))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))",
    "))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))",
    "))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))",
    "))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))",
    "))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))",
    "))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))",
    "))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))",
);

/// 100 nested capture groups: within Go's limits.
const SHALLOW_GROUPS: &str = concat!(
    "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((",
    "))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))",
);

fn load_bases() -> Vec<Value> {
    BASES
        .iter()
        .filter_map(|rel| {
            let path = capi_test_support::fixture(rel);
            let text = std::fs::read_to_string(&path).ok()?;
            serde_saphyr::from_multiple::<Value>(&text)
                .ok()?
                .into_iter()
                .find(|d| {
                    d["kind"] == "CustomResourceDefinition"
                        && d["spec"]["names"]["kind"]
                            .as_str()
                            .is_some_and(|k| k.ends_with("MachinePool"))
                })
        })
        .collect()
}

/// The server's verdict: `None` accepted, `Some(fields)` refused with these cause fields.
/// A refusal as compared: field path and message.
type Cause = (String, String);

/// Messages whose value the server prints as the Go dump of an internal struct (the whole
/// schema, the whole list of versions): compared by their detail alone.
const DUMPED_VALUES: &[&str] = &[
    "fields are allowed at the root of the schema if the status subresource is enabled",
    "must have exactly one version marked as storage version",
];

/// CEL syntax errors: cel-go's parser reports ANTLR's error recovery (which token it
/// expected, every later error); the model's verdict, path and first error position are the
/// server's, its text after `Syntax error:` is approximate (docs/crd-validation.md, CEL
/// table: "message exact for ... otherwise approximate"), so the text is compared up to there.
const SYNTAX_ERROR: &str = "Syntax error:";

fn normalized((field, message): (String, String)) -> Cause {
    if let Some(at) = message.find(SYNTAX_ERROR) {
        return (field, format!("{}...", &message[..at + SYNTAX_ERROR.len()]));
    }
    match DUMPED_VALUES.iter().find(|d| message.ends_with(*d)) {
        Some(detail) => (field, format!("Invalid value: <dump>: ...{detail}")),
        None => (field, message),
    }
}

async fn server_verdict(client: &kube::Client, crd: &Value) -> Option<BTreeSet<Cause>> {
    let request = capi_e2e::http_request(
        "POST",
        &format!("{CRDS}?dryRun=All"),
        serde_json::to_vec(crd).unwrap(),
    );
    match client.request::<Value>(request).await {
        Ok(_) => None,
        Err(kube::Error::Api(status)) => {
            assert_ne!(
                status.reason, "AlreadyExists",
                "a base CRD is installed: {status:?}"
            );
            // A decoding failure: 400, no causes.
            if status
                .message
                .contains("cannot be handled as a CustomResourceDefinition")
            {
                return Some(BTreeSet::from([(
                    "<decoding>".to_owned(),
                    "cannot be decoded".to_owned(),
                )]));
            }
            let mut fields: BTreeSet<Cause> = status
                .details
                .map(|d| {
                    d.causes
                        .into_iter()
                        .map(|c| normalized((c.field, c.message)))
                        .collect()
                })
                .unwrap_or_default();
            if fields.is_empty() {
                fields.insert((format!("<no field: {}>", status.message), String::new()));
            }
            Some(fields)
        }
        Err(e) => panic!("the API server did not answer: {e}"),
    }
}

/// Every version's `spec` schema (or, with `first_only`, the first version's).
fn spec_nodes(crd: &mut Value, first_only: bool) -> Vec<&mut Value> {
    let versions = crd["spec"]["versions"].as_array_mut().unwrap();
    let n = if first_only { 1 } else { versions.len() };
    versions
        .iter_mut()
        .take(n)
        .map(|v| &mut v["schema"]["openAPIV3Schema"]["properties"]["spec"])
        .collect()
}

/// Adds `node` as property `mutant` of `spec`, in every version or only the first (so that
/// both the hoisted `spec.validation` paths and per-version paths are exercised).
fn add_field(crd: &mut Value, node: Value, p: &mut Pick) {
    let first_only = p.next(2) == 0;
    for spec in spec_nodes(crd, first_only) {
        if spec["properties"].is_null() {
            spec["properties"] = json!({});
        }
        spec["properties"]["mutant"] = node.clone();
    }
}

const FAMILIES: &[&str] = &[
    "names",
    "metadata",
    "versions",
    "conversion",
    "scale",
    "columns",
    "selectable",
    "structural",
    "list-types",
    "defaults",
    "pattern",
    "cel",
    "status-root",
    "decoding",
];

fn mutate(crd: &mut Value, family: &str, p: &mut Pick) {
    let kind = crd["spec"]["names"]["kind"].as_str().unwrap().to_owned();
    match family {
        // A value of another JSON type where the Go types want one (or a valid odd one).
        "decoding" => {
            let (key, value) = p
                .of(&[
                    ("minLength", json!("3")),
                    ("minLength", json!(3.0)),
                    ("minLength", json!(3)),
                    ("MinLength", json!("3")),
                    ("maximum", json!(5)),
                    ("maximum", json!("5")),
                    ("maxItems", json!(2.5)),
                    ("required", json!("a")),
                    ("enum", json!("a")),
                    ("enum", json!(["a", 1])),
                    ("items", json!("x")),
                    ("additionalProperties", json!("x")),
                    ("properties", json!([])),
                    ("nullable", json!("true")),
                    ("x-kubernetes-list-map-keys", json!("a")),
                    ("x-kubernetes-validations", json!({"rule": "true"})),
                    ("description", json!(5)),
                    ("default", json!({"any": ["thing"]})),
                    ("unknownKeyword", json!(1)),
                ])
                .clone();
            match p.next(5) {
                0 => {
                    let spot = *p.of(&["served", "storage", "deprecated", "name"]);
                    crd["spec"]["versions"][0][spot] =
                        json!(*p.of(&[json!("yes"), json!(1), json!([])]));
                }
                1 => {
                    crd["spec"]["names"][*p.of(&["kind", "plural", "shortNames", "categories"])] =
                        json!(*p.of(&[json!(5), json!("x"), json!({})]));
                }
                2 => {
                    crd["spec"]["versions"][0]["additionalPrinterColumns"] = json!([{
                        "name": "C", "type": "string", "jsonPath": ".spec",
                        "priority": *p.of(&[json!("1"), json!(3_000_000_000_i64), json!(1), json!(1.5)])}]);
                }
                _ => {
                    let mut node = json!({"type": "string"});
                    node[key] = value;
                    add_field(crd, node, p);
                }
            }
        }
        "names" => match p.next(5) {
            0 => crd["spec"]["names"]["listKind"] = json!(kind),
            1 => crd["spec"]["names"]["shortNames"] = json!([*p.of(&["ok", "Bad", "a_b", "x1"])]),
            2 => {
                crd["spec"]["names"]["categories"] =
                    json!([*p.of(&["cluster-api", "Cluster API", "9x"])])
            }
            3 => crd["spec"]["names"]["singular"] = json!(*p.of(&["Upper", "fine", "a.b"])),
            _ => crd["spec"]["names"]["kind"] = json!(*p.of(&["Bad Kind", "good", "Kind-2"])),
        },
        "metadata" => match p.next(3) {
            0 => crd["metadata"]["name"] = json!("wrong.infrastructure.cluster.x-k8s.io"),
            1 => {
                crd["spec"]["group"] = json!("nodot");
                let plural = crd["spec"]["names"]["plural"].as_str().unwrap().to_owned();
                crd["metadata"]["name"] = json!(format!("{plural}.nodot"));
            }
            _ => {
                crd["spec"]["group"] = json!("example.k8s.io");
                let plural = crd["spec"]["names"]["plural"].as_str().unwrap().to_owned();
                crd["metadata"]["name"] = json!(format!("{plural}.example.k8s.io"));
            }
        },
        "versions" => {
            let versions = crd["spec"]["versions"].as_array_mut().unwrap();
            match p.next(5) {
                0 => {
                    for v in versions.iter_mut() {
                        v["storage"] = json!(true);
                    }
                    if versions.len() == 1 {
                        let mut second = versions[0].clone();
                        second["name"] = json!("v9");
                        versions.push(second);
                    }
                }
                1 => {
                    for v in versions.iter_mut() {
                        v["storage"] = json!(false);
                    }
                }
                2 => versions[0]["name"] = json!(*p.of(&["V1", "v1.2", "1v"])),
                3 => versions[0]["deprecationWarning"] = json!("gone soon"),
                _ => {
                    versions[0]["deprecated"] = json!(true);
                    versions[0]["deprecationWarning"] = json!(*p.of(&["", "ok", "tab\there"]));
                }
            }
        }
        "conversion" => {
            let svc = json!({"namespace": "capi", "name": "webhook", "path": "/convert"});
            crd["spec"]["conversion"] = match p.next(9) {
                0 => json!({"strategy": "Webhook"}),
                1 => {
                    json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"]}})
                }
                2 => json!({"strategy": "Webhook", "webhook": {"clientConfig": {"service": svc}}}),
                3 => {
                    json!({"strategy": "Webhook", "webhook": {"clientConfig": {"service": svc, "url": "https://x/c"}, "conversionReviewVersions": ["v1"]}})
                }
                4 => {
                    json!({"strategy": "Webhook", "webhook": {"clientConfig": {"url": *p.of(&["http://x/c", "https://x/c?q=1", "https:///c", "https://u@x/c", "https://x/c#f"])}, "conversionReviewVersions": ["v1"]}})
                }
                5 => {
                    json!({"strategy": "Webhook", "webhook": {"clientConfig": {"service": {"namespace": "capi", "name": "webhook", "port": *p.of(&[0, 443, 70000])}}, "conversionReviewVersions": ["v1"]}})
                }
                6 => {
                    json!({"strategy": "Webhook", "webhook": {"clientConfig": {"service": svc}, "conversionReviewVersions": *p.of(&[json!(["v2"]), json!(["v1", "v1"]), json!(["v1beta1", "V2"])])}})
                }
                7 => {
                    json!({"strategy": "None", "webhook": {"clientConfig": {"service": svc}, "conversionReviewVersions": ["v1"]}})
                }
                _ => {
                    json!({"strategy": *p.of(&["Nope", "None", "Webhook"]), "webhook": {"clientConfig": {"service": {"namespace": *p.of(&["", "ns"]), "name": *p.of(&["", "n"]), "path": *p.of(&["/ok", "no-slash", "/a//b", "/Up"])}}, "conversionReviewVersions": ["v1"]}})
                }
            };
        }
        "scale" => {
            let scale = json!({
                "specReplicasPath": *p.of(&[".spec.replicas", "spec.replicas", ".status.replicas", ""]),
                "statusReplicasPath": *p.of(&[".status.replicas", ".spec.replicas", ""]),
                "labelSelectorPath": *p.of(&[".status.selector", "selector", ".metadata.labels", ""]),
            });
            for v in crd["spec"]["versions"].as_array_mut().unwrap() {
                v["subresources"]["scale"] = scale.clone();
            }
        }
        "columns" => {
            let column = json!({
                "name": *p.of(&["Ready", ""]),
                "type": *p.of(&["string", "int", "date", ""]),
                "format": *p.of(&["", "date-time", "uuid"]),
                "jsonPath": *p.of(&[".status.ready", "status.ready", ""]),
            });
            let first_only = p.next(2) == 0;
            for (i, v) in crd["spec"]["versions"]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .enumerate()
            {
                if i == 0 || !first_only {
                    v["additionalPrinterColumns"] = json!([column.clone()]);
                }
            }
        }
        "selectable" => {
            let fields = match p.next(5) {
                0 => json!([{"jsonPath": ".metadata.name"}]),
                1 => json!([{"jsonPath": ".spec"}]),
                2 => json!([{"jsonPath": ".spec.nope"}]),
                3 => json!([{"jsonPath": ".spec.providerID"}, {"jsonPath": ".spec.providerID"}]),
                _ => json!([{"jsonPath": ""}]),
            };
            for v in crd["spec"]["versions"].as_array_mut().unwrap() {
                v["selectableFields"] = fields.clone();
                let spec = &mut v["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"];
                if spec["providerID"].is_null() {
                    spec["providerID"] = json!({"type": "string"});
                }
            }
        }
        "structural" => {
            let node = p.of(&[
                json!({"description": "no type"}),
                json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}}),
                json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}),
                json!({"type": "object", "additionalProperties": false}),
                json!({"type": "string", "allOf": [{"type": "string"}]}),
                json!({"type": "string", "anyOf": [{"description": "x"}]}),
                json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true}),
                json!({"type": "array"}),
                json!({"type": "object", "x-kubernetes-preserve-unknown-fields": false}),
                json!({"type": "null"}),
                json!({"type": "strng"}),
                json!({"type": "object", "properties": {"metadata": {"type": "object", "properties": {"name": {"type": "string"}}}}, "x-kubernetes-embedded-resource": true}),
                json!({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]}),
                json!({"x-kubernetes-int-or-string": true, "x-kubernetes-preserve-unknown-fields": true}),
                json!({"type": "string", "x-kubernetes-embedded-resource": true}),
                json!({"type": "object", "x-kubernetes-embedded-resource": true}),
                json!({"type": "object", "anyOf": [{"properties": {"x": {"type": "string"}}}]}),
                json!({"type": "object", "$ref": "#/x"}),
            ])
            .clone();
            match p.next(4) {
                0 => {
                    let root = &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
                    root["properties"]["metadata"] = p
                        .of(&[
                            json!({"type": "object", "properties": {"name": {"type": "string"}}}),
                            json!({"type": "object", "properties": {"labels": {"type": "object"}}}),
                            json!({"type": "object", "description": "meta"}),
                            json!({"type": "string"}),
                        ])
                        .clone();
                }
                _ => add_field(crd, node, p),
            }
        }
        "list-types" => {
            let item = json!({"type": "object", "properties": {
                "name": {"type": "string"}, "port": {"type": "integer", "default": 80},
                "opt": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}},
                "required": ["name"]});
            let list = |extra: Value| {
                let mut node = json!({"type": "array", "items": item.clone()});
                for (k, v) in extra.as_object().unwrap() {
                    node[k] = v.clone();
                }
                node
            };
            let node = match p.next(11) {
                0 => list(
                    json!({"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]}),
                ),
                1 => list(json!({"x-kubernetes-list-type": "map"})),
                2 => list(
                    json!({"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["absent"]}),
                ),
                3 => list(
                    json!({"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["opt"]}),
                ),
                4 => list(
                    json!({"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["tags"]}),
                ),
                5 => list(
                    json!({"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "port"]}),
                ),
                6 => list(json!({"x-kubernetes-list-type": "set"})),
                7 => list(json!({"x-kubernetes-list-type": *p.of(&["bag", "atomic"])})),
                8 => {
                    json!({"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"})
                }
                9 => {
                    json!({"type": "object", "x-kubernetes-map-type": *p.of(&["granular", "atomic", "weird"])})
                }
                _ => json!({"type": "string", "x-kubernetes-list-type": "atomic"}),
            };
            add_field(crd, node, p);
        }
        "defaults" => {
            let node = p.of(&[
                json!({"type": "string", "minLength": 1, "default": ""}),
                json!({"type": "string", "enum": ["a", "b"], "default": "c"}),
                json!({"type": "string", "enum": ["a", "b"], "default": "a"}),
                json!({"type": "integer", "default": "1"}),
                json!({"type": "integer", "maximum": 5, "default": 6}),
                json!({"type": "object", "properties": {"a": {"type": "string"}}, "default": {"b": "x"}}),
                json!({"type": "object", "properties": {"a": {"type": "string"}}, "default": {"a": "x"}}),
                json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "default": {}}),
                json!({"type": "array", "items": {"type": "string"}, "maxItems": 1, "default": ["a", "b"]}),
                json!({"type": "string", "pattern": "^a+$", "default": "b"}),
                // Numbers at and beyond int64 (issue 65): Go decodes the latter as float64.
                json!({"type": "integer", "default": 9_223_372_036_854_775_807_i64}),
                json!({"type": "integer", "default": 9_223_372_036_854_775_808_u64}),
                json!({"type": "integer", "format": "int64", "default": 18_446_744_073_709_551_615_u64}),
                json!({"type": "integer", "format": "int32", "default": 2_147_483_648_i64}),
                json!({"type": "number", "default": 9_223_372_036_854_775_808_u64}),
                json!({"type": "integer", "default": 3.0}),
            ]).clone();
            if p.next(5) == 0 {
                crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["metadata"] =
                    json!({"type": "object", "default": {"name": "x"}});
            } else {
                add_field(crd, node, p);
            }
        }
        "pattern" => {
            let pattern = *p.of(PATTERNS);
            add_field(crd, json!({"type": "string", "pattern": pattern}), p);
        }
        "cel" => {
            let reason = *p.of(&["FieldValueInvalid", "Nope"]);
            let rule = p
                .of(&[
                    json!({"rule": "self.size() > 0"}),
                    json!({"rule": "self.size( > 0"}),
                    json!({"rule": "self.nope == 1"}),
                    json!({"rule": "1"}),
                    json!({"rule": ""}),
                    json!({"rule": "self.size() > 0", "reason": reason}),
                    json!({"rule": "self.size() > 0", "message": " "}),
                    json!({"rule": "self.size() > 0", "message": "a\nb"}),
                    json!({"rule": "self.size()\n> 0"}),
                    json!({"rule": "self.size() > 0", "messageExpression": " "}),
                    json!({"rule": "self.size() > 0", "optionalOldSelf": true}),
                ])
                .clone();
            let field_path = p.next(3);
            add_field(
                crd,
                json!({"type": "string", "x-kubernetes-validations": [rule]}),
                p,
            );
            if field_path > 0 {
                // fieldPath on an object node.
                let node = json!({"type": "object", "properties": {"a": {"type": "string"}},
                    "x-kubernetes-validations": [{"rule": "true", "fieldPath": *p.of(&[".a", ".b", "a", " "])}]});
                add_field(crd, node, p);
            }
        }
        _ => {
            // status-root: only some keywords at the root with the status subresource.
            let root = &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
            let (key, value) = p
                .of(&[
                    ("nullable", json!(true)),
                    ("enum", json!([{}])),
                    ("x-kubernetes-map-type", json!("atomic")),
                    ("description", json!("fine")),
                    ("minProperties", json!(1)),
                    ("type", json!("string")),
                ])
                .clone();
            root[key] = value;
            crd["spec"]["versions"][0]["subresources"]["status"] = json!({});
        }
    }
}

#[test]
fn generated_mutants_are_judged_as_the_api_server_judges_them() {
    let Some(server) = capi_e2e::api_server() else {
        return;
    };
    let bases = load_bases();
    assert_eq!(bases.len(), BASES.len(), "every base CRD loads");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let client = runtime.block_on(server.client());
    for base in &bases {
        assert_eq!(
            runtime.block_on(server_verdict(&client, base)),
            None,
            "the server accepts every base"
        );
        let verdict = capi_contract_check::crd_validity(base);
        assert_eq!(
            verdict,
            Default::default(),
            "the model accepts and fully judges every base"
        );
    }
    let tally = Tally::default();
    let strategy = (0..bases.len(), 0..FAMILIES.len(), any::<u64>());
    runner(CASES, 7)
        .run(&strategy, |(b, f, seed)| {
            let family = FAMILIES[f];
            let mut crd = bases[b].clone();
            mutate(&mut crd, family, &mut Pick(seed));
            let server = runtime.block_on(server_verdict(&client, &crd));
            let model = capi_contract_check::crd_validity(&crd);
            let ours: BTreeSet<Cause> = model
                .refusals
                .iter()
                .map(|r| {
                    if matches!(r, capi_contract_check::Refusal::Undecodable { .. }) {
                        ("<decoding>".to_owned(), "cannot be decoded".to_owned())
                    } else {
                        normalized((r.field().to_owned(), r.message()))
                    }
                })
                .collect();
            let outcome = match (&server, ours.is_empty(), model.not_judged.is_empty()) {
                (_, true, false) => "not judged",
                (None, true, true) => "both accept",
                (Some(fields), false, true) if *fields == ours => "both refuse, same causes",
                // Some parts not judged: what the model refuses the server refuses too, and
                // the server may refuse more.
                (Some(fields), false, false) if ours.is_subset(fields) => "both refuse, server more",
                _ => "",
            };
            let disagreement = outcome.is_empty().then(|| {
                format!(
                    "{family} on {}: server {server:?}, model {:?} (not judged: {:?})\n  mutant spec: {}",
                    crd["metadata"]["name"], model.refusals, model.not_judged,
                    serde_json::to_string(&crd["spec"]).unwrap().chars().take(600).collect::<String>()
                )
            });
            tally.record(family, outcome, disagreement);
            Ok(())
        })
        .unwrap();
    tally.finish(CASES, FAMILIES);
}

/// Every pattern of the family, not a sample of them: the model's verdict on a base with a
/// string field of that pattern is the real server's (or the model says it did not judge).
#[test]
fn every_pattern_of_the_family_is_judged_as_the_api_server_judges_it() {
    let Some(server) = capi_e2e::api_server() else {
        return;
    };
    let bases = load_bases();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let client = runtime.block_on(server.client());
    let mut judged = 0;
    for pattern in PATTERNS {
        let mut crd = bases[0].clone();
        let props = &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"];
        props["patterned"] = json!({"type": "string", "pattern": pattern});
        let server = runtime.block_on(server_verdict(&client, &crd));
        let model = capi_contract_check::crd_validity(&crd);
        if !model.not_judged.is_empty() {
            assert!(model.refusals.is_empty(), "{pattern}: {model:?}");
            continue;
        }
        judged += 1;
        let ours: BTreeSet<Cause> = model
            .refusals
            .iter()
            .map(|r| normalized((r.field().to_owned(), r.message())))
            .collect();
        match server {
            None => assert!(
                ours.is_empty(),
                "{pattern}: the server accepts, the model: {ours:?}"
            ),
            Some(fields) => assert_eq!(fields, ours, "{pattern}"),
        }
    }
    assert!(
        judged + 6 >= PATTERNS.len(),
        "{judged} of {} judged",
        PATTERNS.len()
    );
}
