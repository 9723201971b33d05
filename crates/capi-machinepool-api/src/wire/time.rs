//! `metav1.Time` as Go prints it: RFC 3339 in UTC with whole seconds, and `null` for the zero
//! time (`0001-01-01T00:00:00Z`, which is what Go decodes an absent or `null` time into).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use serde::Serializer;

/// Seconds of Go's zero `time.Time` (`0001-01-01T00:00:00Z`) since the Unix epoch.
const ZERO_SECONDS: i64 = -62_135_596_800;

/// Go's zero time, `0001-01-01T00:00:00Z`: what an absent or `null` `metav1.Time` value
/// decodes into, printed back as `null`.
///
/// ```
/// use capi_machinepool_api::wire::time::{is_zero, zero};
/// assert!(is_zero(&zero()));
/// assert_eq!(zero().0.to_string(), "0001-01-01T00:00:00Z");
/// ```
#[must_use]
pub fn zero() -> Time {
    Time(Timestamp::from_second(ZERO_SECONDS).unwrap_or(Timestamp::MIN))
}

/// True for Go's zero time (Go's `Time.IsZero`, which ignores sub-second digits only when
/// they are zero too).
#[must_use]
pub fn is_zero(time: &Time) -> bool {
    time.0.as_second() == ZERO_SECONDS && time.0.subsec_nanosecond() == 0
}

/// The text Go's `metav1.Time.MarshalJSON` writes (without quotes), `None` for the zero time.
#[must_use]
pub fn format(time: &Time) -> Option<String> {
    if is_zero(time) {
        return None;
    }
    // RFC 3339 at second precision, in UTC: sub-seconds are truncated as Go's layout drops them.
    Some(
        k8s_openapi::jiff::fmt::strtime::format("%Y-%m-%dT%H:%M:%SZ", time.0)
            .unwrap_or_else(|_| time.0.to_string()),
    )
}

/// Serializes a `metav1.Time` value as Go does.
pub(crate) fn serialize<S: Serializer>(time: &Time, serializer: S) -> Result<S::Ok, S::Error> {
    match format(time) {
        Some(text) => serializer.serialize_str(&text),
        None => serializer.serialize_none(),
    }
}

/// `Serialize` adapter for [`serialize`].
pub(crate) struct GoTime<'a>(pub(crate) &'a Time);

impl serde::Serialize for GoTime<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize(self.0, serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_utc_seconds() {
        let t: Timestamp = "2026-06-01T02:00:00.123+02:00".parse().unwrap();
        assert_eq!(format(&Time(t)).unwrap(), "2026-06-01T00:00:00Z");
        assert_eq!(format(&zero()), None);
    }
}
