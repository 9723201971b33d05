//! MachinePool decoding (both versions), the Go-exact printer, defaulting, validation and
//! conversion never panic, and printing reaches a fixpoint after one read: print -> parse ->
//! print gives bytes that parse and print to themselves. (Not after zero reads: like Go's,
//! the printer turns an empty non-nil list under an `omitzero` struct into `{}`, which reads
//! back as nil, so `status: {conditions: []}` prints `"status":{}` once and then nothing,
//! exactly as Go's `encoding/json` does.)
#![no_main]

use capi_machinepool_admission::{FeatureGates, default_machine_pool, validate_machine_pool};
use capi_machinepool_api::{v1beta1, v1beta2, wire};
use capi_manifests::{Limits, load::documents};
use libfuzzer_sys::fuzz_target;

fn fixpoint<T: serde::de::DeserializeOwned + serde::Serialize + PartialEq + std::fmt::Debug>(
    value: &T,
) {
    let first = wire::to_vec(value).expect("prints");
    let read: T = serde_json::from_slice(&first).expect("re-parses what it printed");
    let second = wire::to_vec(&read).expect("prints");
    let again: T = serde_json::from_slice(&second).expect("re-parses what it printed");
    assert_eq!(again, read);
    assert_eq!(wire::to_vec(&again).expect("prints"), second);
}

fn resolver() -> capi_machinepool_conversion::StaticResolver {
    capi_machinepool_conversion::StaticResolver::new()
        .with("infrastructure.cluster.x-k8s.io", "DockerMachinePool", "infrastructure.cluster.x-k8s.io/v1beta2")
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(docs) = documents(text, "fuzz", &Limits::default()) else { return };
    for doc in docs {
        if let Ok(mut mp) = serde_json::from_value::<v1beta2::MachinePool>(doc.value.clone()) {
            fixpoint(&mp);
            let _ = capi_machinepool_conversion::machine_pool::from_hub(&mp, &resolver());
            if default_machine_pool(&mut mp, None).is_ok() {
                let _ = validate_machine_pool(&mp, None, &FeatureGates::default());
            }
        }
        if let Ok(mp) = serde_json::from_value::<v1beta1::MachinePool>(doc.value) {
            fixpoint(&mp);
            let _ = capi_machinepool_conversion::machine_pool::to_hub(mp);
        }
    }
});
