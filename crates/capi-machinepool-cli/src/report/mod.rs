//! Renderings of a contract [`capi_contract::Report`].

pub mod json;
pub mod junit;
pub mod text;

use capi_contract::Finding;

/// Findings grouped by subject (CRD, `CRD@version` or object), in first-seen order.
pub fn grouped(findings: &[Finding]) -> Vec<(&str, Vec<&Finding>)> {
    let mut groups: Vec<(&str, Vec<&Finding>)> = Vec::new();
    for f in findings {
        match groups.iter_mut().find(|(s, _)| *s == f.subject) {
            Some((_, list)) => list.push(f),
            None => groups.push((&f.subject, vec![f])),
        }
    }
    groups
}
