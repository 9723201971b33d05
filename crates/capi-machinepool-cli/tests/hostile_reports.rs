//! Reports of hostile names: the JUnit report stays well-formed XML whatever a CRD is called,
//! and GitHub workflow-command titles carry no terminal escapes or bidirectional controls.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::{run, stdout};

/// A pool CRD named with U+FFFE, U+FFFF, ESC and U+202E (RIGHT-TO-LEFT OVERRIDE), read from
/// standard input; JSON escapes keep the stream itself valid.
const CRD: &str = r#"{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
 "metadata": {"name": "evil\ufffe\uffff\u001b[31m\u202etxt.infrastructure.cluster.x-k8s.io"},
 "spec": {"group": "infrastructure.cluster.x-k8s.io", "scope": "Namespaced",
  "names": {"kind": "EvilMachinePool", "plural": "evilmachinepools"}, "versions": []}}"#;

/// XML 1.0, section 2.2: Char ::= #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] |
/// [#x10000-#x10FFFF].
fn is_xml_char(c: char) -> bool {
    let n = u32::from(c);
    n == 0x9
        || n == 0xA
        || n == 0xD
        || (0x20..=0xD7FF).contains(&n)
        || (0xE000..=0xFFFD).contains(&n)
        || n >= 0x10000
}

#[test]
fn junit_is_well_formed_whatever_the_names() {
    let o = run(&["check", "--format", "junit", "-"], Some(CRD.as_bytes()));
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let xml = stdout(&o);
    assert!(xml.contains("<testsuite name=\"evil"), "{xml}");
    let bad: Vec<char> = xml.chars().filter(|c| !is_xml_char(*c)).collect();
    assert!(bad.is_empty(), "characters XML cannot carry: {bad:?}");
}

#[test]
fn github_titles_are_escaped_like_messages() {
    let o = run(&["check", "--format", "github", "-"], Some(CRD.as_bytes()));
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let text = stdout(&o);
    assert!(text.contains("title="), "{text}");
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{202e}'),
        "{text:?}"
    );
}

