//! `kubectl kustomize`, the oracle of the kustomize emulator's differential suites and of the
//! CLI's rendering tests: run it, or skip visibly where kubectl is missing (`CI=true`, which
//! `.ci/run` sets, makes the skip a failure).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// Whether `kubectl` runs here. Prints `skipped: kubectl not found` when it does not.
///
/// # Panics
/// When kubectl is missing and `CI=true`: CI must never skip the kustomize tiers.
#[must_use]
pub fn available() -> bool {
    let found = Command::new("kubectl")
        .args(["version", "--client"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "kubectl not found, and CI=true: the kustomize tests must run"
        );
        eprintln!("skipped: kubectl not found");
    }
    found
}

/// kustomize refused a tree (the oracle's verdict, not a failure of the harness).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// What kustomize printed on standard error.
    pub stderr: String,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "kubectl kustomize refused the tree: {}",
            self.stderr.trim()
        )
    }
}

impl std::error::Error for Refused {}

/// `kubectl kustomize DIR`: the rendered YAML, or [`Refused`] when kustomize refuses.
///
/// # Panics
/// When kubectl cannot be started or prints something other than UTF-8.
pub fn kustomize(dir: &Path) -> Result<String, Refused> {
    let out = Command::new("kubectl")
        .arg("kustomize")
        .arg(dir)
        .output()
        .expect("kubectl starts");
    if !out.status.success() {
        return Err(Refused {
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    Ok(String::from_utf8(out.stdout).expect("kubectl prints UTF-8"))
}

/// What the contract checker reads of rendered objects, by (kind, name): labels and spec.
#[must_use]
pub fn checked_parts(values: &[Value]) -> BTreeMap<(String, String), (Value, Value)> {
    values
        .iter()
        .map(|v| {
            let s = |x: &Value| x.as_str().unwrap_or_default().to_owned();
            (
                (s(&v["kind"]), s(&v["metadata"]["name"])),
                (v["metadata"]["labels"].clone(), v["spec"].clone()),
            )
        })
        .collect()
}

/// Whether an unprivileged user and network namespace can be made here (`unshare --user
/// --map-root-user --net`, the sandbox `check DIR` runs kustomize in). Prints `skipped: ...`
/// when not.
///
/// # Panics
/// When it cannot and `CI=true`: the sandboxed tiers must run in CI.
#[must_use]
pub fn sandbox_available() -> bool {
    let made = Command::new("unshare")
        .args(["--user", "--map-root-user", "--net", "--", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI must be able to make an unprivileged user and network namespace (unshare)"
        );
        eprintln!("skipped: no unprivileged user and network namespace (unshare) here");
    }
    made
}

/// `kubectl kustomize DIR` in a network namespace of its own (no interface is up: nothing
/// leaves the machine, whatever the kustomization names), with an environment of `PATH` and
/// `HOME=DIR` only and git told never to prompt; its output. Check [`sandbox_available`]
/// first.
///
/// # Panics
/// When `unshare` cannot be started.
#[must_use]
pub fn kustomize_offline(dir: &Path) -> std::process::Output {
    Command::new("unshare")
        .args([
            "--user",
            "--map-root-user",
            "--net",
            "--",
            "kubectl",
            "kustomize",
        ])
        .arg(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .expect("unshare starts")
}
