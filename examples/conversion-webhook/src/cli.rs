//! The command line of the `conversion-webhook` binary ([`run`]), a library module so that
//! tests can run the binary's whole start-up in a process of their own.
//!
//! Logs: JSON lines by default (`--log-format text` for a terminal), level `info`
//! (`--log-level`, `-v` for debug, `-vv` for trace); `RUST_LOG`, when set, takes precedence
//! ([`log_filter`]).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;

use crate::live::LiveCrds;
use crate::{Config, Limits, start};

/// HTTPS conversion webhook for cluster.x-k8s.io MachinePools.
#[derive(Parser)]
#[command(version, about)]
struct Args {
    /// Listen address.
    #[arg(long, default_value = "0.0.0.0:9443")]
    addr: std::net::SocketAddr,
    /// Directory holding tls.crt and tls.key (cert-manager's Secret mount).
    #[arg(long, default_value = "/tmp/k8s-webhook-server/serving-certs")]
    cert_dir: PathBuf,
    /// Provider CRDs (files or directories) used to resolve reference apiVersions when the
    /// cluster's own CRDs do not name the kind (the offline source).
    #[arg(long)]
    crds: Vec<PathBuf>,
    /// Resolve reference apiVersions from the cluster's CRDs, watched (in-cluster
    /// credentials, else KUBECONFIG or ~/.kube/config): `auto` when credentials are found,
    /// `always` (fail to start without them) or `never` (only --crds).
    #[arg(long, value_enum, default_value_t = ClusterCrds::Auto)]
    cluster_crds: ClusterCrds,
    /// Largest request body in bytes.
    #[arg(long, default_value_t = 3 * 1024 * 1024)]
    max_body_bytes: usize,
    /// Conversion timeout in seconds.
    #[arg(long, default_value_t = 10)]
    timeout_seconds: u64,
    /// Seconds allowed for the TLS handshake.
    #[arg(long, default_value_t = 5)]
    handshake_timeout_seconds: u64,
    /// Seconds a connection may stay idle (before its first request and between requests).
    #[arg(long, default_value_t = 30)]
    idle_timeout_seconds: u64,
    /// Seconds allowed to send the request headers.
    #[arg(long, default_value_t = 5)]
    header_timeout_seconds: u64,
    /// Seconds allowed to send the request body.
    #[arg(long, default_value_t = 10)]
    body_timeout_seconds: u64,
    /// Bytes of request bodies held at once, over all connections.
    #[arg(long, default_value_t = 24 * 1024 * 1024)]
    body_budget_bytes: usize,
    /// Conversions running at once.
    #[arg(long, default_value_t = 2)]
    max_concurrent_conversions: usize,
    /// Connections open at once; a connection over the cap waits for a slot (see
    /// --connection-queue-seconds), and over twice the cap is closed at once.
    #[arg(long, default_value_t = 128)]
    max_connections: usize,
    /// Largest response body in bytes; a review over it gets a Failure result (code 422).
    #[arg(long, default_value_t = 16 * 1024 * 1024)]
    max_response_bytes: usize,
    /// Memory in bytes that conversions in flight may use together (each is admitted with
    /// its estimated cost).
    #[arg(long, default_value_t = 48 * 1024 * 1024)]
    conversion_memory_bytes: usize,
    /// Seconds after which a connection is asked to close (after its response in flight;
    /// HTTP/2: GOAWAY).
    #[arg(long, default_value_t = 300)]
    max_connection_age_seconds: u64,
    /// Requests after which a connection is asked to close.
    #[arg(long, default_value_t = 1000)]
    max_requests_per_connection: u64,
    /// Seconds a connection over the cap waits for a slot (the slowest open connection is
    /// closed for it meanwhile).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..))]
    connection_queue_seconds: u64,
    /// HTTP/2 flow-control window (connection and stream), in bytes.
    #[arg(long, default_value_t = 64 * 1024)]
    h2_window_bytes: u32,
    /// TLS handshakes in progress at once; when all are taken, a new connection takes the
    /// slot of the handshake sending the fewest bytes per second.
    #[arg(long, default_value_t = 1024)]
    max_handshakes: usize,
    /// Address of the Prometheus metrics endpoint (`GET /metrics`): plain HTTP, so loopback
    /// by default; with --metrics-secure, HTTPS with authorization (as Cluster API serves
    /// them on `:8443`).
    #[arg(long, default_value = "127.0.0.1:8080")]
    metrics_addr: std::net::SocketAddr,
    /// Serve metrics over HTTPS with the serving certificate, each request authenticated
    /// (TokenReview) and authorized (SubjectAccessReview for `get` on `/metrics`) by the API
    /// server (needs cluster credentials).
    #[arg(long)]
    metrics_secure: bool,
    /// Serve no metrics.
    #[arg(long)]
    no_metrics: bool,
    /// Seconds a response may stay unwritten (a client that does not read it) before its
    /// connection is closed.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    write_timeout_seconds: u64,
    /// Log format: one JSON object a line, or text for a terminal.
    #[arg(long, value_enum, default_value_t = LogFormat::Json)]
    log_format: LogFormat,
    /// Log level (error, warn, info, debug, trace); RUST_LOG, when set, takes precedence.
    #[arg(long, default_value = "info")]
    log_level: tracing::Level,
    /// More verbose logs: -v for debug, -vv for trace (over --log-level).
    #[arg(short, action = clap::ArgAction::Count)]
    verbose: u8,
}

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// One JSON object a line.
    Json,
    /// Human-readable text.
    Text,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ClusterCrds {
    /// When credentials are found.
    Auto,
    /// Fail to start without them.
    Always,
    /// Only --crds.
    Never,
}

