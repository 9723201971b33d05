//! Prometheus metrics, through the Prometheus project's `prometheus-client` crate, in the
//! Prometheus text format (0.0.4), with controller-runtime's webhook names and labels so that
//! the dashboards and alerts written for Cluster API's webhooks see this one too.
//!
//! | metric | type | what |
//! |---|---|---|
//! | `controller_runtime_webhook_requests_total{webhook="/convert",code}` | counter | `/convert` requests by HTTP status |
//! | `controller_runtime_webhook_latency_seconds{webhook="/convert"}` | histogram | time from the request to its response, body read included (Prometheus' default buckets, as controller-runtime) |
//! | `controller_runtime_webhook_requests_in_flight{webhook="/convert"}` | gauge | `/convert` requests being answered |
//! | `conversion_webhook_conversion_failures_total{reason}` | counter | reviews answered with a `Failure` result, by its reason (`ConversionFailed`, `BadRequest`, ...), and requests refused before a review (`BodyTooLarge`, `BodyTimeout`, `Timeout`, ...) |
//! | `conversion_webhook_tls_handshake_errors_total` | counter | TLS handshakes that failed (each logged, rate-limited) |
//! | `conversion_webhook_certificate_reloads_total`, `..._certificate_reload_failures_total` | counter | reloads of the serving certificate after its files changed, and failed attempts |
//! | `conversion_webhook_certificate_last_reload_timestamp_seconds` | gauge | when the serving certificate in use was loaded (start or reload) |
//! | `conversion_webhook_crd_watch_up` | gauge | 1 while the watch of the cluster's CRDs works, 0 while it is broken (resolving from the last list) |
//! | `conversion_webhook_crd_watch_last_list_timestamp_seconds` | gauge | when the last complete list of CRDs came in |
//! | `conversion_webhook_crd_watch_errors_total` | counter | errors of that watch |
//! | `conversion_webhook_crds_known` | gauge | CRDs known from the cluster |
//! | `process_*` | | [`crate::process_metrics`]: resident memory, CPU, file descriptors, start time |
//!
//! The CRD-watch series exist only when the cluster's CRDs are watched.

use std::sync::atomic::AtomicU64;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric};
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::{ConstGauge, Gauge};
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::live::LiveCrds;

/// The `webhook` label of controller-runtime's metrics: the path it serves.
pub const WEBHOOK_PATH: &str = "/convert";

/// The `Content-Type` of [`Metrics::render`].
pub const CONTENT_TYPE: &str = prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

/// Prometheus' default buckets (`prometheus.DefBuckets`), which controller-runtime's webhook
/// latency histogram uses.
const BUCKETS: [f64; 11] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    webhook: &'static str,
    code: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct WebhookLabels {
    webhook: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabels {
    reason: &'static str,
}

/// The metrics, shared by every request.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: Histogram,
    in_flight: Gauge,
    failures: Family<ReasonLabels, Counter>,
    handshake_errors: Counter,
    cert_reloads: Counter,
    cert_reload_failures: Counter,
    cert_loaded: Gauge<f64, AtomicU64>,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new(None)
    }
}

/// A request being answered: counted in flight until dropped.
#[derive(Debug)]
pub struct InFlight<'a>(&'a Metrics);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.dec();
    }
}

fn unix_seconds_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

impl Metrics {
    /// The metrics of a webhook; the CRD-watch series read `live` when given.
    #[must_use]
    pub fn new(live: Option<LiveCrds>) -> Self {
        let mut registry = Registry::default();
        let requests = Family::<RequestLabels, Counter>::default();
        let latency_family =
            Family::<WebhookLabels, Histogram>::new_with_constructor(|| Histogram::new(BUCKETS));
        let in_flight_family = Family::<WebhookLabels, Gauge>::default();
        let webhook = WebhookLabels {
            webhook: WEBHOOK_PATH,
        };
        let latency = latency_family.get_or_create(&webhook).clone();
        let in_flight = in_flight_family.get_or_create(&webhook).clone();
        registry.register(
            "controller_runtime_webhook_requests",
            "Total number of admission requests by HTTP status code",
            requests.clone(),
        );
        registry.register(
            "controller_runtime_webhook_latency_seconds",
            "Histogram of the latency of processing admission requests",
            latency_family,
        );
        registry.register(
            "controller_runtime_webhook_requests_in_flight",
            "Current number of admission requests being served",
            in_flight_family,
        );
        let failures = Family::<ReasonLabels, Counter>::default();
        registry.register(
            "conversion_webhook_conversion_failures",
            "Failed conversions by reason",
            failures.clone(),
        );
        let this = Self {
            registry,
            requests,
            latency,
            in_flight,
            failures,
            handshake_errors: Counter::default(),
            cert_reloads: Counter::default(),
            cert_reload_failures: Counter::default(),
            cert_loaded: Gauge::default(),
        };
        this.cert_loaded.set(unix_seconds_now());
        this.register_operations(live)
    }

    fn register_operations(mut self, live: Option<LiveCrds>) -> Self {
        let registry = &mut self.registry;
        registry.register(
            "conversion_webhook_tls_handshake_errors",
            "TLS handshakes that failed",
            self.handshake_errors.clone(),
        );
        registry.register(
            "conversion_webhook_certificate_reloads",
            "Reloads of the serving certificate after its files changed",
            self.cert_reloads.clone(),
        );
        registry.register(
            "conversion_webhook_certificate_reload_failures",
            "Failed reloads of the serving certificate (the previous one is kept)",
            self.cert_reload_failures.clone(),
        );
        registry.register(
            "conversion_webhook_certificate_last_reload_timestamp_seconds",
            "Unix time at which the serving certificate in use was loaded",
            self.cert_loaded.clone(),
        );
        registry.register_collector(Box::new(crate::process_metrics::ProcessCollector));
        if let Some(live) = live {
            registry.register_collector(Box::new(WatchCollector(live)));
        }
        self
    }

