//! Prometheus metrics of the conversion endpoint, in the text exposition format, served on a
//! port of their own (plain HTTP, as controller-runtime serves its metrics apart from the
//! webhook's TLS port).
//!
//! | metric | type | what |
//! |---|---|---|
//! | `conversion_webhook_requests_total{code}` | counter | `/convert` requests by HTTP status |
//! | `conversion_webhook_conversion_failures_total{reason}` | counter | reviews answered with a `Failure` result, by its reason (`ConversionFailed`, `BadRequest`, ...), and requests refused before a review (`BodyTooLarge`, `BodyTimeout`, `Timeout`, ...) |
//! | `conversion_webhook_request_duration_seconds` | histogram | time from the request to its response, body read included |
//! | `conversion_webhook_requests_in_flight` | gauge | `/convert` requests being answered |
//!
//! controller-runtime's webhook exposes the same three kinds
//! (`controller_runtime_webhook_requests_total`, `..._latency_seconds`,
//! `..._requests_in_flight`); the names here are the example's own.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

/// Upper bounds of the latency buckets, in seconds (controller-runtime's webhook buckets are
/// Prometheus' defaults; these add the sub-millisecond ones a conversion takes).
const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];

/// A counter with one label: one series per label value.
#[derive(Debug)]
struct LabelledCounter<K> {
    name: &'static str,
    help: &'static str,
    label: &'static str,
    values: Mutex<BTreeMap<K, u64>>,
}

impl<K: Ord + std::fmt::Display> LabelledCounter<K> {
    const fn new(name: &'static str, help: &'static str, label: &'static str) -> Self {
        Self {
            name,
            help,
            label,
            values: Mutex::new(BTreeMap::new()),
        }
    }

    fn inc(&self, key: K) {
        *self
            .values
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(key)
            .or_default() += 1;
    }

    /// Its family in the text format: HELP, TYPE and one line per label value (escaped as the
    /// format asks).
    fn render(&self, out: &mut String) {
        let (name, label) = (self.name, self.label);
        let _ = writeln!(out, "# HELP {name} {}\n# TYPE {name} counter", self.help);
        for (key, n) in self.values.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            let value = key.to_string().replace('\\', "\\\\").replace('"', "\\\"");
            let _ = writeln!(out, "{name}{{{label}=\"{value}\"}} {n}");
        }
    }
}

/// The counters, shared by every request.
#[derive(Debug)]
pub struct Metrics {
    requests: LabelledCounter<u16>,
    failures: LabelledCounter<&'static str>,
    buckets: [AtomicU64; BUCKETS.len()],
    count: AtomicU64,
    sum_nanos: AtomicU64,
    in_flight: AtomicI64,
}

impl Default for Metrics {
    fn default() -> Self {
        Self {
            requests: LabelledCounter::new(
                "conversion_webhook_requests_total",
                "ConversionReview requests by HTTP status.",
                "code",
            ),
            failures: LabelledCounter::new(
                "conversion_webhook_conversion_failures_total",
                "Failed conversions by reason.",
                "reason",
            ),
            buckets: Default::default(),
            count: AtomicU64::new(0),
            sum_nanos: AtomicU64::new(0),
            in_flight: AtomicI64::new(0),
        }
    }
}

/// A request being answered: counted in flight until dropped.
#[derive(Debug)]
pub struct InFlight<'a>(&'a Metrics);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Metrics {
    /// A request starts.
    pub fn start(&self) -> InFlight<'_> {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(self)
    }

    /// A request was answered with HTTP `code` after `elapsed`; `failure` is the reason of a
    /// failed conversion, if any.
    pub fn observe(&self, code: u16, elapsed: Duration, failure: Option<&'static str>) {
        self.requests.inc(code);
        if let Some(reason) = failure {
            self.failures.inc(reason);
        }
        // The count first, then the buckets: a scrape reads the buckets first, then the count,
        // so no bucket it prints exceeds the count (`+Inf`).
        self.count.fetch_add(1, Ordering::Release);
        let seconds = elapsed.as_secs_f64();
        for (bucket, le) in self.buckets.iter().zip(BUCKETS) {
            if seconds <= le {
                bucket.fetch_add(1, Ordering::Release);
            }
        }
        self.sum_nanos.fetch_add(
            u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
    }

    /// The metrics in the Prometheus text exposition format (version 0.0.4).
    #[must_use]
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.requests.render(&mut out);
        self.failures.render(&mut out);
        let _ = writeln!(
            out,
            "# HELP conversion_webhook_request_duration_seconds Time to answer a ConversionReview.\n# TYPE conversion_webhook_request_duration_seconds histogram"
        );
        let buckets: Vec<u64> = self
            .buckets
            .iter()
            .map(|b| b.load(Ordering::Acquire))
            .collect();
        let count = self.count.load(Ordering::Acquire);
        for (n, le) in buckets.iter().zip(BUCKETS) {
            let _ = writeln!(
                out,
                "conversion_webhook_request_duration_seconds_bucket{{le=\"{le}\"}} {n}"
            );
        }
        let _ = writeln!(
            out,
            "conversion_webhook_request_duration_seconds_bucket{{le=\"+Inf\"}} {count}"
        );
        let sum = Duration::from_nanos(self.sum_nanos.load(Ordering::Relaxed)).as_secs_f64();
        let _ = writeln!(out, "conversion_webhook_request_duration_seconds_sum {sum}");
        let _ = writeln!(
            out,
            "conversion_webhook_request_duration_seconds_count {count}"
        );
        let _ = writeln!(
            out,
            "# HELP conversion_webhook_requests_in_flight ConversionReview requests being answered.\n# TYPE conversion_webhook_requests_in_flight gauge\nconversion_webhook_requests_in_flight {}",
            self.in_flight.load(Ordering::Relaxed)
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_requests_failures_and_latency() {
        let m = Metrics::default();
        {
            let _a = m.start();
            let _b = m.start();
            assert!(
                m.render()
                    .contains("conversion_webhook_requests_in_flight 2\n")
            );
        }
        m.observe(200, Duration::from_micros(300), None);
        m.observe(200, Duration::from_millis(30), Some("ConversionFailed"));
        m.observe(413, Duration::from_micros(10), Some("BodyTooLarge"));
        let text = m.render();
        for line in [
            "conversion_webhook_requests_total{code=\"200\"} 2",
            "conversion_webhook_requests_total{code=\"413\"} 1",
            "conversion_webhook_conversion_failures_total{reason=\"BodyTooLarge\"} 1",
            "conversion_webhook_conversion_failures_total{reason=\"ConversionFailed\"} 1",
            "conversion_webhook_request_duration_seconds_bucket{le=\"0.0005\"} 2",
            "conversion_webhook_request_duration_seconds_bucket{le=\"0.025\"} 2",
            "conversion_webhook_request_duration_seconds_bucket{le=\"0.05\"} 3",
            "conversion_webhook_request_duration_seconds_bucket{le=\"+Inf\"} 3",
            "conversion_webhook_request_duration_seconds_count 3",
            "conversion_webhook_requests_in_flight 0",
        ] {
            assert!(text.contains(&format!("{line}\n")), "{line}\n{text}");
        }
    }
}
