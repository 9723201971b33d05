//! The request body limit: the API server reads at most 3 MiB of a request body
//! (`k8s.io/apiserver`, `DefaultMaxRequestSizeBytes`, `3 * 1024 * 1024`) and answers a larger
//! create or update with 413, "Request entity too large: limit is 3145728", before decoding
//! anything. A CRD is sent as JSON (`kubectl apply` and `create` encode it with Go's
//! `encoding/json`, which escapes `<`, `>`, `&`, U+2028 and U+2029 as `\uXXXX`), so its size
//! is measured as that encoding, without the `last-applied-configuration` annotation a
//! client-side apply adds (that annotation is limited on its own, to 256 KiB with the other
//! annotations).

use serde_json::Value;

use super::{Refusal, Refusals};

/// The most bytes the API server reads of a request body.
pub(super) const MAX_REQUEST_BYTES: usize = 3 * 1024 * 1024;

/// Refuses a CRD whose JSON encoding is over [`MAX_REQUEST_BYTES`].
pub(super) fn validate(crd: &Value, r: &mut Refusals) {
    let size = go_json_len(crd);
    if size > MAX_REQUEST_BYTES {
        // Not a field's refusal: reported on the CRD's name, as findings about a whole CRD are.
        r.push(Refusal::TooLarge {
            size,
            limit: MAX_REQUEST_BYTES,
        });
    }
}

/// The length of `value` as Go's `encoding/json` writes it (compact, HTML-safe).
fn go_json_len(value: &Value) -> usize {
    let compact = serde_json::to_string(value).unwrap_or_default();
    let escaped: usize = compact
        .chars()
        .map(|c| match c {
            // `\u003c` (6 bytes) for 1.
            '<' | '>' | '&' => 5,
            // `\u2028` (6 bytes) for 3.
            '\u{2028}' | '\u{2029}' => 3,
            _ => 0,
        })
        .sum();
    compact.len() + escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn over_3_mib_of_json_is_refused() {
        let crd = |description: &str| {
            serde_json::json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "spec": {"versions": [{"schema": {"openAPIV3Schema": {"description": description}}}]}})
        };
        let base = go_json_len(&crd(""));
        let mut r = Refusals::default();
        validate(&crd(&"x".repeat(MAX_REQUEST_BYTES - base)), &mut r);
        assert!(r.errors.is_empty(), "exactly the limit is read");
        validate(&crd(&"x".repeat(MAX_REQUEST_BYTES - base + 1)), &mut r);
        assert_eq!(r.errors.len(), 1);
        assert!(
            r.errors[0]
                .message()
                .starts_with("Request entity too large: limit is 3145728")
        );
        // Go writes `<` as `\u003c`: a description of `<` counts 6 bytes each.
        assert_eq!(go_json_len(&serde_json::json!("<")), "\"\\u003c\"".len());
    }
}
