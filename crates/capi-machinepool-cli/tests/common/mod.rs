//! Running the `capi-machinepool` binary from integration tests.
#![allow(dead_code, clippy::unwrap_used)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// The binary under test.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_capi-machinepool"))
}

/// Runs the binary with `args`, feeding `stdin` when given (standard input is closed either
/// way, so a command reading `-` never waits).
pub fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(input) = stdin {
        child.stdin.take().unwrap().write_all(input).unwrap();
    }
    drop(child.stdin.take());
    child.wait_with_output().unwrap()
}

/// Standard output as text (lossy).
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Writes `bytes` to a file `name` in this test process's own temporary directory.
pub fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("capi-machinepool-cli-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}