/// A client for the cluster (in-cluster credentials, else KUBECONFIG or ~/.kube/config) when
/// the CRD watch (`mode`) or the secure metrics need one: `Ok(None)` when neither does, or
/// when `mode` is `auto`, metrics are not secure and no credentials are found.
async fn cluster_client(
    mode: ClusterCrds,
    metrics_secure: bool,
) -> Result<Option<kube::Client>, String> {
    if mode == ClusterCrds::Never && !metrics_secure {
        return Ok(None);
    }
    let config = match kube::Config::infer().await {
        Ok(config) => config,
        Err(e) if mode == ClusterCrds::Auto && !metrics_secure => {
            tracing::warn!(error = %e, "no cluster credentials: reference versions resolve from --crds only");
            return Ok(None);
        }
        Err(e) if metrics_secure => {
            return Err(format!("--metrics-secure: no cluster credentials: {e}"));
        }
        Err(e) => {
            return Err(format!(
                "--cluster-crds always: no cluster credentials: {e}"
            ));
        }
    };
    tracing::info!(server = %config.cluster_url, "cluster client");
    kube::Client::try_from(config)
        .map(Some)
        .map_err(|e| format!("cluster client: {e}"))
}

/// The log filter: `RUST_LOG` when set, else `level` for the webhook and at most `info` for
/// the crates under it; the kube client's own ERROR line for each failed request is off
/// (the CRD watch logs its outages itself, once).
#[must_use]
pub fn log_filter(level: tracing::Level, rust_log: Option<&str>) -> tracing_subscriber::EnvFilter {
    if let Some(directives) = rust_log.filter(|d| !d.trim().is_empty())
        && let Ok(filter) = tracing_subscriber::EnvFilter::try_new(directives)
    {
        return filter;
    }
    let deps = level.min(tracing::Level::INFO);
    tracing_subscriber::EnvFilter::new(format!(
        "{deps},conversion_webhook={level},capi_machinepool_conversion={level},kube_client::client::builder=off"
    ))
}

fn init_logs(format: LogFormat, level: tracing::Level) {
    let rust_log = std::env::var("RUST_LOG").ok();
    let filter = log_filter(level, rust_log.as_deref());
    let logs = tracing_subscriber::fmt().with_env_filter(filter);
    let _ = match format {
        LogFormat::Json => logs.json().try_init(),
        LogFormat::Text => logs.try_init(),
    };
}

