//! The named cases of issue 60 (step 1), each sent to the real API server and judged by the
//! model: the same causes, field path and message exactly. The CRD's own metadata through
//! apimachinery's `ObjectMeta` validation, conversion webhook URLs parsed as Go's `net/url`,
//! `unicode.IsPrint` for deprecation warnings, `$schema`, the CEL `fieldPath` grammar, and
//! defaults against `format` (`date-time`, `duration`, `byte`), `multipleOf` and
//! int-or-string.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;

use serde_json::{Value, json};

const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

type Cause = (String, String);

fn base() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "namedcases.infrastructure.example.com"},
        "spec": {
            "group": "infrastructure.example.com", "scope": "Namespaced",
            "names": {"kind": "NamedCase", "plural": "namedcases"},
            "versions": [{
                "name": "v1beta1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {
                        "list": {"type": "array", "items": {"type": "string"}},
                        "map": {"type": "object", "additionalProperties": {"type": "string"}},
                        "name": {"type": "string"}}}}}}
            }]
        }
    })
}

/// The server's causes (`None`: accepted).
async fn server(client: &kube::Client, crd: &Value) -> Option<BTreeSet<Cause>> {
    let request = capi_e2e::http_request(
        "POST",
        &format!("{CRDS}?dryRun=All"),
        serde_json::to_vec(crd).unwrap(),
    );
    match client.request_text(request).await {
        Ok(_) => None,
        Err(kube::Error::Api(status)) => {
            let message = status.message.clone();
            Some(
                status
                    .details
                    .map(|d| d.causes.into_iter().map(|c| (c.field, c.message)).collect())
                    .unwrap_or_else(|| BTreeSet::from([(String::new(), message)])),
            )
        }
        Err(e) => panic!("the API server did not answer: {e}"),
    }
}

/// The model's causes (`None`: accepted), and whether it judged everything.
fn model(crd: &Value) -> (Option<BTreeSet<Cause>>, bool) {
    let verdict = capi_contract_check::crd_validity(crd);
    let causes: BTreeSet<Cause> = verdict
        .refusals
        .iter()
        .map(|r| (r.field().to_owned(), r.message()))
        .collect();
    (
        (!causes.is_empty()).then_some(causes),
        verdict.not_judged.is_empty(),
    )
}

