//! YAML/JSON MachinePool parsing, defaulting, validation and conversion never panic, and what
//! parses round-trips through JSON.
#![no_main]

use capi_machinepool_api::admission::{FeatureGates, default_machine_pool, validate_machine_pool};
use capi_machinepool_api::{v1beta1, v1beta2};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(docs) = capi_contract::load::parse_documents("fuzz", text) else { return };
    for doc in docs {
        if let Ok(mut mp) = serde_json::from_value::<v1beta2::MachinePool>(doc.value.clone()) {
            let json = serde_json::to_value(&mp).expect("serializes");
            let again: v1beta2::MachinePool = serde_json::from_value(json).expect("re-parses");
            assert_eq!(again, mp);
            if default_machine_pool(&mut mp, None).is_ok() {
                let _ = validate_machine_pool(&mp, None, &FeatureGates::default());
            }
        }
        if let Ok(mp) = serde_json::from_value::<v1beta1::MachinePool>(doc.value) {
            let _ = capi_machinepool_conversion::machine_pool::to_hub(mp);
        }
    }
});
