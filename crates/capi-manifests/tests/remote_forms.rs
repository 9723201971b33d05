//! Issue 65: the preflight's idea of "remote" is kustomize's own. Each name below is put in
//! the `resources` of a kustomization and rendered by the real `kubectl kustomize`
//! (kustomize v5.5.0) in a network namespace of its own (`unshare --net`: no interface is up,
//! so nothing leaves the machine); kustomize either reads the name from the tree ("must
//! build at directory") or runs `git fetch` for it. `is_git_repo_spec` must say the same for
//! every name: the forms of `api/internal/git/repospec.go` (scp-like `user@host:path`,
//! `github.com` in any case with `/` or `:`, `git::` in any case, the four schemes in any
//! case, `_git/`, `//` and `.git` markers, paths climbing out of the repository) and their
//! combinations.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::Path;

use capi_manifests::kustomize::is_git_repo_spec;
use capi_test_support::kubectl;

/// Whether kustomize, sandboxed, tried to clone `name` (`Some(true)`), read it from the tree
/// (`Some(false)`), or neither (its answer says something else).
fn kustomize_clones(dir: &Path, name: &str) -> Option<bool> {
    let quoted = serde_json::to_string(name).unwrap();
    std::fs::write(
        dir.join("kustomization.yaml"),
        format!("resources:\n- {quoted}\n"),
    )
    .unwrap();
    let out = kubectl::kustomize_offline(dir);
    let text = String::from_utf8_lossy(&out.stderr);
    if text.contains("git fetch") || text.contains("'git' program") || text.contains("git init") {
        Some(true)
    } else if text.contains("must build at directory") {
        Some(false)
    } else {
        None
    }
}

/// Names built from each part of the forms, every combination of a deterministic sample.
fn names() -> Vec<String> {
    let prefixes = ["", "git::", "GIT::"];
    let schemes = ["", "https://", "HTTP://", "ssh://", "ftp://", "file://"];
    let users = ["", "git@", "deploy-1@", "1x@"];
    let hosts = ["github.com", "GitHub.COM", "example.com", "127.0.0.1"];
    let separators = ["/", ":"];
    let paths = [
        "org/repo",
        "org/repo.git/sub",
        "org/repo//sub",
        "org",
        "project/_git/repo/sub",
        "org/repo/../../x",
    ];
    let mut all = Vec::new();
    for p in prefixes {
        for s in schemes {
            for u in users {
                for h in hosts {
                    for sep in separators {
                        for path in paths {
                            all.push(format!("{p}{s}{u}{h}{sep}{path}"));
                        }
                    }
                }
            }
        }
    }
    // Every 23rd combination (23 is prime to every part's count, so each value of each part
    // is sampled), and the issue's own names.
    let mut sample: Vec<String> = all.into_iter().step_by(23).collect();
    sample.extend(
        [
            "deploy@127.0.0.1:org/repo.git",
            "GITHUB.COM/org/repo",
            "github.com:org/repo",
            "GIT::GitHub.com/org/repo",
            "example.com:org/repo",
            "deploy@host",
            "bases/crds.yaml",
            "../base",
        ]
        .map(str::to_owned),
    );
    sample
}

#[test]
fn the_preflight_refuses_exactly_what_kustomize_clones() {
    if !kubectl::available() || !kubectl::sandbox_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let names = names();
    let mut disagreements = Vec::new();
    let mut clones = 0;
    for name in &names {
        let Some(kustomize) = kustomize_clones(dir.path(), name) else {
            disagreements.push(format!("{name}: kustomize's answer was neither"));
            continue;
        };
        clones += usize::from(kustomize);
        if kustomize != is_git_repo_spec(name) {
            disagreements.push(format!(
                "{name}: kustomize clones it: {kustomize}, is_git_repo_spec: {}",
                !kustomize
            ));
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} of {} names:\n{}",
        disagreements.len(),
        names.len(),
        disagreements.join("\n")
    );
    // Both kinds are exercised.
    assert!(
        clones > 20 && clones + 20 < names.len(),
        "{clones} of {}",
        names.len()
    );
}
