//! Unit tests of the model; each rule family is also sent to the real API server by the
//! generated differential (tests/e2e/tests/crd_differential.rs).

use serde_json::{Value, json};

use super::spec::{dns1035_problem, dns1123_subdomain_problem};

fn is_dns1035_label(s: &str) -> bool {
    dns1035_problem(s).is_none()
}

fn is_dns1123_subdomain(s: &str) -> bool {
    dns1123_subdomain_problem(s).is_none()
}

/// The model with CEL rules left not judged.
fn validate(crd: &Value) -> super::Refusals {
    super::validate(crd, &super::cel::NotJudged)
}

/// A CRD the server accepts (one version, status subresource), to mutate.
fn base() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "foomachinepools.infrastructure.example.com"},
        "spec": {
            "group": "infrastructure.example.com", "scope": "Namespaced",
            "names": {"kind": "FooMachinePool", "plural": "foomachinepools"},
            "versions": [{
                "name": "v1beta1", "served": true, "storage": true,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {
                        "providerIDList": {"type": "array", "items": {"type": "string"}}}},
                    "status": {"type": "object"}}}}
            }]
        }
    })
}

fn paths(crd: &Value) -> Vec<String> {
    validate(crd)
        .errors
        .iter()
        .map(|r| r.field().to_owned())
        .collect()
}

const SPEC: &str = "spec.validation.openAPIV3Schema.properties[spec]";

#[test]
fn the_base_is_accepted_and_fully_judged() {
    let refusals = validate(&base());
    assert!(refusals.errors.is_empty(), "{:?}", refusals.errors);
    assert!(refusals.not_judged.is_empty());
}

#[test]
fn dns1035_labels_as_upstream_defines_them() {
    // k8s.io/apimachinery/pkg/util/validation/validation.go: dns1035LabelFmt
    // "[a-z]([-a-z0-9]*[a-z0-9])?", DNS1035LabelMaxLength = 63.
    for ok in ["v1", "v1beta2", "foomachinepools", "a", "a-1"] {
        assert!(is_dns1035_label(ok), "{ok}");
    }
    for bad in ["V1", "v1Beta1", "1v", "-a", "a-", "", "a.b"] {
        assert!(!is_dns1035_label(bad), "{bad}");
    }
    assert!(is_dns1035_label(&"a".repeat(63)));
    assert!(!is_dns1035_label(&"a".repeat(64)));
    assert!(is_dns1123_subdomain("infrastructure.cluster.x-k8s.io"));
    assert!(!is_dns1123_subdomain("a..b"));
}

/// One version: the v1 conversion hoists the schema to `spec.validation`, and the server
/// reports it there (pkg/apis/apiextensions/v1/conversion.go lines 139-190).
#[test]
fn identical_schemas_are_reported_at_spec_validation() {
    let mut crd = base();
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["x"] =
        json!({"description": "no type"});
    assert_eq!(paths(&crd), [format!("{SPEC}.properties[x].type")]);
    // Two versions with different schemas: per-version paths.
    let mut second = crd["spec"]["versions"][0].clone();
    second["name"] = json!("v1beta2");
    second["storage"] = json!(false);
    second["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
        .as_object_mut()
        .unwrap()
        .remove("x");
    crd["spec"]["versions"].as_array_mut().unwrap().push(second);
    assert_eq!(
        paths(&crd),
        ["spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[x].type"]
    );
}

/// The foo-provider refusal (tests/e2e/tests/foo_provider.rs against apiextensions-apiserver
/// v0.37.2): `default: ""` next to `minLength: 1`; the message names the bound.
#[test]
fn a_default_its_own_schema_refuses() {
    let mut crd = base();
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["reason"] =
        json!({"type": "string", "minLength": 1, "default": ""});
    let errors = validate(&crd).errors;
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(
        errors[0].field(),
        format!("{SPEC}.properties[reason].default")
    );
    // As the real server printed it in tests/e2e/tests/crd_differential.rs (kube-openapi
    // names the default "", hence two spaces before "in body").
    assert_eq!(
        errors[0].message(),
        r#"Invalid value: "":  in body should be at least 1 chars long"#
    );
    // An unknown field in an object default (pruning).
    let mut crd = base();
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["default"] =
        json!({"unknown": 1});
    assert_eq!(paths(&crd), [format!("{SPEC}.default")]);
}

/// An int-or-string default satisfies its `anyOf` (the server adds nothing); a default the
/// junctor refuses is not judged (the server's messages depend on kube-openapi's best-match
/// count).
#[test]
fn defaults_under_junctors() {
    let int_or_string = |default: Value| json!({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}], "default": default});
    let mut crd = base();
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["surge"] =
        int_or_string(json!("25%"));
    let refusals = validate(&crd);
    assert!(
        refusals.errors.is_empty() && refusals.not_judged_summary().is_empty(),
        "{refusals:?}"
    );
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["surge"] =
        json!({"type": "string", "anyOf": [{"pattern": "^a"}, {"pattern": "^b"}], "default": "c"});
    let refusals = validate(&crd);
    assert!(refusals.errors.is_empty(), "{:?}", refusals.errors);
    assert!(
        refusals
            .not_judged_summary()
            .contains("allOf/anyOf/oneOf/not")
    );
}

