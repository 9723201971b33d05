//! Examples live in `examples/*.rs`; run them with `cargo run -p capi-machinepool-examples --example <name>`.