async fn terminate() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Runs the webhook as its binary does, with the command line `args` (the program name
/// first): logs, the CRD watch, the server, until SIGTERM or Ctrl-C.
pub async fn run<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let args = match Args::try_parse_from(args) {
        Ok(args) => args,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let level = match args.verbose {
        0 => args.log_level,
        1 => tracing::Level::DEBUG,
        _ => tracing::Level::TRACE,
    };
    init_logs(args.log_format, level);
    let client = match cluster_client(args.cluster_crds, args.metrics_secure).await {
        Ok(client) => client,
        Err(e) => {
            tracing::error!(error = %e, "cannot start");
            return ExitCode::from(2);
        }
    };
    let live_crds = match (&client, args.cluster_crds) {
        (Some(client), ClusterCrds::Auto | ClusterCrds::Always) => {
            tracing::info!("resolving reference versions from the cluster's CRDs");
            Some(LiveCrds::watch(client.clone()))
        }
        _ => None,
    };
    let metrics_auth = if args.metrics_secure { client } else { None };
    let config = config(&args, live_crds, metrics_auth);
    let running = match start(config, terminate()).await {
        Ok(r) => r,
        Err(e) => {
            tracing::error!(error = %e, "cannot start");
            return ExitCode::from(2);
        }
    };
    match running.done.await {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            tracing::error!(error = %e, "server failed");
            ExitCode::FAILURE
        }
        Err(e) => {
            tracing::error!(error = %e, "server task failed");
            ExitCode::FAILURE
        }
    }
}

fn config(args: &Args, live_crds: Option<LiveCrds>, metrics_auth: Option<kube::Client>) -> Config {
    Config {
        live_crds,
        addr: args.addr,
        cert: args.cert_dir.join("tls.crt"),
        key: args.cert_dir.join("tls.key"),
        crds: args.crds.clone(),
        max_body_bytes: args.max_body_bytes,
        request_timeout: Duration::from_secs(args.timeout_seconds),
        reload_interval: Duration::from_secs(10),
        metrics_addr: (!args.no_metrics).then_some(args.metrics_addr),
        metrics_auth,
        limits: Limits {
            handshake_timeout: Duration::from_secs(args.handshake_timeout_seconds),
            idle_timeout: Duration::from_secs(args.idle_timeout_seconds),
            header_read_timeout: Duration::from_secs(args.header_timeout_seconds),
            body_read_timeout: Duration::from_secs(args.body_timeout_seconds),
            body_budget_bytes: args.body_budget_bytes,
            max_concurrent_conversions: args.max_concurrent_conversions,
            max_connections: args.max_connections,
            h2_window_bytes: args.h2_window_bytes,
            max_response_bytes: args.max_response_bytes,
            conversion_memory_bytes: args.conversion_memory_bytes,
            max_connection_age: Duration::from_secs(args.max_connection_age_seconds),
            max_requests_per_connection: args.max_requests_per_connection,
            connection_queue_timeout: Duration::from_secs(args.connection_queue_seconds),
            max_handshakes: args.max_handshakes,
            response_write_timeout: Duration::from_secs(args.write_timeout_seconds),
            ..Limits::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_parse_with_loopback_metrics_by_default() {
        let args = Args::try_parse_from(["conversion-webhook"]).unwrap();
        assert_eq!(args.metrics_addr, "127.0.0.1:8080".parse().unwrap());
        assert!(!args.metrics_secure);
        assert_eq!(args.log_format, LogFormat::Json);
        assert_eq!(args.log_level, tracing::Level::INFO);
        let args = Args::try_parse_from([
            "conversion-webhook",
            "--log-format",
            "text",
            "-vv",
            "--metrics-secure",
            "--metrics-addr",
            "0.0.0.0:8443",
        ])
        .unwrap();
        assert_eq!(args.log_format, LogFormat::Text);
        assert_eq!(args.verbose, 2);
        assert!(args.metrics_secure);
        assert!(Args::try_parse_from(["conversion-webhook", "--log-format", "xml"]).is_err());
    }

    #[test]
    fn the_log_filter_honours_rust_log_and_silences_the_kube_client_errors() {
        let filter = log_filter(tracing::Level::INFO, None).to_string();
        assert!(
            filter.contains("kube_client::client::builder=off"),
            "{filter}"
        );
        assert!(filter.contains("conversion_webhook=info"), "{filter}");
        let filter = log_filter(tracing::Level::DEBUG, None).to_string();
        assert!(filter.contains("conversion_webhook=debug"), "{filter}");
        assert!(
            filter.starts_with("info") || filter.contains(",info"),
            "{filter}"
        );
        let filter = log_filter(tracing::Level::INFO, Some("warn,kube=debug")).to_string();
        assert!(
            filter.contains("kube=debug") && !filter.contains("builder=off"),
            "{filter}"
        );
    }
}
