//! Label values as upstream Cluster API formats them (`util/labels/format`): a name that is a
//! valid label value is used as it is; any other name (longer than 63 characters, or with
//! characters a label value may not hold) becomes `hash_<hash>_z`, where `<hash>` is the
//! unpadded base64url encoding of the big-endian FNV-32a hash of the name's bytes.
//!
//! Upstream uses it for the `cluster.x-k8s.io/pool-name` label of MachinePool Machines and
//! their InfraMachines (`format.MustFormatValue(machinePool.Name)`): a MachinePool name is a
//! DNS-1123 subdomain of up to 253 characters, a label value at most 63.
//!
//! ```
//! use capi_machinepool_api::label_format::format_value;
//! assert_eq!(format_value("workers"), "workers");
//! let long = "my-machine-pool-with-a-very-long-name-that-exceeds-sixty-three-chars";
//! assert_eq!(format_value(long), "hash_Ou8XeA_z");
//! ```

use std::borrow::Cow;

use crate::apimachinery::label_value_errors;

const FNV32_OFFSET_BASIS: u32 = 0x811c_9dc5;
const FNV32_PRIME: u32 = 0x0100_0193;
const BASE64URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// FNV-32a of `bytes` (Go's `hash/fnv.New32a`).
fn fnv32a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(FNV32_OFFSET_BASIS, |hash, b| {
        (hash ^ u32::from(*b)).wrapping_mul(FNV32_PRIME)
    })
}

/// Unpadded base64url of four bytes (Go's `base64.URLEncoding.WithPadding(base64.NoPadding)`):
/// 32 bits make six characters, the last one carrying two bits.
fn base64url_unpadded(bytes: [u8; 4]) -> String {
    let bits = u64::from(u32::from_be_bytes(bytes)) << 4; // 36 bits, six groups of six
    (0..6)
        .rev()
        .map(|i| char::from(BASE64URL[usize::try_from((bits >> (i * 6)) & 0x3f).unwrap_or(0)]))
        .collect()
}

/// The label value upstream's `format.MustFormatValue` gives `value`: `value` itself when it
/// is a valid label value, else `hash_<base64url(fnv32a(value))>_z`.
#[must_use]
pub fn format_value(value: &str) -> Cow<'_, str> {
    if label_value_errors(value).is_empty() {
        return Cow::Borrowed(value);
    }
    let hash = fnv32a(value.as_bytes()).to_be_bytes();
    Cow::Owned(format!("hash_{}_z", base64url_unpadded(hash)))
}

/// True when `label_value` is what [`format_value`] gives `value` (upstream's
/// `format.MustEqualValue`).
///
/// ```
/// use capi_machinepool_api::label_format::equal_value;
/// assert!(equal_value("workers", "workers"));
/// assert!(!equal_value(&"x".repeat(64), &"x".repeat(64)));
/// ```
#[must_use]
pub fn equal_value(value: &str, label_value: &str) -> bool {
    format_value(value) == label_value
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Vectors computed outside this crate with the algorithm upstream's
    /// `util/labels/format/helpers.go` (`MustFormatValue`) describes: FNV-32a, big-endian
    /// digest, base64url without padding (Python's `base64.urlsafe_b64encode`, `=` stripped).
    #[test]
    fn known_vectors() {
        let vectors = [
            ("workers.pool-a", "workers.pool-a"),
            ("Workers", "Workers"),
            (&"a".repeat(64) as &str, "hash_2W8PhQ_z"),
            ("pool/1", "hash_DCssrw_z"),
            (
                "my-machine-pool-with-a-very-long-name-that-exceeds-sixty-three-chars",
                "hash_Ou8XeA_z",
            ),
        ];
        for (name, expected) in vectors {
            assert_eq!(format_value(name), expected, "{name}");
        }
        // The empty string is a valid label value: kept as it is.
        assert_eq!(format_value(""), "");
        assert_eq!(fnv32a(b""), FNV32_OFFSET_BASIS);
    }
}
