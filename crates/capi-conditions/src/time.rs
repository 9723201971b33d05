//! Go's zero `metav1.Time` and second truncation.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;

/// Seconds of `0001-01-01T00:00:00Z` (Go's zero time) since the Unix epoch.
const ZERO_SECONDS: i64 = -62_135_596_800;

/// Go's zero time, `0001-01-01T00:00:00Z`: a condition whose `lastTransitionTime` is zero gets
/// "now" when set.
#[must_use]
pub fn zero_time() -> Time {
    Time(Timestamp::from_second(ZERO_SECONDS).unwrap_or(Timestamp::MIN))
}

/// True for Go's zero time.
#[must_use]
pub fn is_zero(t: &Time) -> bool {
    t.0.as_second() == ZERO_SECONDS && t.0.subsec_nanosecond() == 0
}

/// The time truncated to whole seconds (as upstream stores condition times).
#[must_use]
pub fn truncate(t: &Time) -> Time {
    Time(Timestamp::from_second(t.0.as_second()).unwrap_or(t.0))
}
