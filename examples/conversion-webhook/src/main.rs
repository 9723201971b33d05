//! `conversion-webhook`: serves MachinePool ConversionReviews over HTTPS.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use conversion_webhook::live::LiveCrds;
use conversion_webhook::{Config, Limits, start};

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
    /// Address of the Prometheus metrics endpoint (plain HTTP, `GET /metrics`).
    #[arg(long, default_value = "0.0.0.0:8080")]
    metrics_addr: std::net::SocketAddr,
    /// Serve no metrics.
    #[arg(long)]
    no_metrics: bool,
    /// Seconds a response may stay unwritten (a client that does not read it) before its
    /// connection is closed.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    write_timeout_seconds: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ClusterCrds {
    Auto,
    Always,
    Never,
}

/// The watch of the cluster's CRDs `mode` asks for, or why it cannot start.
async fn cluster_crds(mode: ClusterCrds) -> Result<Option<LiveCrds>, String> {
    if mode == ClusterCrds::Never {
        return Ok(None);
    }
    let config = match kube::Config::infer().await {
        Ok(config) => config,
        Err(e) if mode == ClusterCrds::Auto => {
            tracing::warn!(error = %e, "no cluster credentials: reference versions resolve from --crds only");
            return Ok(None);
        }
        Err(e) => {
            return Err(format!(
                "--cluster-crds always: no cluster credentials: {e}"
            ));
        }
    };
    tracing::info!(server = %config.cluster_url, "resolving reference versions from the cluster's CRDs");
    let client = kube::Client::try_from(config).map_err(|e| format!("cluster client: {e}"))?;
    Ok(Some(LiveCrds::watch(client)))
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

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .json()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let args = Args::parse();
    let live_crds = match cluster_crds(args.cluster_crds).await {
        Ok(live) => live,
        Err(e) => {
            tracing::error!(error = %e, "cannot start");
            return ExitCode::from(2);
        }
    };
    let config = Config {
        live_crds,
        addr: args.addr,
        cert: args.cert_dir.join("tls.crt"),
        key: args.cert_dir.join("tls.key"),
        crds: args.crds,
        max_body_bytes: args.max_body_bytes,
        request_timeout: Duration::from_secs(args.timeout_seconds),
        reload_interval: Duration::from_secs(10),
        metrics_addr: (!args.no_metrics).then_some(args.metrics_addr),
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
    };
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