#[test]
fn cel_rules_are_counted_not_judged() {
    let mut crd = base();
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["x-kubernetes-validations"] = json!([{"rule": "self.replicas > 0"}, {"rule": "has(self.x)", "reason": "FieldValueInvalid"}]);
    let refusals = validate(&crd);
    assert!(refusals.errors.is_empty(), "{:?}", refusals.errors);
    assert_eq!(
        refusals.not_judged_summary(),
        "2 CEL rules (x-kubernetes-validations) not compiled here"
    );
    // What needs no compiler is judged.
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["x-kubernetes-validations"] = json!([{"rule": " "}, {"rule": "true", "reason": "Nope"}, {"rule": "true", "fieldPath": ".nope"}]);
    assert_eq!(
        paths(&crd),
        [
            format!("{SPEC}.x-kubernetes-validations[0].rule"),
            format!("{SPEC}.x-kubernetes-validations[1].reason"),
            format!("{SPEC}.x-kubernetes-validations[2].fieldPath"),
        ]
    );
}

#[test]
fn list_types() {
    let list = |extra: Value| {
        let mut crd = base();
        let mut node = json!({"type": "array", "items": {"type": "object", "properties": {
            "name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}},
            "required": ["name"]}});
        for (k, v) in extra.as_object().unwrap() {
            node[k] = v.clone();
        }
        crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
            ["l"] = node;
        paths(&crd)
    };
    let l = format!("{SPEC}.properties[l]");
    assert!(
        list(json!({"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]}))
            .is_empty()
    );
    assert_eq!(
        list(json!({"x-kubernetes-list-type": "map"})),
        [format!("{l}.x-kubernetes-list-map-keys")]
    );
    assert_eq!(
        list(json!({"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["tags"]})),
        [
            format!("{l}.items.properties[tags].type"),
            format!("{l}.items.properties[tags].default")
        ]
    );
    assert_eq!(
        list(json!({"x-kubernetes-list-type": "set"})),
        [format!("{l}.items.x-kubernetes-map-type")]
    );
    assert_eq!(
        list(json!({"x-kubernetes-list-type": "bag"})),
        [format!("{l}.x-kubernetes-list-type")]
    );
}

#[test]
fn conversion_settings() {
    let with = |conversion: Value| {
        let mut crd = base();
        crd["spec"]["conversion"] = conversion;
        paths(&crd)
    };
    const C: &str = "spec.conversion";
    assert!(with(json!({"strategy": "None"})).is_empty());
    assert_eq!(
        with(json!({"strategy": "Webhook"})),
        [
            format!("{C}.webhookClientConfig"),
            format!("{C}.conversionReviewVersions")
        ]
    );
    let svc = json!({"namespace": "ns", "name": "n"});
    assert!(with(json!({"strategy": "Webhook", "webhook": {"clientConfig": {"service": svc}, "conversionReviewVersions": ["v1"]}})).is_empty());
    assert_eq!(
        with(
            json!({"strategy": "Webhook", "webhook": {"clientConfig": {"url": "http://x/convert"}, "conversionReviewVersions": ["v2"]}})
        ),
        [
            format!("{C}.webhookClientConfig.url"),
            format!("{C}.conversionReviewVersions")
        ]
    );
    assert_eq!(
        with(
            json!({"strategy": "Webhook", "webhook": {"clientConfig": {"service": {"namespace": "ns", "name": "n", "port": 0}}, "conversionReviewVersions": ["v1"]}})
        ),
        [format!("{C}.webhookClientConfig.service.port")]
    );
    assert_eq!(
        with(
            json!({"strategy": "None", "webhook": {"clientConfig": {"service": svc}, "conversionReviewVersions": ["v1"]}})
        ),
        [
            format!("{C}.webhookClientConfig"),
            format!("{C}.conversionReviewVersions")
        ]
    );
}

#[test]
fn structural_rules() {
    let field = |node: Value| {
        let mut crd = base();
        crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
            ["f"] = node;
        paths(&crd)
    };
    let f = format!("{SPEC}.properties[f]");
    assert_eq!(
        field(
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}})
        ),
        [format!("{f}.additionalProperties")]
    );
    assert_eq!(
        field(json!({"type": "string", "allOf": [{"type": "string"}]})),
        [format!("{f}.allOf[0].type")]
    );
    assert_eq!(
        field(json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true})),
        [format!("{f}.uniqueItems")]
    );
    assert_eq!(
        field(json!({"type": "object", "x-kubernetes-preserve-unknown-fields": false})),
        [format!("{f}.x-kubernetes-preserve-unknown-fields")]
    );
    assert_eq!(
        field(json!({"type": "string", "pattern": "(?=a)"})),
        [format!("{f}.pattern")]
    );
    assert!(field(json!({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]})).is_empty());
}

#[test]
fn subresources_columns_selectable_fields() {
    let mut crd = base();
    crd["spec"]["versions"][0]["subresources"]["scale"] =
        json!({"specReplicasPath": "spec.replicas", "statusReplicasPath": ".spec.x"});
    crd["spec"]["versions"][0]["additionalPrinterColumns"] =
        json!([{"name": "A", "type": "int", "jsonPath": ".spec.a"}]);
    crd["spec"]["versions"][0]["selectableFields"] =
        json!([{"jsonPath": ".spec"}, {"jsonPath": ".spec.nope"}]);
    assert_eq!(
        paths(&crd),
        [
            "spec.subresources.scale.specReplicasPath",
            "spec.subresources.scale.statusReplicasPath",
            "spec.additionalPrinterColumns[0].type",
            "spec.selectableFields[0].jsonPath",
            "spec.selectableFields[1].jsonPath",
        ]
    );
}

#[test]
fn names_and_metadata() {
    let mut crd = base();
    crd["metadata"]["name"] = json!("other.infrastructure.example.com");
    crd["spec"]["names"]["listKind"] = json!("FooMachinePool");
    crd["spec"]["versions"][0]["deprecationWarning"] = json!("x");
    assert_eq!(
        paths(&crd),
        [
            "metadata.name",
            "spec.versions[0].deprecationWarning",
            "spec.names.listKind"
        ]
    );
}

/// The full texts of `validate`'s errors, `path: message`.
fn texts(crd: &Value) -> Vec<String> {
    validate(crd)
        .errors
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// The CRD's own metadata goes through apimachinery's `ObjectMeta` validation, as for any
/// cluster-scoped object (issue 60; the server's texts in tests/e2e/tests/crd_named_cases.rs).
#[test]
fn the_crds_own_metadata() {
    let mut crd = base();
    crd["metadata"]["labels"] = json!({"a/b/c": "x", "ok": "y".repeat(64)});
    crd["metadata"]["finalizers"] = json!(["bad finalizer"]);
    crd["metadata"]["namespace"] = json!("default");
    assert_eq!(
        paths(&crd),
        [
            "metadata.namespace",
            "metadata.labels",
            "metadata.labels",
            "metadata.finalizers"
        ]
    );
    let mut crd = base();
    crd["metadata"]["annotations"] = json!({"big": "x".repeat(262_142)});
    assert_eq!(
        texts(&crd),
        ["metadata.annotations: Too long: may not be more than 262144 bytes"]
    );
    crd["metadata"]["annotations"] = json!({"big": "x".repeat(262_141)});
    assert!(texts(&crd).is_empty());
}

/// Webhook URLs as Go's `net/url.Parse` reads them: the scheme lowercased, a space in the host
/// and a bad escape refused with Go's text.
#[test]
fn webhook_urls_as_go_parses_them() {
    let with_url = |url: &str| {
        let mut crd = base();
        crd["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {
            "conversionReviewVersions": ["v1"], "clientConfig": {"url": url}}});
        texts(&crd)
    };
    assert!(with_url("HTTPS://example.com/convert").is_empty());
    assert_eq!(
        with_url("https://exa mple.com/"),
        [
            r#"spec.conversion.webhookClientConfig.url: Required value: url must be a valid URL: parse "https://exa mple.com/": invalid character " " in host name; desired format: https://host[/path]"#
        ]
    );
    assert_eq!(
        with_url("https://example.com/a%zz"),
        [
            r#"spec.conversion.webhookClientConfig.url: Required value: url must be a valid URL: parse "https://example.com/a%zz": invalid URL escape "%zz"; desired format: https://host[/path]"#
        ]
    );
}

