//! Shared by the CEL tests: the Go oracle (upstream's `ValidateCustomResourceDefinition`,
//! tests/go/kubeapiserver/crdvalidate), CRD wrapping, and comparison of verdicts.

#![allow(dead_code)]

pub mod mutants;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;

use serde_json::{Value, json};

/// One field error: type code, field path, detail (`selfType<digits>` normalised).
pub type Verdict = Vec<(String, String, String)>;

/// The oracle process.
pub struct Oracle {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Oracle {
    /// Builds and starts the oracle; `None` (after a printed skip) without Go.
    pub fn start() -> Option<Mutex<Oracle>> {
        let bin = capi_test_support::go_tool::build_go_tool(
            "tests/go/kubeapiserver",
            "./crdvalidate",
            "capi-crdvalidate",
        )?;
        let mut child = Command::new(bin)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("starting crdvalidate");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Some(Mutex::new(Oracle {
            child,
            stdin,
            stdout,
        }))
    }

    /// The upstream verdict on a CRD.
    pub fn judge(&mut self, crd: &Value) -> Verdict {
        let mut line = serde_json::to_string(crd).expect("json");
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .expect("write to oracle");
        self.stdin.flush().expect("flush");
        let mut out = String::new();
        self.stdout.read_line(&mut out).expect("read from oracle");
        let v: Value = serde_json::from_str(&out).expect("oracle json");
        assert!(
            v.get("decode_error").is_none(),
            "oracle could not decode: {v}"
        );
        let mut errs: Verdict = v["errors"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|e| {
                        let s = |k: &str| e[k].as_str().unwrap_or("").to_owned();
                        (s("type"), s("field"), normalise(&s("detail")))
                    })
                    .collect()
            })
            .unwrap_or_default();
        errs.sort();
        errs
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `selfType<digits>` (the server's clock) as `selfType0`.
pub fn normalise(detail: &str) -> String {
    let mut out = String::new();
    let mut rest = detail;
    while let Some(i) = rest.find("selfType") {
        out.push_str(&rest[..i + "selfType".len()]);
        rest = &rest[i + "selfType".len()..];
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 {
            out.push('0');
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

/// A single-version CRD around `schema` (so the server reports it at
/// `spec.validation.openAPIV3Schema`).
pub fn crd(group: &str, plural: &str, kind: &str, schema: &Value) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{group}")},
        "spec": {
            "group": group,
            "names": {"plural": plural, "singular": plural.trim_end_matches('s'), "kind": kind, "listKind": format!("{kind}List")},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": schema}}],
        }
    })
}

/// Our verdict: `Ok(errors)` (an inexact detail or path is `*` and matches any), or `Err(reason)` when anything is not judged.
pub fn ours(schema: &Value) -> Result<Verdict, String> {
    let r = capi_cel::compile_crd_version(schema);
    if let Some(n) = r.not_judged.first() {
        return Err(format!("{}: {}", n.field_path, n.reason));
    }
    let mut v: Verdict = r
        .errors
        .iter()
        .map(|e| {
            let d = if e.detail_exact {
                e.detail.clone()
            } else {
                "*".to_owned()
            };
            let p = if e.path_exact {
                e.field_path.clone()
            } else {
                "*".to_owned()
            };
            (e.kind.code().to_owned(), p, d)
        })
        .collect();
    v.sort();
    Ok(v)
}

/// Whether our verdict agrees with upstream's (an inexact detail matches any detail).
pub fn agrees(ours: &Verdict, theirs: &Verdict) -> bool {
    ours.len() == theirs.len() && {
        let mut theirs: Vec<_> = theirs.clone();
        ours.iter().all(|o| {
            let found = theirs.iter().position(|t| {
                t.0 == o.0 && (o.1 == "*" || t.1 == o.1) && (o.2 == "*" || t.2 == o.2)
            });
            found.map(|i| theirs.remove(i)).is_some()
        })
    }
}
