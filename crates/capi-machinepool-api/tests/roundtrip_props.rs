//! proptest: arbitrary v1beta1 and v1beta2 objects survive serialize -> deserialize, up to what
//! Go's `omitempty` drops (nil and empty lists and maps, empty strings of `ObjectMeta` and
//! `ObjectReference`, a zero `generation` or condition `observedGeneration`); from then on
//! printing and reading is a fixpoint, bytes included (as in Go, where an empty map under an
//! `omitzero` struct prints `{}` once and is gone after the next read).
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_machinepool_api::{Duration, v1beta1, v1beta2, wire};
use capi_machinepool_testing::go_normalized;
use capi_machinepool_testing::strategies::{v1beta1_pool, v1beta2_pool};
use proptest::prelude::*;

proptest! {
    #[test]
    fn v1beta2_serde_round_trip(mp in v1beta2_pool()) {
        let json = wire::to_string(&mp).unwrap();
        let back: v1beta2::MachinePool = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &go_normalized::v1beta2(mp));
        let again = wire::to_string(&back).unwrap();
        let twice: v1beta2::MachinePool = serde_json::from_str(&again).unwrap();
        prop_assert_eq!(wire::to_string(&twice).unwrap(), again);
        prop_assert_eq!(twice, back);
    }

    #[test]
    fn v1beta1_serde_round_trip(mp in v1beta1_pool()) {
        let json = wire::to_string(&mp).unwrap();
        let back: v1beta1::MachinePool = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &go_normalized::v1beta1(mp));
        let again = wire::to_string(&back).unwrap();
        let twice: v1beta1::MachinePool = serde_json::from_str(&again).unwrap();
        prop_assert_eq!(wire::to_string(&twice).unwrap(), again);
        prop_assert_eq!(twice, back);
    }

    #[test]
    fn duration_text_round_trip(nanos in any::<i64>()) {
        let d = Duration::from_nanos(nanos);
        prop_assert_eq!(d.to_string().parse::<Duration>(), Ok(d));
    }
}
