//! The example provider's kube-derive CRDs (examples/foo-provider, contract labels added with
//! `add_contract_labels`) installed on the real API server, and one object of each kind and
//! served version created with an empty `spec` (`{}`, the template's too: every field inside a
//! foo spec defaults, issue 33 item 6, so the server fills the template's `{template: {spec: {}}}`
//! from the CRD's defaults). `spec` itself stays required: kube-derive marks the root `spec`
//! required, and the server refuses an object without it ("spec: Required value").
#![allow(clippy::unwrap_used, clippy::panic, clippy::expect_used)]

use serde_json::{Value, json};

#[tokio::test]
async fn foo_crds_install_and_objects_with_an_empty_spec_are_created() {
    let Some(server) = capi_e2e::api_server() else {
        return;
    };
    let client = server.client().await;
    let mut created = Vec::new();
    let mut refused = Vec::new();
    for crd in foo_provider::crds() {
        let value = serde_json::to_value(&crd).unwrap();
        capi_e2e::create_crd(&client, &value)
            .await
            .unwrap_or_else(|e| {
                panic!(
                    "the server refuses {}: {e}",
                    crd.metadata.name.as_deref().unwrap_or_default()
                )
            });
        let group = crd.spec.group.clone();
        let kind = crd.spec.names.kind.clone();
        let plural = crd.spec.names.plural.clone();
        for version in crd.spec.versions.iter().filter(|v| v.served) {
            let name = format!("emptyspec-{}", version.name);
            let object = json!({
                "apiVersion": format!("{group}/{}", version.name),
                "kind": kind,
                "metadata": {"name": name},
                "spec": {},
            });
            let path = format!("/apis/{group}/{}/namespaces/default/{plural}", version.name);
            let request =
                capi_e2e::http_request("POST", &path, serde_json::to_vec(&object).unwrap());
            let answer: Result<Value, _> = client.request(request).await;
            match answer {
                Ok(stored) => {
                    if kind.ends_with("Template") {
                        // The CRD's defaults fill the template (schema `default: {spec: {}}`).
                        assert_eq!(stored["spec"], json!({"template": {"spec": {}}}), "{kind}");
                    }
                    created.push(format!("{kind} {}: {}", version.name, stored["spec"]));
                }
                Err(e) => refused.push(format!("{kind} {}: {e}", version.name)),
            }
        }
    }
    eprintln!("created: {created:#?}");
    assert!(
        refused.is_empty(),
        "refused with an empty spec:\n{}",
        refused.join("\n")
    );
    assert_eq!(created.len(), 3, "{created:?}");
}
