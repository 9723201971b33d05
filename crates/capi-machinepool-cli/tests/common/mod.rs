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
/// way, so a command reading `-` never waits). The input is written from a thread while the
/// output is read, so a large output never blocks the child; a child that exits without
/// reading all of its input (a command-line error) closes the pipe, which is not a failure.
pub fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let writer = stdin.map(|input| {
        let mut pipe = child.stdin.take().unwrap();
        let input = input.to_vec();
        std::thread::spawn(move || match pipe.write_all(&input) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            written => written.unwrap(),
        })
    });
    drop(child.stdin.take());
    let output = child.wait_with_output().unwrap();
    if let Some(writer) = writer {
        writer.join().unwrap();
    }
    output
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
