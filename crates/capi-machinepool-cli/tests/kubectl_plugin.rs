//! The binary as a kubectl plugin: kubectl runs `kubectl-capi_machinepool` from `PATH` for
//! `kubectl capi-machinepool` (a dash in the plugin's name is an underscore in the file's),
//! and the binary, under that name, says `kubectl capi-machinepool` in its usage and behaves
//! as itself otherwise. The README's install step (a symlink) is what the test does.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::process::Command;

fn plugin_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_capi-machinepool"),
        dir.path().join("kubectl-capi_machinepool"),
    )
    .unwrap();
    dir
}

#[test]
fn kubectl_runs_the_plugin_with_its_usage() {
    let dir = plugin_dir();
    let path = std::env::join_paths(std::iter::once(dir.path().to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let out = match Command::new("kubectl")
        .args(["capi-machinepool", "--help"])
        .env("PATH", &path)
        .output()
    {
        Ok(out) => out,
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("skipped: no kubectl ({e})");
            return;
        }
        Err(e) => panic!("kubectl is needed in CI: {e}"),
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("Usage: kubectl capi-machinepool <COMMAND>"),
        "{text}"
    );
    assert!(text.contains("  preflight "), "{text}");
}

#[test]
fn under_the_plugin_name_errors_and_subcommands_say_kubectl() {
    let dir = plugin_dir();
    let plugin = dir.path().join("kubectl-capi_machinepool");
    let out = Command::new(&plugin)
        .args(["preflight", "--help"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "Usage: kubectl capi-machinepool preflight [OPTIONS] --cluster <NAMESPACE/NAME>"
        ),
        "{text}"
    );
    // A wrong command line: exit 2, the usage under the plugin's name.
    let out = Command::new(&plugin).args(["preflight"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Usage: kubectl capi-machinepool preflight"),
        "{err}"
    );
    // Under its own name, nothing changes.
    let out = Command::new(env!("CARGO_BIN_EXE_capi-machinepool"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("Usage: capi-machinepool <COMMAND>"));
}
