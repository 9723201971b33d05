//! `validate`'s pipeline (schema, decode, up-conversion, defaulting, validation) and the skew
//! check never panic on arbitrary documents; control planes may come from the same stream.
#![no_main]

use std::sync::OnceLock;

use capi_machinepool_admission::Admission;
use capi_machinepool_admission::rollout::{ControlPlanes, check_pool};
use capi_manifests::{Limits, load::documents};
use libfuzzer_sys::fuzz_target;

fn admission() -> &'static Admission {
    static ADMISSION: OnceLock<Admission> = OnceLock::new();
    ADMISSION.get_or_init(|| Admission::new().expect("the generated schemas compile"))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(docs) = documents(text, "fuzz", &Limits::default()) else { return };
    let mut control_planes = ControlPlanes::new();
    for doc in &docs {
        control_planes.add(&doc.value);
    }
    for doc in &docs {
        let admitted = admission().admit(&doc.value);
        for finding in &admitted.findings {
            let _ = finding.to_string();
        }
        if let Some(mp) = &admitted.machine_pool {
            for skew in check_pool(mp, &control_planes, Some("v1.33.0")) {
                let _ = skew.to_string();
            }
        }
    }
});
