//! A production-shaped HTTPS conversion webhook for Cluster API MachinePools.
//!
//! * `POST /convert`: `apiextensions.k8s.io/v1` ConversionReview in, ConversionReview out
//!   (400 for an unreadable review, 413 above the body limit, 503 when a conversion exceeds the
//!   request timeout).
//! * `GET /healthz`, `GET /readyz`.
//! * TLS from PEM files (as cert-manager mounts them), reloaded when they change.
//! * Graceful shutdown when the `shutdown` future completes (SIGTERM in `main`).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum_server::Handle;
use axum_server::tls_rustls::RustlsConfig;
use capi_machinepool_conversion::{CrdResolver, machine_pool_converter, review};
use tracing::{info, warn};

/// Server settings.
#[derive(Clone, Debug)]
pub struct Config {
    /// Address to listen on (`127.0.0.1:0` picks a free port).
    pub addr: std::net::SocketAddr,
    /// PEM certificate chain.
    pub cert: PathBuf,
    /// PEM private key.
    pub key: PathBuf,
    /// Provider CRDs whose contract labels resolve reference apiVersions.
    pub crds: Vec<PathBuf>,
    /// Largest accepted request body.
    pub max_body_bytes: usize,
    /// Longest time a conversion may take.
    pub request_timeout: Duration,
    /// How often the certificate files are checked for changes.
    pub reload_interval: Duration,
}

struct AppState {
    resolver: CrdResolver,
    ready: AtomicBool,
    timeout: Duration,
}

async fn convert(State(state): State<Arc<AppState>>, body: Bytes) -> Response {
    let started = std::time::Instant::now();
    let worker_state = Arc::clone(&state);
    let work = tokio::task::spawn_blocking(move || {
        let converter = machine_pool_converter(&worker_state.resolver);
        review::handle_json_with_status(&converter, &body)
    });
    match tokio::time::timeout(state.timeout, work).await {
        Ok(Ok((status, bytes))) => {
            info!(
                status,
                bytes = bytes.len(),
                elapsed_us = started.elapsed().as_micros() as u64,
                "conversion review"
            );
            let code = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
            (code, [(header::CONTENT_TYPE, "application/json")], bytes).into_response()
        }
        Ok(Err(e)) => {
            warn!(error = %e, "conversion task failed");
            (StatusCode::INTERNAL_SERVER_ERROR, "conversion failed").into_response()
        }
        Err(_) => {
            warn!(
                timeout_ms = state.timeout.as_millis() as u64,
                "conversion timed out"
            );
            (StatusCode::SERVICE_UNAVAILABLE, "conversion timed out").into_response()
        }
    }
}

async fn healthz() -> &'static str {
    "ok"
}

async fn readyz(State(state): State<Arc<AppState>>) -> Response {
    if state.ready.load(Ordering::Relaxed) {
        "ok".into_response()
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "not ready").into_response()
    }
}

fn app(state: Arc<AppState>, max_body_bytes: usize) -> Router {
    Router::new()
        .route("/convert", post(convert))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .layer(DefaultBodyLimit::max(max_body_bytes))
        .with_state(state)
}

fn modified(path: &PathBuf) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

fn watch_certificates(tls: RustlsConfig, cert: PathBuf, key: PathBuf, every: Duration) {
    tokio::spawn(async move {
        let mut seen = (modified(&cert), modified(&key));
        loop {
            tokio::time::sleep(every).await;
            let now = (modified(&cert), modified(&key));
            if now == seen {
                continue;
            }
            match tls.reload_from_pem_file(&cert, &key).await {
                Ok(()) => {
                    info!(cert = %cert.display(), "reloaded TLS certificate");
                    seen = now;
                }
                // Keep serving with the old certificate; retry on the next tick (the files may be
                // half-written by the mounter).
                Err(e) => warn!(error = %e, "TLS certificate reload failed"),
            }
        }
    });
}

fn resolver(crds: &[PathBuf]) -> Result<CrdResolver, String> {
    let mut resolver = CrdResolver::default();
    if crds.is_empty() {
        return Ok(resolver);
    }
    let (inputs, _) = capi_contract::load::load_crds(crds).map_err(|e| e.to_string())?;
    for input in &inputs {
        resolver.add_crd_json(&input.crd);
    }
    Ok(resolver)
}

/// A running server: its address and a handle to stop it.
pub struct Running {
    /// The bound address.
    pub addr: std::net::SocketAddr,
    /// Resolves when the server has stopped.
    pub done: tokio::task::JoinHandle<std::io::Result<()>>,
}

/// Starts the server; it stops gracefully (10 s for open connections) when `shutdown` completes.
///
/// # Errors
/// Unreadable certificate, key or CRDs, or an address that cannot be bound.
pub async fn start(
    config: Config,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<Running, String> {
    let tls = RustlsConfig::from_pem_file(&config.cert, &config.key)
        .await
        .map_err(|e| format!("cannot load TLS certificate {}: {e}", config.cert.display()))?;
    let state = Arc::new(AppState {
        resolver: resolver(&config.crds)?,
        ready: AtomicBool::new(false),
        timeout: config.request_timeout,
    });
    watch_certificates(
        tls.clone(),
        config.cert.clone(),
        config.key.clone(),
        config.reload_interval,
    );
    let handle: Handle<std::net::SocketAddr> = Handle::new();
    let stopper = handle.clone();
    tokio::spawn(async move {
        shutdown.await;
        info!("shutting down");
        stopper.graceful_shutdown(Some(Duration::from_secs(10)));
    });
    let server = axum_server::bind_rustls(config.addr, tls).handle(handle.clone());
    let router = app(Arc::clone(&state), config.max_body_bytes);
    let done = tokio::spawn(async move { server.serve(router.into_make_service()).await });
    let addr = handle
        .listening()
        .await
        .ok_or_else(|| format!("cannot listen on {}", config.addr))?;
    state.ready.store(true, Ordering::Relaxed);
    info!(%addr, "serving conversion reviews");
    Ok(Running { addr, done })
}
