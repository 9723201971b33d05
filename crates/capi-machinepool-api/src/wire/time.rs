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
    with_text(time, |text| text.map(str::to_owned))
}

/// Calls `f` with the text Go writes for `time` (`None` for the zero time), built on the
/// stack for years 0000 to 9999 and by jiff otherwise.
fn with_text<R>(time: &Time, f: impl FnOnce(Option<&str>) -> R) -> R {
    if is_zero(time) {
        return f(None);
    }
    match rfc3339_seconds(time.0) {
        // The text is ASCII digits and separators.
        Some(text) => f(Some(std::str::from_utf8(&text).unwrap_or_default())),
        None => f(Some(&slow_format(time.0))),
    }
}

/// RFC 3339 at second precision, in UTC, through jiff: sub-seconds are truncated as Go's
/// layout drops them.
fn slow_format(time: Timestamp) -> String {
    k8s_openapi::jiff::fmt::strtime::format("%Y-%m-%dT%H:%M:%SZ", time)
        .unwrap_or_else(|_| time.to_string())
}

/// `YYYY-MM-DDTHH:MM:SSZ` for a time in years 0000 to 9999 (what Go can print), computed
/// directly: the civil date of a day count is Howard Hinnant's `civil_from_days`.
fn rfc3339_seconds(time: Timestamp) -> Option<[u8; 20]> {
    // jiff truncates toward zero: a time before 1970 with a fraction is in the second before.
    let seconds = time.as_second() - i64::from(time.subsec_nanosecond() < 0);
    let (days, of_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    if !(0..=9999).contains(&year) {
        return None;
    }
    let mut out = *b"0000-00-00T00:00:00Z";
    let mut put = |at: usize, width: usize, mut value: i64| {
        for i in (at..at + width).rev() {
            out[i] = b'0' + (value % 10) as u8;
            value /= 10;
        }
    };
    put(0, 4, year);
    put(5, 2, month);
    put(8, 2, day);
    put(11, 2, of_day / 3_600);
    put(14, 2, of_day / 60 % 60);
    put(17, 2, of_day % 60);
    Some(out)
}

/// Serializes a `metav1.Time` value as Go does.
pub(crate) fn serialize<S: Serializer>(time: &Time, serializer: S) -> Result<S::Ok, S::Error> {
    with_text(time, |text| match text {
        Some(text) => serializer.serialize_str(text),
        None => serializer.serialize_none(),
    })
}

/// `serialize_with` for an `Option<Time>` field Go declares as a `metav1.Time` value: `None`
/// and the zero time print `null`.
pub(crate) fn serialize_option<S: Serializer>(
    time: &Option<Time>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match time {
        Some(time) => serialize(time, serializer),
        None => serializer.serialize_none(),
    }
}

/// Reads the canonical `YYYY-MM-DDTHH:MM:SSZ` form directly (what Go and the API server
/// write); `None` for any other text, which jiff then reads.
fn parse_rfc3339_seconds(text: &str) -> Option<Timestamp> {
    let b = text.as_bytes();
    if b.len() != 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
        || b[19] != b'Z'
    {
        return None;
    }
    let number = |from: usize, to: usize| -> Option<i64> {
        b[from..to].iter().try_fold(0i64, |n, &c| {
            c.is_ascii_digit().then(|| n * 10 + i64::from(c - b'0'))
        })
    };
    let (year, month, day) = (number(0, 4)?, number(5, 7)?, number(8, 10)?);
    let (hour, minute, second) = (number(11, 13)?, number(14, 16)?, number(17, 19)?);
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    if day < 1 || day > days_in_month || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    // Howard Hinnant's `days_from_civil`.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y.rem_euclid(400);
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    Timestamp::from_second(days * 86_400 + hour * 3_600 + minute * 60 + second).ok()
}

/// `deserialize_with` for an `Option<Time>`: `null` or absent is `None`; the canonical form
/// is read directly, any other text as k8s-openapi reads it (jiff), with jiff's errors.
pub(crate) fn deserialize_option<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Time>, D::Error> {
    struct TimeVisitor;
    impl<'de> serde::de::Visitor<'de> for TimeVisitor {
        type Value = Option<Time>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an RFC 3339 time or null")
        }
        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
            match parse_rfc3339_seconds(text) {
                Some(time) => Ok(Some(Time(time))),
                None => text.parse().map(|t| Some(Time(t))).map_err(E::custom),
            }
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_str(self)
        }
    }
    deserializer.deserialize_option(TimeVisitor)
}

