//! The contract checker never panics on arbitrary documents, read as CRDs and as objects, for
//! every contract selection; every report renders in every format.
#![no_main]

use capi_contract::Contract;
use capi_contract_check::{CheckOptions, check_documents, render};
use capi_manifests::{Limits, load::documents};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(docs) = documents(text, "fuzz.yaml", &Limits::default()) else { return };
    for only_contract in [None, Some(Contract::V1Beta1), Some(Contract::V1Beta2)] {
        for v1beta1_compat in [true, false] {
            let opts = CheckOptions { only_contract, v1beta1_compat };
            let report = check_documents(docs.clone(), &[], &opts);
            let _ = render::text(&report, true);
            let _ = render::json(&report);
            let _ = render::junit(&report);
            let _ = render::github(&report);
        }
    }
});
