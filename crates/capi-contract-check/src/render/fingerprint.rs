//! Stable identities of findings, for code scanning (`partialFingerprints` in SARIF): made
//! of what identifies a finding (its rule, the CRD and served version or the object, the
//! contract and the field path, which holds a label's key), never of the line it is on or
//! that line's text, so an alert keeps its identity when unrelated lines move and two
//! findings never share one.

use std::collections::HashMap;

use crate::report::{Finding, Target};

/// The key of the fingerprint in SARIF's `partialFingerprints`.
pub const FINGERPRINT_KEY: &str = "capiMachinepoolFinding/v1";

/// FNV-1a, 64 bits: the same on every platform and Rust release (std's hasher is not).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| {
        (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// What identifies a finding, field by field (NUL-separated: no field holds a NUL).
fn identity(f: &Finding) -> String {
    let target = match &f.subject.target {
        Target::Crd { name } => format!("crd\0{name}"),
        Target::CrdVersion { name, version } => format!("crd\0{name}\0{version}"),
        Target::Object {
            kind,
            namespace,
            name,
        } => format!(
            "object\0{kind}\0{}\0{name}",
            namespace.as_deref().unwrap_or_default()
        ),
        Target::Kustomization { file } => format!("kustomization\0{file}"),
        Target::Inputs => "inputs".to_owned(),
    };
    format!("{}\0{target}\0{}\0{}", f.rule.id, f.contract, f.path)
}

/// The fingerprint of each of `findings`, in order: a hash of its identity and, for findings
/// sharing one (two messages of one rule on one field), of its rank among them.
///
/// ```
/// use capi_contract_check::{check, render::fingerprints};
/// let report = check(&[]);
/// let prints = fingerprints(&report.findings.iter().collect::<Vec<_>>());
/// assert_eq!(prints.len(), report.findings.len());
/// assert_eq!(prints[0].len(), 16);
/// ```
#[must_use]
pub fn fingerprints(findings: &[&Finding]) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    findings
        .iter()
        .map(|f| {
            let identity = identity(f);
            let rank = seen.entry(identity.clone()).or_default();
            let text = format!("{identity}\0{rank}");
            *rank += 1;
            format!("{:016x}", fnv1a(text.as_bytes()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_is_the_published_function() {
        // Test vectors of the FNV reference (isthe.com/chongo/tech/comp/fnv).
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