/// `Deserialize` adapter for [`deserialize_option`].
pub(crate) struct OptionTime(pub(crate) Option<Time>);

impl<'de> serde::Deserialize<'de> for OptionTime {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_option(deserializer).map(OptionTime)
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

    proptest::proptest! {
        #[test]
        fn the_direct_printer_agrees_with_jiff(
            seconds in Timestamp::MIN.as_second()..=Timestamp::MAX.as_second(),
            recent in 0i64..4_102_444_800,
            nanos in 0i32..1_000_000_000,
        ) {
            for s in [seconds, recent, -recent] {
                let t = Timestamp::new(s, nanos).unwrap_or(Timestamp::MIN);
                let direct = rfc3339_seconds(t).map(|b| String::from_utf8(b.to_vec()).unwrap());
                let year = t.to_zoned(k8s_openapi::jiff::tz::TimeZone::UTC).year();
                proptest::prop_assert_eq!(direct.is_some(), (0..=9999).contains(&year));
                if let Some(direct) = direct {
                    proptest::prop_assert_eq!(direct, slow_format(t));
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn the_direct_reader_agrees_with_jiff(
            seconds in Timestamp::MIN.as_second()..=Timestamp::MAX.as_second(),
            shaped in "[0-9]{4}-[0-1][0-9]-[0-3][0-9]T[0-2][0-9]:[0-6][0-9]:[0-6][0-9]Z",
        ) {
            let t = Timestamp::from_second(seconds).unwrap_or(Timestamp::MIN);
            if let Some(text) = rfc3339_seconds(t) {
                let text = String::from_utf8(text.to_vec()).unwrap();
                proptest::prop_assert_eq!(parse_rfc3339_seconds(&text), Some(t));
            }
            let jiff = shaped.parse::<Timestamp>().ok();
            match parse_rfc3339_seconds(&shaped) {
                Some(direct) => proptest::prop_assert_eq!(Some(direct), jiff),
                // jiff may read what the direct reader leaves to it (a leap second `:60`).
                None => proptest::prop_assert!(jiff.is_none() || &shaped[17..19] == "60"),
            }
        }
    }

    #[test]
    fn times_read_and_print_as_go_does() {
        let read = |json: &str| {
            deserialize_option(&mut serde_json::Deserializer::from_str(json))
                .map_err(|e| e.to_string())
        };
        assert_eq!(read("null").unwrap(), None);
        let t = read("\"2026-01-02T03:04:05Z\"").unwrap().unwrap();
        assert_eq!(t.0.to_string(), "2026-01-02T03:04:05Z");
        // Other RFC 3339 forms go through jiff.
        let t = read("\"2026-01-02T05:04:05.5+02:00\"").unwrap().unwrap();
        assert_eq!(format(&t).unwrap(), "2026-01-02T03:04:05Z");
        assert!(read("\"2026-02-30T00:00:00Z\"").is_err());
        assert!(read("\"yesterday\"").is_err());
        let mut out = Vec::new();
        serialize_option(&Some(zero()), &mut serde_json::Serializer::new(&mut out)).unwrap();
        assert_eq!(out, b"null");
    }

    #[test]
    fn edges_of_the_direct_printer() {
        for text in [
            "0000-01-01T00:00:00Z",
            "1969-12-31T23:59:59Z",
            "1970-01-01T00:00:00Z",
            "2000-02-29T12:34:56Z",
            "2100-03-01T00:00:00Z",
            "9999-12-30T22:00:00Z", // jiff's latest timestamp
        ] {
            let t: Timestamp = text.parse().unwrap();
            assert_eq!(format(&Time(t)).unwrap(), text);
        }
        // The last second of year -1, just before 0000-01-01T00:00:00Z.
        let before = Timestamp::from_second(-62_167_219_201).unwrap();
        assert_eq!(rfc3339_seconds(before), None);
        assert_eq!(format(&Time(before)).unwrap(), slow_format(before));
    }
}
