//! `convert` keeps every document of a stream: `--- <content>` documents, documents after
//! `...`, comments; it outputs exactly as many documents as a YAML parser sees in the input,
//! and documents it does not convert come out byte for byte.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::io::Write;
use std::process::{Command, Stdio};

use proptest::prelude::*;
use serde_json::Value;

fn convert(input: &str) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_capi-machinepool"))
        .args(["convert", "--to", "v1beta2", "-f", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

fn parsed(text: &str) -> Vec<Value> {
    serde_saphyr::from_multiple::<Value>(text)
        .unwrap()
        .into_iter()
        .filter(|v| !v.is_null())
        .collect()
}

const INLINE_POOL: &str = "{apiVersion: cluster.x-k8s.io/v1beta1, kind: MachinePool, metadata: {name: inline}, spec: {clusterName: c, template: {spec: {clusterName: c, bootstrap: {dataSecretName: s}, infrastructureRef: {}}}}}";

#[test]
fn inline_and_end_marker_documents_are_kept() {
    let input = format!(
        "--- {INLINE_POOL}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: a}}\n...\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: after-end}}\n"
    );
    let (code, out) = convert(&input);
    assert_eq!(code, Some(0), "{out}");
    let docs = parsed(&out);
    assert_eq!(docs.len(), 3, "{out}");
    assert_eq!(docs[0]["apiVersion"], "cluster.x-k8s.io/v1beta2");
    assert_eq!(docs[0]["metadata"]["name"], "inline");
    assert_eq!(docs[2]["metadata"]["name"], "after-end");
}

fn document() -> impl Strategy<Value = (String, bool)> {
    prop_oneof![
        "[a-z]{1,8}".prop_map(|n| (format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: n-{n}\ndata: {{k: \"v ---\"}}\n"), false)),
        "[a-z]{1,8}".prop_map(|n| (format!("{{kind: Secret, apiVersion: v1, metadata: {{name: n-{n}}}}}\n"), false)),
        Just((format!("{INLINE_POOL}\n"), true)),
        "[a-z]{1,8}".prop_map(|n| (format!("apiVersion: cluster.x-k8s.io/v1beta1\nkind: MachinePool\nmetadata:\n  name: n-{n}\nspec:\n  clusterName: c\n  template:\n    spec:\n      clusterName: c\n      bootstrap: {{dataSecretName: s}}\n      infrastructureRef: {{}}\n"), true)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(capi_test_support::proptest_cases(32)))]

    #[test]
    fn every_document_comes_out(docs in proptest::collection::vec((document(), 0u8..4), 1..6), comment in any::<bool>()) {
        let mut input = String::new();
        if comment {
            input.push_str("# header comment\n");
        }
        for (i, ((text, _), sep)) in docs.iter().enumerate() {
            if i > 0 || *sep == 1 {
                match sep {
                    0 | 1 => input.push_str("---\n"),
                    2 if text.starts_with('{') => input.push_str("--- "),
                    2 => input.push_str("---\n"),
                    _ => input.push_str("...\n"),
                }
            }
            input.push_str(text);
        }
        let (code, out) = convert(&input);
        prop_assert_eq!(code, Some(0), "{}", out);
        let before = parsed(&input);
        let after = parsed(&out);
        prop_assert_eq!(after.len(), before.len(), "{}\n=>\n{}", input, out);
        for (((text, pool), _), value) in docs.iter().zip(&after) {
            if *pool {
                prop_assert_eq!(&value["apiVersion"], "cluster.x-k8s.io/v1beta2");
            } else {
                prop_assert!(out.contains(text.as_str()), "{:?} not kept verbatim in {}", text, out);
            }
        }
    }
}