fn cases() -> Vec<(&'static str, Value)> {
    let mut out = Vec::new();
    let mut case = |name: &'static str, edit: &dyn Fn(&mut Value)| {
        let mut crd = base();
        edit(&mut crd);
        out.push((name, crd));
    };
    case("label value of 64 characters", &|c| {
        c["metadata"]["labels"] = json!({"a": "x".repeat(64)});
    });
    case("label key with two slashes", &|c| {
        c["metadata"]["labels"] = json!({"a/b/c": "x"});
    });
    case("bad annotation key", &|c| {
        c["metadata"]["annotations"] = json!({"-bad": "x"});
    });
    case("annotations over 256 KiB", &|c| {
        c["metadata"]["annotations"] = json!({"big": "x".repeat(262_142)});
    });
    case("annotations of exactly 256 KiB", &|c| {
        c["metadata"]["annotations"] = json!({"big": "x".repeat(262_141)});
    });
    case("bad finalizer", &|c| {
        c["metadata"]["finalizers"] = json!(["bad finalizer"]);
    });
    case("two controller owner references", &|c| {
        c["metadata"]["ownerReferences"] = json!([
            {"apiVersion": "v1", "kind": "ConfigMap", "name": "a", "uid": "1", "controller": true},
            {"apiVersion": "v1", "kind": "ConfigMap", "name": "b", "uid": "2", "controller": true}]);
    });
    for (name, url) in [
        (
            "webhook URL with a space in the host",
            "https://exa mple.com/convert",
        ),
        (
            "webhook URL with a bad escape",
            "https://example.com/con%zzvert",
        ),
        (
            "webhook URL with HTTPS in capitals",
            "HTTPS://example.com/convert",
        ),
        (
            "webhook URL with a bad host escape",
            "https://ex%41mple.com/",
        ),
        ("webhook URL with colons in the host", "https://a:1:2/"),
        (
            "webhook URL with an escaped fragment",
            "https://example.com/#a%41",
        ),
    ] {
        let url = url.to_owned();
        case(name, &move |c| {
            c["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {
                "conversionReviewVersions": ["v1"], "clientConfig": {"url": url.clone()}}});
        });
    }
    case("deprecation warning with a no-break space", &|c| {
        c["spec"]["versions"][0]["deprecated"] = json!(true);
        c["spec"]["versions"][0]["deprecationWarning"] = json!("old\u{a0}version");
    });
    case("$schema in a property", &|c| {
        c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
            ["name"]["$schema"] = json!("http://json-schema.org/draft-04/schema#");
    });
    for (name, path) in [
        ("fieldPath with a list index", ".list[0]"),
        ("fieldPath with a map key", ".map['x']"),
        ("fieldPath with a quoted property", "['name']"),
        ("fieldPath into a map", ".map.x"),
        ("fieldPath ending in a dot", ".name."),
        ("fieldPath without a dot", "name"),
    ] {
        case(name, &move |c| {
            c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["x-kubernetes-validations"] =
                json!([{"rule": "true", "fieldPath": path}]);
        });
    }
    for (name, node) in [
        (
            "default not a date-time",
            json!({"type": "string", "format": "date-time", "default": "yesterday"}),
        ),
        (
            "default a date-time",
            json!({"type": "string", "format": "date-time", "default": "2024-01-02T03:04:05Z"}),
        ),
        (
            "default not a duration",
            json!({"type": "string", "format": "duration", "default": "1x"}),
        ),
        (
            "default a duration",
            json!({"type": "string", "format": "duration", "default": "1h30m"}),
        ),
        (
            "default not base64",
            json!({"type": "string", "format": "byte", "default": "!!"}),
        ),
        (
            "default base64",
            json!({"type": "string", "format": "byte", "default": "aGk="}),
        ),
        (
            "default not a multiple",
            json!({"type": "integer", "multipleOf": 5, "default": 7}),
        ),
        (
            "default a multiple",
            json!({"type": "integer", "multipleOf": 5, "default": 10}),
        ),
        (
            "default not a float multiple",
            json!({"type": "number", "multipleOf": 0.5, "default": 0.7}),
        ),
        (
            "default a bool under int-or-string",
            json!({"x-kubernetes-int-or-string": true, "default": true}),
        ),
        (
            "default a string under int-or-string",
            json!({"x-kubernetes-int-or-string": true, "default": "25%"}),
        ),
        (
            "default a bool under int-or-string with anyOf",
            json!({"x-kubernetes-int-or-string": true,
                "anyOf": [{"type": "integer"}, {"type": "string"}], "default": true}),
        ),
        (
            "default a float under int-or-string with anyOf",
            json!({"x-kubernetes-int-or-string": true,
                "anyOf": [{"type": "integer"}, {"type": "string"}], "default": 1.5}),
        ),
    ] {
        case(name, &move |c| {
            c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
                ["value"] = node.clone();
        });
    }
    out
}

#[test]
fn named_cases_are_judged_as_the_api_server_judges_them() {
    let Some(api) = capi_e2e::api_server() else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let client = runtime.block_on(api.client());
    let mut disagreements = Vec::new();
    for (name, crd) in cases() {
        let server = runtime.block_on(server(&client, &crd));
        let (model, judged) = model(&crd);
        // Accepted by the server: the model accepts (CEL rules may be left not judged).
        // Refused: the model gives the server's causes exactly.
        let agrees = match (&server, &model) {
            (None, None) => true,
            (Some(s), Some(m)) => s == m,
            _ => false,
        };
        if !agrees {
            disagreements.push(format!(
                "{name}:\n  server: {server:?}\n  model:  {model:?} (judged in full: {judged})"
            ));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}
