//! Writing to standard output: a closed pipe ends the command quietly, never a panic.

use std::io::{BufWriter, ErrorKind, Stdout, Write};
use std::process::ExitCode;

/// Why a command stopped early.
#[derive(Debug)]
pub enum Failure {
    /// Standard output was closed by the reader (`| head`): stop quietly with this status.
    Closed(ExitCode),
    /// An input could not be read, or another error (exit status 2).
    Message(String),
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Self::Message(message)
    }
}

/// Buffered standard output.
pub struct Output {
    out: BufWriter<Stdout>,
}

impl Output {
    /// Standard output.
    pub fn stdout() -> Self {
        Self {
            out: BufWriter::with_capacity(64 * 1024, std::io::stdout()),
        }
    }

    fn map(e: &std::io::Error, closed: ExitCode) -> Failure {
        if e.kind() == ErrorKind::BrokenPipe {
            Failure::Closed(closed)
        } else {
            Failure::Message(format!("stdout: {e}"))
        }
    }

    /// Writes bytes; `closed` is the status to end with if the reader went away.
    pub fn write(&mut self, bytes: &[u8], closed: ExitCode) -> Result<(), Failure> {
        self.out.write_all(bytes).map_err(|e| Self::map(&e, closed))
    }

    /// Flushes; `closed` as for [`Output::write`].
    pub fn flush(&mut self, closed: ExitCode) -> Result<(), Failure> {
        self.out.flush().map_err(|e| Self::map(&e, closed))
    }
}