    /// A request starts.
    pub fn start(&self) -> InFlight<'_> {
        self.in_flight.inc();
        InFlight(self)
    }

    /// A request was answered with HTTP `code` after `elapsed`; `failure` is the reason of a
    /// failed conversion, if any.
    pub fn observe(&self, code: u16, elapsed: Duration, failure: Option<&'static str>) {
        self.requests
            .get_or_create(&RequestLabels {
                webhook: WEBHOOK_PATH,
                code: code.to_string(),
            })
            .inc();
        if let Some(reason) = failure {
            self.failures.get_or_create(&ReasonLabels { reason }).inc();
        }
        self.latency.observe(elapsed.as_secs_f64());
    }

    /// A TLS handshake failed.
    pub fn handshake_failed(&self) {
        self.handshake_errors.inc();
    }

    /// The serving certificate was reloaded (`ok`) or a reload failed.
    pub fn certificate_reloaded(&self, ok: bool) {
        if ok {
            self.cert_reloads.inc();
            self.cert_loaded.set(unix_seconds_now());
        } else {
            self.cert_reload_failures.inc();
        }
    }

    /// The metrics in the Prometheus text exposition format (version 0.0.4, [`CONTENT_TYPE`]).
    #[must_use]
    pub fn render(&self) -> String {
        let mut out = String::new();
        // Writing to a String does not fail; a collector that cannot read /proc writes
        // nothing.
        let _ = prometheus_client::encoding::prometheus_text::encode(&mut out, &self.registry);
        out
    }
}

/// The CRD watch's series, read at each scrape.
#[derive(Debug)]
struct WatchCollector(LiveCrds);

impl Collector for WatchCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let status = self.0.status();
        let up = ConstGauge::new(i64::from(status.up()));
        up.encode(encoder.encode_descriptor(
            "conversion_webhook_crd_watch_up",
            "1 while the watch of the cluster's CRDs works, 0 while it is broken.",
            None,
            up.metric_type(),
        )?)?;
        if let Some(seconds) = status.last_list_seconds() {
            let last = ConstGauge::new(seconds);
            last.encode(encoder.encode_descriptor(
                "conversion_webhook_crd_watch_last_list_timestamp_seconds",
                "Unix time of the last complete list of the cluster's CRDs.",
                None,
                last.metric_type(),
            )?)?;
        }
        let errors = ConstCounter::new(status.errors());
        errors.encode(encoder.encode_descriptor(
            "conversion_webhook_crd_watch_errors",
            "Errors of the watch of the cluster's CRDs.",
            None,
            errors.metric_type(),
        )?)?;
        let known = ConstGauge::new(i64::try_from(self.0.len()).unwrap_or(i64::MAX));
        known.encode(encoder.encode_descriptor(
            "conversion_webhook_crds_known",
            "CustomResourceDefinitions known from the cluster.",
            None,
            known.metric_type(),
        )?)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_requests_failures_and_latency_under_controller_runtime_names() {
        let m = Metrics::default();
        {
            let _a = m.start();
            let _b = m.start();
            assert!(m.render().contains(
                "controller_runtime_webhook_requests_in_flight{webhook=\"/convert\"} 2\n"
            ));
        }
        m.observe(200, Duration::from_micros(300), None);
        m.observe(200, Duration::from_millis(30), Some("ConversionFailed"));
        m.observe(413, Duration::from_micros(10), Some("BodyTooLarge"));
        m.handshake_failed();
        m.certificate_reloaded(true);
        m.certificate_reloaded(false);
        let text = m.render();
        for line in [
            "# TYPE controller_runtime_webhook_requests_total counter",
            "controller_runtime_webhook_requests_total{webhook=\"/convert\",code=\"200\"} 2",
            "controller_runtime_webhook_requests_total{webhook=\"/convert\",code=\"413\"} 1",
            "conversion_webhook_conversion_failures_total{reason=\"BodyTooLarge\"} 1",
            "conversion_webhook_conversion_failures_total{reason=\"ConversionFailed\"} 1",
            "# TYPE controller_runtime_webhook_latency_seconds histogram",
            "controller_runtime_webhook_latency_seconds_bucket{webhook=\"/convert\",le=\"0.005\"} 2",
            "controller_runtime_webhook_latency_seconds_bucket{webhook=\"/convert\",le=\"0.05\"} 3",
            "controller_runtime_webhook_latency_seconds_bucket{webhook=\"/convert\",le=\"+Inf\"} 3",
            "controller_runtime_webhook_latency_seconds_count{webhook=\"/convert\"} 3",
            "controller_runtime_webhook_requests_in_flight{webhook=\"/convert\"} 0",
            "conversion_webhook_tls_handshake_errors_total 1",
            "conversion_webhook_certificate_reloads_total 1",
            "conversion_webhook_certificate_reload_failures_total 1",
        ] {
            assert!(text.contains(&format!("{line}\n")), "{line}\n{text}");
        }
        assert!(text.contains("conversion_webhook_certificate_last_reload_timestamp_seconds 1"));
        #[cfg(target_os = "linux")]
        for name in [
            "process_resident_memory_bytes ",
            "process_cpu_seconds_total ",
            "process_open_fds ",
            "process_max_fds ",
            "process_start_time_seconds ",
        ] {
            assert!(text.contains(&format!("\n{name}")), "{name}\n{text}");
        }
    }
}
