//! proptest: arbitrary v1beta1 and v1beta2 objects survive serialize -> deserialize unchanged.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_machinepool_api::strategies::{v1beta1_pool, v1beta2_pool};
use capi_machinepool_api::{Duration, v1beta1, v1beta2};
use proptest::prelude::*;

proptest! {
    #[test]
    fn v1beta2_serde_round_trip(mp in v1beta2_pool()) {
        let json = serde_json::to_string(&mp).unwrap();
        let back: v1beta2::MachinePool = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(back, mp);
    }

    #[test]
    fn v1beta1_serde_round_trip(mp in v1beta1_pool()) {
        let json = serde_json::to_string(&mp).unwrap();
        let back: v1beta1::MachinePool = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(back, mp);
    }

    #[test]
    fn duration_text_round_trip(nanos in any::<i64>()) {
        let d = Duration::from_nanos(nanos);
        prop_assert_eq!(d.to_string().parse::<Duration>(), Ok(d));
    }
}
