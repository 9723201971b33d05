//! The YAML floor of `capi-machinepool convert` on a large stream (docs/performance.md,
//! "Streams"), and the stream it is measured on.
//!
//! ```sh
//! cargo run --release -p capi-machinepool-cli --example stream_floor -- generate 100000 > /tmp/stream.yaml
//! cargo build --release -p capi-machinepool-cli --example stream_floor
//! /usr/bin/time target/release/examples/stream_floor read /tmp/stream.yaml  # parse only
//! /usr/bin/time target/release/examples/stream_floor emit /tmp/stream.yaml  # parse and print
//! /usr/bin/time target/release/capi-machinepool convert --to v1beta2 -f /tmp/stream.yaml > /dev/null
//! ```
//!
//! `read` and `emit` do what the CLI cannot avoid: each document parsed by the same YAML
//! parser into a `serde_json::Value` (and, `emit`, printed back with the same YAML printer).

use std::error::Error;
use std::io::Write;

/// The every-field v1beta1 fixture, without its comment line.
const FIXTURE: &str = include_str!("../../../tests/fixtures/conversion/v1beta1-every-field.yaml");

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = std::io::stdout().lock();
    let mut out = std::io::BufWriter::new(out);
    match args.as_slice() {
        [mode, count] if mode == "generate" => {
            let body: String = FIXTURE
                .lines()
                .filter(|l| !l.starts_with('#'))
                .map(|l| format!("{l}\n"))
                .collect();
            for i in 0..count.parse::<usize>()? {
                let named = body.replacen("name: workers\n", &format!("name: workers-{i}\n"), 1);
                write!(out, "---\n{named}")?;
            }
        }
        [mode, file] if mode == "read" || mode == "emit" => {
            let text = std::fs::read_to_string(file)?;
            let mut documents = 0;
            for document in text.split("---\n").filter(|d| !d.trim().is_empty()) {
                let value: serde_json::Value = serde_saphyr::from_str(document)?;
                documents += 1;
                if mode == "emit" {
                    write!(out, "---\n{}", serde_saphyr::to_string(&value)?)?;
                }
            }
            eprintln!("{documents} documents");
        }
        _ => return Err("usage: stream_floor generate COUNT | read FILE | emit FILE".into()),
    }
    out.flush()?;
    Ok(())
}
