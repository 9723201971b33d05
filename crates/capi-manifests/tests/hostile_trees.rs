//! Trees anyone can send a pull request to: symbolic-link loops, links out of the tree (to a
//! secret, to /dev/zero), FIFOs. Each is refused or skipped, quickly, and nothing from outside
//! the tree is read or printed.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::panic)]

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use capi_manifests::{Limits, ManifestError, load::load};

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: foomachinepools.infrastructure.cluster.x-k8s.io\n";

fn tree(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("capi-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("crd.yaml"), CRD).unwrap();
    dir
}

fn load_timed(
    dir: &Path,
) -> (
    Result<capi_manifests::load::Loaded, ManifestError>,
    Duration,
) {
    let started = Instant::now();
    let result = load(&[dir.to_path_buf()], Limits::default());
    (result, started.elapsed())
}

#[test]
fn symlink_loops_are_walked_once() {
    let dir = tree("loop");
    symlink(".", dir.join("a")).unwrap();
    symlink(".", dir.join("b")).unwrap();
    std::fs::create_dir(dir.join("sub")).unwrap();
    symlink("..", dir.join("sub/up")).unwrap();
    let (result, took) = load_timed(&dir);
    let loaded = result.unwrap();
    assert_eq!(loaded.documents.len(), 1, "each CRD read once");
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[test]
fn links_out_of_the_tree_are_refused_and_not_read() {
    let dir = tree("environ");
    symlink("/proc/self/environ", dir.join("x.yaml")).unwrap();
    let err = load(std::slice::from_ref(&dir), Limits::default()).unwrap_err();
    assert!(matches!(err, ManifestError::OutsideTree { .. }), "{err}");
    let text = err.to_string();
    assert!(text.contains("outside"), "{text}");
    assert!(!text.contains("PATH="), "{text}");
    // A link into the tree is fine.
    std::fs::remove_file(dir.join("x.yaml")).unwrap();
    symlink(dir.join("crd.yaml"), dir.join("alias.yaml")).unwrap();
    assert_eq!(load(&[dir], Limits::default()).unwrap().documents.len(), 1);
}

#[test]
fn devices_are_refused_before_being_read() {
    let dir = tree("zero");
    // Through a link out of the tree: refused as outside.
    symlink("/dev/zero", dir.join("zero.yaml")).unwrap();
    let (result, took) = load_timed(&dir);
    assert!(result.is_err());
    assert!(took < Duration::from_secs(2), "{took:?}");
    // Named directly, a device is refused as not a regular file.
    let err =
        capi_manifests::tree::read_file(Path::new("/dev/zero"), &Limits::default()).unwrap_err();
    assert!(matches!(err, ManifestError::NotRegular { .. }), "{err}");
}

#[test]
fn fifos_do_not_hang() {
    let dir = tree("fifo");
    let fifo = dir.join("pipe.yaml");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let (result, took) = load_timed(&dir);
    let err = result.unwrap_err();
    assert!(
        matches!(err, ManifestError::NotRegular { kind: "a FIFO", .. }),
        "{err}"
    );
    assert!(took < Duration::from_secs(2), "{took:?}");
}

/// A pipe named on the command line (`check <(kustomize build config/crd)`) is the caller's
/// choice, not a tree's content: it is streamed, while the same FIFO inside a tree is refused
/// (above).
#[test]
fn a_fifo_named_directly_is_streamed() {
    let dir = tree("named-fifo");
    let fifo = dir.join("rendered");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, format!("{CRD}---\n{CRD}")).unwrap())
    };
    let loaded = load(&[fifo], Limits::default()).unwrap();
    writer.join().unwrap();
    assert_eq!(loaded.documents.len(), 2);
    assert_eq!(
        loaded.documents[1].value["kind"],
        "CustomResourceDefinition"
    );
}

/// A file named directly may be larger than the per-file limit of files inside trees; each
/// document still has its own limits.
#[test]
fn a_file_named_directly_is_not_held_to_the_tree_file_limit() {
    let dir = tree("named-big");
    let file = dir.join("big.yaml");
    std::fs::write(&file, format!("{CRD}---\na: {}\n", "x".repeat(4096))).unwrap();
    let limits = Limits {
        max_file_bytes: 1024,
        ..Limits::default()
    };
    assert_eq!(load(&[file], limits).unwrap().documents.len(), 2);
}

#[test]
fn files_over_the_limit_are_refused() {
    let dir = tree("big");
    std::fs::write(dir.join("big.yaml"), format!("a: {}\n", "x".repeat(4096))).unwrap();
    let limits = Limits {
        max_file_bytes: 1024,
        ..Limits::default()
    };
    let err = load(&[dir], limits).unwrap_err();
    assert!(matches!(err, ManifestError::FileTooLarge { .. }), "{err}");
}

#[test]
fn kustomization_resources_may_not_leave_the_tree() {
    let dir = tree("kustomize-escape");
    std::fs::write(
        dir.join("kustomization.yaml"),
        "resources:\n- ../../../../etc/passwd\n",
    )
    .unwrap();
    let err = load(&[dir], Limits::default()).unwrap_err();
    assert!(
        matches!(
            err,
            ManifestError::OutsideTree {
                how: "path through `..`",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn outside_tree_errors_say_what_leads_out() {
    // A `..` path or an absolute path is not a symbolic link: the message says which it is.
    for (name, resource, how) in [
        (
            "escape-dots",
            "../../../../../../../../etc/hostname",
            "path through `..`",
        ),
        ("escape-absolute", "/etc/hostname", "absolute path"),
        ("escape-link", "link.yaml", "symbolic link"),
    ] {
        let dir = tree(name);
        symlink("/etc/hostname", dir.join("link.yaml")).unwrap();
        std::fs::write(
            dir.join("kustomization.yaml"),
            format!("resources: [{resource}]\n"),
        )
        .unwrap();
        let err = load(&[dir], Limits::default()).unwrap_err();
        assert!(
            err.to_string().contains(&format!(": {how} to ")),
            "{resource}: {err}"
        );
    }
}

/// Found by the `load_tree` fuzz target: labels applied to a resource document that is not an
/// object (a bare string) panicked; it is left alone now, and other resources get the labels.
#[test]
fn labels_skip_resources_that_are_not_objects() {
    let dir = std::env::temp_dir().join(format!("capi-hostile-scalar-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("kustomization.yaml"),
        "resources: [a.yaml]\ncommonLabels: {a: b}\ncommonAnnotations: {c: d}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("a.yaml"),
        "just a string\n---\nkind: ConfigMap\nmetadata: {name: x, labels: null}\n---\nkind: ConfigMap\nmetadata: text\n",
    )
    .unwrap();
    let loaded = load(std::slice::from_ref(&dir), Limits::default()).unwrap();
    let values: Vec<&serde_json::Value> = loaded.documents.iter().map(|d| &d.value).collect();
    assert_eq!(values[0], "just a string");
    assert_eq!(values[1]["metadata"]["labels"]["a"], "b");
    assert_eq!(values[1]["metadata"]["annotations"]["c"], "d");
    assert_eq!(values[2]["metadata"], "text");
    let _ = std::fs::remove_dir_all(&dir);
}
