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
