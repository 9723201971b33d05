//! `--server` names authentication and authorization failures as such, never "cannot be
//! reached": a fake API server on loopback answers 401 to every request (a wrong token), or
//! serves `/version` and answers 403 to the dry-run create (an account without the right to
//! create CustomResourceDefinitions).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::Command;

/// What the fake server answers.
#[derive(Clone, Copy)]
enum Mode {
    /// 401 to everything.
    Unauthorized,
    /// `/version` served, 403 to everything else.
    Forbidden,
}

fn status(code: u16, reason: &str, message: &str) -> String {
    serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": message, "reason": reason, "code": code})
    .to_string()
}

/// Serves on a loopback port until the test ends; returns the port.
fn fake_server(mode: Mode) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
                    let mut length = 0usize;
                    loop {
                        let mut header = String::new();
                        reader.read_line(&mut header).unwrap();
                        let header = header.trim_end();
                        if header.is_empty() {
                            break;
                        }
                        if let Some((k, v)) = header.split_once(':')
                            && k.eq_ignore_ascii_case("content-length")
                        {
                            length = v.trim().parse().unwrap();
                        }
                    }
                    let mut body = vec![0; length];
                    reader.read_exact(&mut body).unwrap();
                    let (code, text) = match mode {
                        Mode::Unauthorized => (401, status(401, "Unauthorized", "Unauthorized")),
                        Mode::Forbidden if path == "/version" => (
                            200,
                            r#"{"major":"1","minor":"37","gitVersion":"v1.37.2"}"#.to_owned(),
                        ),
                        Mode::Forbidden => (
                            403,
                            status(
                                403,
                                "Forbidden",
                                "customresourcedefinitions.apiextensions.k8s.io is forbidden: User \"ci\" cannot create resource \"customresourcedefinitions\" in API group \"apiextensions.k8s.io\" at the cluster scope",
                            ),
                        ),
                    };
                    let reply = format!(
                        "HTTP/1.1 {code} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{text}",
                        text.len()
                    );
                    if stream.write_all(reply.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    port
}

fn kubeconfig(dir: &std::path::Path, port: u16) -> std::path::PathBuf {
    let path = dir.join("kubeconfig");
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: http://127.0.0.1:{port}\nusers:\n- name: ci\n  user:\n    token: wrong\ncontexts:\n- name: ci-context\n  context:\n    cluster: fake\n    user: ci\ncurrent-context: ci-context\n"
        ),
    )
    .unwrap();
    path
}

fn check(mode: Mode) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let config = kubeconfig(dir.path(), fake_server(mode));
    let crd = dir.path().join("crd.yaml");
    std::fs::write(
        &crd,
        r#"{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "foomachinepools.infrastructure.example.com"},
  "spec": {"group": "infrastructure.example.com", "scope": "Namespaced",
    "names": {"kind": "FooMachinePool", "plural": "foomachinepools"},
    "versions": [{"name": "v1beta1", "served": true, "storage": true,
      "schema": {"openAPIV3Schema": {"type": "object"}}}]}}"#,
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_capi-machinepool"))
        .args(["check", "--server", "--kubeconfig"])
        .arg(&config)
        .arg(&crd)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[test]
fn a_refused_token_is_named_unauthorized() {
    let (code, out) = check(Mode::Unauthorized);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("unauthorized: the API server refused the credentials of context ci-context"),
        "{out}"
    );
    assert!(!out.contains("cannot be reached"), "{out}");
}

#[test]
fn a_forbidden_create_is_named_forbidden() {
    let (code, out) = check(Mode::Forbidden);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains(
            "forbidden: the user of context ci-context cannot create customresourcedefinitions"
        ),
        "{out}"
    );
    assert!(out.contains("User \"ci\" cannot create resource"), "{out}");
    assert!(!out.contains("cannot be reached"), "{out}");
}
