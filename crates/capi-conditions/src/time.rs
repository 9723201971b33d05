//! Go's zero `metav1.Time` and second truncation.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;

pub use capi_machinepool_api::wire::time::{is_zero, zero as zero_time};

/// The time truncated to whole seconds (as upstream stores condition times).
#[must_use]
pub fn truncate(t: &Time) -> Time {
    Time(Timestamp::from_second(t.0.as_second()).unwrap_or(t.0))
}
