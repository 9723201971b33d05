//! `validate`'s library path (`capi_machinepool_rollout::Validation`: schema, decode,
//! up-conversion, defaulting, validation, version skew against control planes of the same
//! stream, and the comparison with stored objects) never panics on arbitrary documents. The
//! first half of the stream is the stored objects, the second the update.
#![no_main]

use std::sync::OnceLock;

use capi_machinepool_admission::Admission;
use capi_machinepool_rollout::Validation;
use capi_machinepool_rollout::skew::VersionAt;
use capi_manifests::{Limits, load::documents};
use libfuzzer_sys::fuzz_target;

fn admission() -> &'static Admission {
    static ADMISSION: OnceLock<Admission> = OnceLock::new();
    ADMISSION.get_or_init(|| Admission::new().expect("the generated schemas compile"))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(docs) = documents(text, "fuzz", &Limits::default()) else { return };
    let (stored, update) = docs.split_at(docs.len() / 2);
    let mut validation = Validation::new(admission())
        .with_control_plane_version(VersionAt::new("v1.33.0", "fuzz"));
    for doc in stored {
        validation.add_stored(&doc.value);
    }
    for doc in update {
        validation.add("fuzz", &doc.value);
    }
    let _ = validation.finish().to_string();
});
