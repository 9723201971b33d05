//! Inputs found by the cargo-fuzz targets (`fuzz/`), kept as regression tests: each goes through
//! the same code path as its target and must give an answer, not a panic. Files named
//! `crash-*` once broke a target's assertion (see `fuzz/README.md`); the others are
//! coverage-increasing inputs the fuzzer kept.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_machinepool_admission::{FeatureGates, default_machine_pool, validate_machine_pool};
use capi_machinepool_api::{v1beta1, v1beta2, wire};
use capi_machinepool_testing::go_normalized;
use capi_manifests::Limits;
use capi_manifests::load::documents;

#[test]
fn parse_machine_pool_inputs() {
    for (name, data) in capi_test_support::fuzz_inputs("parse_machine_pool") {
        let Ok(text) = std::str::from_utf8(&data) else {
            continue;
        };
        let Ok(docs) = documents(text, &name, &Limits::default()) else {
            continue;
        };
        for doc in docs {
            if let Ok(mut mp) = serde_json::from_value::<v1beta2::MachinePool>(doc.value.clone()) {
                let again: v1beta2::MachinePool =
                    serde_json::from_value(serde_json::to_value(&mp).unwrap()).unwrap();
                assert_eq!(again, go_normalized::v1beta2(mp.clone()), "{name}");
                // Printing reaches its fixpoint after one read, as Go's does.
                let second = wire::to_vec(&again).unwrap();
                let third: v1beta2::MachinePool = serde_json::from_slice(&second).unwrap();
                assert_eq!(wire::to_vec(&third).unwrap(), second, "{name}");
                if default_machine_pool(&mut mp, None).is_ok() {
                    let _ = validate_machine_pool(&mp, None, &FeatureGates::default());
                }
            }
            if let Ok(mp) = serde_json::from_value::<v1beta1::MachinePool>(doc.value) {
                let _ = capi_machinepool_conversion::machine_pool::to_hub(mp);
            }
        }
    }
}
