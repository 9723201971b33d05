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