/// A deprecation warning is checked rune by rune with Go's `unicode.IsPrint`: a no-break space
/// is not printable.
#[test]
fn deprecation_warnings_are_printable() {
    let mut crd = base();
    crd["spec"]["versions"][0]["deprecated"] = json!(true);
    crd["spec"]["versions"][0]["deprecationWarning"] = json!("old\u{a0}version");
    assert_eq!(
        texts(&crd),
        [
            "spec.versions[0].deprecationWarning: Invalid value: \"old\u{a0}version\": must only contain printable UTF-8 characters; non-printable character found at index 3"
        ]
    );
}

/// `$schema` makes `NewStructural` fail: refused at the schema, when nothing else is.
#[test]
fn dollar_schema_is_not_supported() {
    let mut crd = base();
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["$schema"] =
        json!("http://json-schema.org/draft-04/schema#");
    assert_eq!(
        texts(&crd),
        [
            r#"spec.validation.openAPIV3Schema: Invalid value: "": OpenAPIV3Schema 'schema' is not supported"#
        ]
    );
}

/// `ValidFieldPath`: properties by `.name` or `['name']`, map keys, no list index.
#[test]
fn cel_field_paths() {
    let with_path = |path: &str| {
        let mut crd = base();
        crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
            ["map"] = json!({"type": "object", "additionalProperties": {"type": "string"}});
        crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["x-kubernetes-validations"] =
            json!([{"rule": "true", "fieldPath": path}]);
        paths(&crd)
    };
    for ok in [
        ".providerIDList",
        "['providerIDList']",
        ".map.x",
        ".map['a.b']",
    ] {
        assert!(with_path(ok).is_empty(), "{ok}");
    }
    for bad in [
        ".providerIDList[0]",
        ".nope",
        "providerIDList",
        ".map.",
        "['x",
        ".map['\\q']",
    ] {
        assert_eq!(
            with_path(bad),
            [format!("{SPEC}.x-kubernetes-validations[0].fieldPath")],
            "{bad}"
        );
    }
}

/// A default of another type under controller-gen's int-or-string `anyOf`: kube-openapi's
/// `anyOf` message and the `integer` branch's errors (the server's texts in
/// tests/e2e/tests/crd_named_cases.rs).
#[test]
fn defaults_of_another_type_under_int_or_string() {
    let mut crd = base();
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["surge"] = json!({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}], "default": true});
    let at = format!("{SPEC}.properties[surge].default");
    assert_eq!(
        texts(&crd),
        [
            format!(r#"{at}: Invalid value: "": "" must validate at least one schema (anyOf)"#),
            format!(
                r#"{at}: Invalid value: "boolean":  in body must be of type integer: "boolean""#
            ),
        ]
    );
}
