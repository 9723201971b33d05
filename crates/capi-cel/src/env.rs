//! The Kubernetes CEL environment's function declarations (apiserver v0.37.2, compatibility
//! version 1.36, `NewExpressionsEnv`): every overload with its id, receiver style and
//! signature, from `env_1_36.tsv` (dumped from upstream's own environment).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use crate::types::Ty;

/// One overload.
#[derive(Clone, Debug)]
pub struct Overload {
    /// cel-go's overload id (`string_to_quantity`).
    pub id: String,
    /// Declared as a receiver-style (member) function.
    pub member: bool,
    /// Parameter types (the receiver first for member overloads).
    pub params: Vec<Ty>,
    /// Result type.
    pub result: Ty,
}

/// The declared functions by name.
pub fn functions() -> &'static BTreeMap<String, Vec<Overload>> {
    static ENV: OnceLock<BTreeMap<String, Vec<Overload>>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut m: BTreeMap<String, Vec<Overload>> = BTreeMap::new();
        for line in include_str!("env_1_36.tsv").lines() {
            let cols: Vec<&str> = line.split('\t').collect();
            let [name, id, member, sig] = cols[..] else {
                continue;
            };
            let Some((args, result)) = sig.split_once(" -> ") else {
                continue;
            };
            let args = args
                .trim()
                .strip_prefix('(')
                .and_then(|a| a.strip_suffix(')'))
                .unwrap_or(args);
            let params = crate::types::split_top(args)
                .into_iter()
                .filter(|a| !a.trim().is_empty())
                .map(Ty::parse)
                .collect();
            m.entry(name.to_owned()).or_default().push(Overload {
                id: id.to_owned(),
                member: member == "true",
                params,
                result: Ty::parse(result),
            });
        }
        m
    })
}
