//! Numbers of a YAML document as the API server reads them after `kubectl apply`.
//!
//! kubectl turns YAML into JSON through Go's `encoding/json` (sigs.k8s.io/yaml), which prints
//! a `float64` that is a whole number without a fraction or an exponent (3.0 and 3e0 as `3`,
//! -0.0 as `-0`) below 1e21; the server then decodes a number without fraction or exponent as
//! an `int64` when it fits (`k8s.io/apimachinery/pkg/util/json`). So `replicas: 3.0` written
//! in YAML reaches the server as the integer 3, where the same `3.0` sent as JSON stays a
//! float (and is refused for an integer field). [`as_kubectl_sends`] applies that to a parsed
//! YAML document; [`is_json`] tells a JSON document the way kubectl's decoder does.

use serde_json::{Number, Value};

/// Whether kubectl reads `text` as JSON: its first character that is not white space is `{`
/// (`k8s.io/apimachinery/pkg/util/yaml`, `YAMLOrJSONDecoder`).
///
/// ```
/// assert!(capi_manifests::numbers::is_json("  {\"a\": 1}"));
/// assert!(!capi_manifests::numbers::is_json("a: 1"));
/// ```
#[must_use]
pub fn is_json(text: &str) -> bool {
    text.trim_start().starts_with('{')
}

/// Rewrites every whole `float` of `value` that fits an `int64` as that integer (see the module
/// docs); other floats stay as they are.
///
/// ```
/// let mut v = serde_json::json!({"replicas": 3.0, "ratio": 0.5, "neg": -0.0, "big": 1e19});
/// capi_manifests::numbers::as_kubectl_sends(&mut v);
/// assert_eq!(v, serde_json::json!({"replicas": 3, "ratio": 0.5, "neg": 0, "big": 1e19}));
/// ```
pub fn as_kubectl_sends(value: &mut Value) {
    // Iterative, so that a deep document cannot exhaust the stack.
    let mut pending = vec![value];
    while let Some(v) = pending.pop() {
        match v {
            Value::Number(n) => {
                if let Some(whole) = whole_int64(n) {
                    *n = Number::from(whole);
                }
            }
            Value::Array(items) => pending.extend(items.iter_mut()),
            Value::Object(map) => pending.extend(map.values_mut()),
            _ => {}
        }
    }
}

/// The `int64` a float stands for when Go prints it as an integer that fits one.
fn whole_int64(n: &Number) -> Option<i64> {
    if n.is_i64() || n.is_u64() {
        return None;
    }
    let f = n.as_f64()?;
    // -2^63 <= f < 2^63: 2^63 itself prints as 9223372036854775808, which is no int64.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    (f.is_finite() && f.fract() == 0.0 && (-LIMIT..LIMIT).contains(&f)).then_some(f as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_floats_within_int64_become_integers() {
        // 2^63 as a float is no int64 (Go prints it 9223372036854775808); -2^63 is.
        let two_63 = 2f64.powi(63);
        let mut v = serde_json::json!([3.0, 3, -0.0, 2.5, two_63, -two_63, 1e21, "3.0"]);
        as_kubectl_sends(&mut v);
        assert_eq!(
            v,
            serde_json::json!([3, 3, 0, 2.5, two_63, i64::MIN, 1e21, "3.0"])
        );
    }
}
