//! Loading a directory with kustomizations never panics, never reads outside the tree and
//! always ends. The input is a small tree: files separated by lines `#> path`, written to a
//! fresh directory (in /dev/shm when it exists), then loaded as `check DIR` does.
#![no_main]

use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use capi_manifests::{Limits, load::load};
use libfuzzer_sys::fuzz_target;

fn scratch() -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let base = if Path::new("/dev/shm").is_dir() { PathBuf::from("/dev/shm") } else { std::env::temp_dir() };
    base.join(format!("capi-fuzz-tree-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)))
}

/// A relative path with normal components only, at most 4 deep.
fn safe(path: &str) -> Option<PathBuf> {
    let p = Path::new(path.trim());
    let ok = !path.trim().is_empty()
        && p.components().count() <= 4
        && p.components().all(|c| matches!(c, Component::Normal(s) if s.len() < 64));
    ok.then(|| p.to_path_buf())
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let root = scratch();
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    let mut current = PathBuf::from("kustomization.yaml");
    let mut body = String::new();
    for line in text.split_inclusive('\n') {
        if let Some(name) = line.strip_prefix("#> ") {
            files.push((std::mem::replace(&mut current, PathBuf::new()), std::mem::take(&mut body)));
            match safe(name) {
                Some(p) => current = p,
                None => return,
            }
        } else {
            body.push_str(line);
        }
    }
    files.push((current, body));
    if files.len() > 16 {
        return;
    }
    let _ = std::fs::remove_dir_all(&root);
    for (path, body) in &files {
        let full = root.join(path);
        if let Some(parent) = full.parent() {
            if std::fs::create_dir_all(parent).is_err() {
                continue;
            }
        }
        let _ = std::fs::write(&full, body);
    }
    let limits = Limits { max_file_bytes: 1 << 20, max_files: 64, ..Limits::default() };
    if let Ok(loaded) = load(std::slice::from_ref(&root), limits) {
        for doc in &loaded.documents {
            assert!(doc.source.file.starts_with(root.to_string_lossy().as_ref()), "{}", doc.source.file);
        }
    }
    let _ = std::fs::remove_dir_all(&root);
});