/// A file name that is not UTF-8 is shown with its bytes (`\xFF`), not lossily: two such
/// names never print alike.
#[cfg(unix)]
#[test]
fn names_that_are_not_utf8_are_shown_with_their_bytes() {
    use std::os::unix::ffi::OsStrExt;
    let dir = std::env::temp_dir().join(format!("capi-non-utf8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(std::ffi::OsStr::from_bytes(b"crd\xff.yaml"));
    std::fs::write(&path, CRD).unwrap();
    let out = common::bin()
        .args(["check", "--format", "github"])
        .arg(&path)
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(text.contains("crd\\xFF.yaml"), "{text}");
    assert!(!text.contains('\u{fffd}'), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Characters the text, JUnit and GitHub renderers escape (issue 31: `--format json` printed
/// U+202E, U+2028 and U+0085 raw). Listed here from the Unicode tables, not from the code:
/// C1 NEXT LINE, LINE/PARAGRAPH SEPARATOR, LRM/RLM, the embeddings and overrides
/// U+202A..U+202E and the isolates U+2066..U+2069.
const HOSTILE: [char; 9] = [
    '\u{85}', '\u{2028}', '\u{2029}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202e}', '\u{2066}',
    '\u{2069}',
];

#[test]
fn json_escapes_bidi_and_line_separators_like_the_other_formats() {
    let name: String = HOSTILE.iter().collect();
    let crd = CRD.replace("\\u202etxt", &format!("{name}txt"));
    assert!(crd.contains('\u{2028}'));
    let o = run(&["check", "--format", "json", "-"], Some(crd.as_bytes()));
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let text = stdout(&o);
    let raw: Vec<char> = text.chars().filter(|c| HOSTILE.contains(c)).collect();
    assert!(raw.is_empty(), "printed raw: {raw:?}");
    assert!(
        text.contains("\\u2028") && text.contains("\\u0085"),
        "{text}"
    );
    // Still JSON, and the escapes decode to the same name.
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(value.to_string().contains(&name), "{value}");
}

#[test]
fn json_nodes_report_escapes_bidi_and_line_separators() {
    let id = format!("p://1{}", HOSTILE.iter().collect::<String>());
    let pool = common::temp_file(
        "bidi-pool.json",
        format!(
            r#"{{"kind": "AWSMachinePool", "metadata": {{"name": "p"}}, "spec": {{"providerIDList": [{}]}}, "status": {{"replicas": 1}}}}"#,
            serde_json::to_string(&id).unwrap()
        )
        .as_bytes(),
    );
    let nodes = common::temp_file("bidi-nodes.json", br#"{"kind": "NodeList", "items": []}"#);
    let o = run(
        &[
            "check",
            "--format",
            "json",
            "--objects",
            pool.to_str().unwrap(),
            "--nodes",
            nodes.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let text = stdout(&o);
    let raw: Vec<char> = text.chars().filter(|c| HOSTILE.contains(c)).collect();
    assert!(raw.is_empty(), "printed raw: {raw:?}");
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(value.to_string().contains(&id), "{value}");
}

/// What a pull request can put in a name: a line break followed by a GitHub workflow command
/// (the runner obeys one at the start of any line of the log), an OSC sequence that sets the
/// terminal title and rings the bell, and a right-to-left override.
const FORGED: &str =
    "\\n::error file=README.md,line=1,title=INJECTED::forged\\u001b]0;title\\u0007\\u202e";

/// No line of `out` starts with the forged command, and no escape, bell or bidi override
/// reaches it raw.
fn assert_contained(what: &str, out: &str) {
    for line in out.lines() {
        assert!(
            !line.trim_start().starts_with("::error file=README.md"),
            "{what}: a forged workflow command starts a line: {line:?}"
        );
    }
    for c in ['\u{1b}', '\u{7}', '\u{202e}'] {
        assert!(!out.contains(c), "{what}: {c:?} printed raw: {out:?}");
    }
}

/// Issue 65: a CRD property name that forges a workflow command is escaped by every format
/// of `check` (it is quoted by the `crd-valid` finding of its bad type).
#[test]
fn every_check_format_keeps_a_forged_property_name_on_its_line() {
    let crd = format!(
        r#"{{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
 "metadata": {{"name": "evilmachinepools.infrastructure.cluster.x-k8s.io", "labels": {{"cluster.x-k8s.io/v1beta2": "v1beta2"}}}},
 "spec": {{"group": "infrastructure.cluster.x-k8s.io", "scope": "Namespaced",
  "names": {{"kind": "EvilMachinePool", "listKind": "EvilMachinePoolList", "plural": "evilmachinepools", "singular": "evilmachinepool"}},
  "versions": [{{"name": "v1beta2", "served": true, "storage": true, "subresources": {{"status": {{}}}},
   "schema": {{"openAPIV3Schema": {{"type": "object", "properties": {{"spec": {{"type": "object", "properties": {{
     "providerIDList": {{"type": "array", "items": {{"type": "string"}}}},
     "x{FORGED}": {{"type": "bogus"}}}}}}}}}}}}}}]}}}}"#
    );
    let mut quoted_somewhere = false;
    for format in ["text", "json", "junit", "github", "sarif"] {
        let o = run(&["check", "--format", format, "-"], Some(crd.as_bytes()));
        let out = format!("{}{}", stdout(&o), String::from_utf8_lossy(&o.stderr));
        assert_eq!(o.status.code(), Some(1), "{format}: {out}");
        assert_contained(format, &out);
        quoted_somewhere |= out.contains("INJECTED");
    }
    assert!(quoted_somewhere, "the forged name is quoted by a finding");
}

/// Issue 65: `validate` quotes an unknown field's name escaped (before: printed raw, so the
/// name forged a GitHub annotation on standard output).
#[test]
fn validate_keeps_a_forged_unknown_field_name_on_its_line() {
    let pool = format!(
        r#"{{"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
 "metadata": {{"name": "workers", "namespace": "default"}},
 "spec": {{"clusterName": "c", "x{FORGED}": 1, "template": {{"spec": {{"clusterName": "c",
   "bootstrap": {{"dataSecretName": "s"}},
   "infrastructureRef": {{"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "FooMachinePool", "name": "p"}}}}}}}}}}"#
    );
    let o = run(
        &["validate", "--control-plane-version", "v1.33.0", "-f", "-"],
        Some(pool.as_bytes()),
    );
    let out = format!("{}{}", stdout(&o), String::from_utf8_lossy(&o.stderr));
    assert!(
        out.contains("INJECTED"),
        "the unknown field is reported: {out}"
    );
    assert_contained("validate", &out);
}
