//! Where the server reports a CRD's CEL errors: under `spec.validation` when every version
//! has the same schema, under each version otherwise (`compile_crd`), held against upstream.

mod common;

use common::{Oracle, Verdict};
use serde_json::{Value, json};

fn crd(versions: &[(&str, &Value, bool)]) -> Value {
    let versions: Vec<Value> = versions
        .iter()
        .map(|(name, schema, storage)| {
            json!({"name": name, "served": true, "storage": storage, "schema": {"openAPIV3Schema": schema}})
        })
        .collect();
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "foos.x.io"},
        "spec": {"group": "x.io", "names": {"plural": "foos", "singular": "foo", "kind": "Foo", "listKind": "FooList"},
                 "scope": "Namespaced", "versions": versions},
    })
}

fn schema(rule: &str) -> Value {
    json!({"type": "object", "properties": {"spec": {"type": "object",
        "properties": {"x": {"type": "string"}}, "x-kubernetes-validations": [{"rule": rule}]}}})
}

fn ours(crd: &Value) -> Verdict {
    let r = capi_cel::compile_crd(crd);
    assert!(r.fully_judged(), "{:?}", r.not_judged);
    let mut v: Verdict = r
        .errors
        .iter()
        .map(|e| {
            (
                e.kind.code().to_owned(),
                e.field_path.clone(),
                e.detail.clone(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn versions_sharing_a_schema_are_reported_once_at_spec_validation() {
    let (bad, good) = (schema("self.x.foo()"), schema("self.x != ''"));
    let same = crd(&[("v1", &bad, true), ("v2", &bad, false)]);
    let different = crd(&[("v1", &good, false), ("v2", &bad, true)]);
    assert!(
        ours(&same)[0]
            .1
            .starts_with("spec.validation.openAPIV3Schema.")
    );
    assert!(
        ours(&different)[0]
            .1
            .starts_with("spec.versions[1].schema.openAPIV3Schema.")
    );
    let Some(oracle) = Oracle::start() else {
        return;
    };
    for c in [same, different] {
        assert_eq!(ours(&c), oracle.lock().expect("oracle").judge(&c));
    }
}
