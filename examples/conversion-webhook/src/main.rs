//! `conversion-webhook`: serves MachinePool ConversionReviews over HTTPS.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use conversion_webhook::{Config, start};

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
    /// Provider CRDs (files or directories) used to resolve reference apiVersions.
    #[arg(long)]
    crds: Vec<PathBuf>,
    /// Largest request body in bytes.
    #[arg(long, default_value_t = 3 * 1024 * 1024)]
    max_body_bytes: usize,
    /// Request timeout in seconds.
    #[arg(long, default_value_t = 10)]
    timeout_seconds: u64,
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
    let config = Config {
        addr: args.addr,
        cert: args.cert_dir.join("tls.crt"),
        key: args.cert_dir.join("tls.key"),
        crds: args.crds,
        max_body_bytes: args.max_body_bytes,
        request_timeout: Duration::from_secs(args.timeout_seconds),
        reload_interval: Duration::from_secs(10),
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
