//! The contract checker never panics on arbitrary CRD documents.
#![no_main]

use capi_contract::{CheckOptions, CrdInput, check_crds};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(docs) = capi_contract::load::parse_documents("fuzz", text) else { return };
    let inputs: Vec<CrdInput> = docs.into_iter().map(|d| CrdInput { source: d.source, crd: d.value, notes: vec![] }).collect();
    for opts in [CheckOptions::default(), CheckOptions { contract: "v1beta1".into(), v1beta1_compat: false }] {
        let report = check_crds(&inputs, &opts);
        for doc in &inputs {
            let mut r = report.clone();
            capi_contract::object_check::check_object(&capi_contract::load::Document { source: doc.source.clone(), value: doc.crd.clone() }, &opts.contract, &mut r);
        }
    }
});
