//! `label_format::format_value` against an independent model of upstream's
//! `util/labels/format.MustFormatValue` (helpers.go): valid label values (apimachinery's
//! `IsValidLabelValue`: at most 63 characters, `(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?`)
//! are kept; others become `hash_` + unpadded base64url of the big-endian FNV-32a digest + `_z`.
//! The model below computes the hash with 64-bit arithmetic and encodes through a bit string,
//! not with the crate's code.
#![allow(clippy::unwrap_used)]

use capi_machinepool_api::label_format::{equal_value, format_value};
use capi_machinepool_api::views::{machine_pool_machines_labels, machine_pool_machines_selector};
use proptest::prelude::*;

fn model_is_valid_label_value(s: &str) -> bool {
    let ok_char = |c: char| c.is_ascii_alphanumeric() || "-_.".contains(c);
    s.is_empty()
        || (s.len() <= 63
            && s.chars().all(ok_char)
            && s.starts_with(|c: char| c.is_ascii_alphanumeric())
            && s.ends_with(|c: char| c.is_ascii_alphanumeric()))
}

fn model_fnv32a(s: &str) -> u64 {
    let mut h: u64 = 2_166_136_261;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = (h * 16_777_619) % (1 << 32);
    }
    h
}

fn model_base64url(h: u64) -> String {
    let alphabet: Vec<char> = ('A'..='Z')
        .chain('a'..='z')
        .chain('0'..='9')
        .chain(['-', '_'])
        .collect();
    let bits: String = format!("{h:032b}0000");
    bits.as_bytes()
        .chunks(6)
        .map(|c| alphabet[usize::from_str_radix(std::str::from_utf8(c).unwrap(), 2).unwrap()])
        .collect()
}

fn model(s: &str) -> String {
    if model_is_valid_label_value(s) {
        s.to_owned()
    } else {
        format!("hash_{}_z", model_base64url(model_fnv32a(s)))
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Names that are label values and names that are not (long DNS subdomains, slashes,
    /// upper case, non-ASCII).
    #[test]
    fn format_value_matches_the_model(
        s in prop_oneof![
            "[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?",
            "[a-z0-9]([-a-z0-9.]{62,252}[a-z0-9])",
            "[-a-zA-Z0-9_./ ]{0,80}",
            ".{0,70}",
        ]
    ) {
        let formatted = format_value(&s);
        prop_assert_eq!(formatted.as_ref(), model(&s));
        prop_assert!(model_is_valid_label_value(&formatted), "{formatted}");
        prop_assert!(equal_value(&s, &formatted));
    }

    /// The MachinePool Machines selector carries the formatted pool name.
    #[test]
    fn selector_uses_the_formatted_pool_name(pool in "[a-z0-9]([-a-z0-9.]{0,120}[a-z0-9])?") {
        let labels = machine_pool_machines_labels("c1", &pool);
        prop_assert_eq!(&labels["cluster.x-k8s.io/pool-name"], &model(&pool));
        prop_assert_eq!(
            machine_pool_machines_selector("c1", &pool),
            format!("cluster.x-k8s.io/cluster-name=c1,cluster.x-k8s.io/pool-name={}", model(&pool))
        );
    }
}
