//! Helpers shared by this crate's integration tests.
#![allow(clippy::unwrap_used, clippy::panic)]
#![allow(dead_code)]

pub mod paths;

use serde_json::Value;

/// Every difference between two schemas, ignoring `description`; numbers compared as f64.
pub fn schema_diff(path: &str, ours: &Value, theirs: &Value, out: &mut Vec<String>) {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, va) in a {
                if k == "description" {
                    continue;
                }
                match b.get(k) {
                    Some(vb) => schema_diff(&format!("{path}/{k}"), va, vb, out),
                    None => out.push(format!("{path}/{k}: only in ours: {va}")),
                }
            }
            for (k, vb) in b {
                if k != "description" && !a.contains_key(k) {
                    out.push(format!("{path}/{k}: only upstream: {vb}"));
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (va, vb)) in a.iter().zip(b).enumerate() {
                schema_diff(&format!("{path}/{i}"), va, vb, out);
            }
        }
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => {}
        _ if ours == theirs => {}
        _ => out.push(format!("{path}: ours {ours} != upstream {theirs}")),
    }
}
