//! The metrics port, served as Cluster API serves its managers' metrics:
//!
//! * by default plain HTTP, meant for a loopback address (`--metrics-addr`, default
//!   `127.0.0.1:8080`): only the pod itself (or `kubectl port-forward`) reaches it;
//! * with [`MetricsAuth`] (`--metrics-secure`), HTTPS with the webhook's serving certificate
//!   (reloaded with it), each request authenticated and authorized by the API server as
//!   controller-runtime's `filters.WithAuthenticationAndAuthorization` does: the bearer
//!   token goes to a TokenReview (not authenticated: 401), then the user it names to a
//!   SubjectAccessReview for the non-resource URL (`/metrics`) and the verb (`get`) (not
//!   allowed: 403). The ServiceAccount needs `create` on `tokenreviews` and
//!   `subjectaccessreviews`, the scraper `get` on the non-resource URL `/metrics`
//!   (`deploy/base/metrics-rbac.yaml`).
//!
//! The port has limits of its own, so that it cannot take the webhook's file descriptors or
//! memory: at most [`METRICS_CONNECTIONS`] connections (more are closed at once), 5 s for
//! the TLS handshake and 5 s to send the request head, 10 s per connection.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::Request;
use axum::http::{HeaderMap, StatusCode, header};
use axum_server::tls_rustls::RustlsConfig;
use bytes::Bytes;
use http_body_util::Full;
use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewSpec};
use k8s_openapi::api::authorization::v1::{
    NonResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
};
use kube::api::{Api, PostParams};
use tokio::net::TcpStream;
use tokio::sync::Semaphore;
use tracing::{info, warn};

use crate::metrics::{CONTENT_TYPE, Metrics};

/// Connections the metrics port serves at once (a scraper needs one).
pub const METRICS_CONNECTIONS: usize = 16;

/// Authentication and authorization of metrics requests by the API server.
#[derive(Clone)]
pub struct MetricsAuth {
    /// The serving certificate (the webhook's).
    pub tls: RustlsConfig,
    /// The client whose ServiceAccount may create TokenReviews and SubjectAccessReviews.
    pub client: kube::Client,
}

impl std::fmt::Debug for MetricsAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetricsAuth").finish_non_exhaustive()
    }
}

/// Why a request is refused.
type Refusal = (StatusCode, &'static str);

/// The bearer token of an `Authorization` header.
fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Authenticates the request's bearer token (TokenReview) and authorizes its user for `verb`
/// on the non-resource URL `path` (SubjectAccessReview).
async fn authorize(
    client: &kube::Client,
    headers: &HeaderMap,
    path: &str,
    verb: &str,
) -> Result<(), Refusal> {
    const UNAUTHORIZED: Refusal = (StatusCode::UNAUTHORIZED, "Unauthorized");
    let token = bearer_token(headers).ok_or(UNAUTHORIZED)?;
    let review = TokenReview {
        spec: TokenReviewSpec {
            token: Some(token.to_owned()),
            ..TokenReviewSpec::default()
        },
        ..TokenReview::default()
    };
    let reviewed = Api::<TokenReview>::all(client.clone())
        .create(&PostParams::default(), &review)
        .await
        .map_err(|e| {
            warn!(error = %e, "metrics: TokenReview failed");
            (StatusCode::INTERNAL_SERVER_ERROR, "authentication failed")
        })?;
    let status = reviewed.status.unwrap_or_default();
    let user = match (status.authenticated, status.user) {
        (Some(true), Some(user)) => user,
        _ => return Err(UNAUTHORIZED),
    };
    let access = SubjectAccessReview {
        spec: SubjectAccessReviewSpec {
            user: user.username,
            uid: user.uid,
            groups: user.groups,
            extra: user.extra,
            non_resource_attributes: Some(NonResourceAttributes {
                path: Some(path.to_owned()),
                verb: Some(verb.to_owned()),
            }),
            ..SubjectAccessReviewSpec::default()
        },
        ..SubjectAccessReview::default()
    };
    let decided = Api::<SubjectAccessReview>::all(client.clone())
        .create(&PostParams::default(), &access)
        .await
        .map_err(|e| {
            warn!(error = %e, "metrics: SubjectAccessReview failed");
            (StatusCode::INTERNAL_SERVER_ERROR, "authorization failed")
        })?;
    if decided.status.is_some_and(|s| s.allowed) {
        Ok(())
    } else {
        Err((StatusCode::FORBIDDEN, "Forbidden"))
    }
}

type MetricsResponse = axum::http::Response<Full<Bytes>>;

fn plain(status: StatusCode, text: &'static str) -> MetricsResponse {
    let mut response = axum::http::Response::new(Full::new(Bytes::from_static(text.as_bytes())));
    *response.status_mut() = status;
    response
}

/// Answers one request: `GET /metrics`, after authorization when `auth` is given.
async fn answer<B>(
    request: Request<B>,
    metrics: &Metrics,
    auth: Option<&kube::Client>,
) -> MetricsResponse {
    if request.uri().path() != "/metrics" {
        return plain(StatusCode::NOT_FOUND, "not found");
    }
    if let Some(client) = auth {
        let verb = request.method().as_str().to_ascii_lowercase();
        if let Err((status, text)) = authorize(client, request.headers(), "/metrics", &verb).await {
            return plain(status, text);
        }
    }
    let mut response = axum::http::Response::new(Full::new(Bytes::from(metrics.render())));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static(CONTENT_TYPE),
    );
    response
}

/// Serves one connection (TLS first when `auth` is given), within 10 s.
async fn serve_connection(tcp: TcpStream, metrics: Arc<Metrics>, auth: Option<MetricsAuth>) {
    let client = auth.as_ref().map(|a| a.client.clone());
    let service = hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
        let metrics = Arc::clone(&metrics);
        let client = client.clone();
        async move {
            Ok::<_, std::convert::Infallible>(answer(request, &metrics, client.as_ref()).await)
        }
    });
    let builder = {
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(hyper_util::rt::TokioTimer::new())
            .header_read_timeout(Duration::from_secs(5));
        builder
    };
    let served = async {
        match auth {
            None => {
                let io = hyper_util::rt::TokioIo::new(tcp);
                let _ = builder.serve_connection(io, service).await;
            }
            Some(auth) => {
                // The serving certificate as it is now (reloads included), HTTP/1.1 only.
                let mut config = (*auth.tls.get_inner()).clone();
                config.alpn_protocols = vec![b"http/1.1".to_vec()];
                let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
                let handshake = tokio::time::timeout(Duration::from_secs(5), acceptor.accept(tcp));
                let Ok(Ok(tls)) = handshake.await else {
                    return;
                };
                let io = hyper_util::rt::TokioIo::new(tls);
                let _ = builder.serve_connection(io, service).await;
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(10), served).await;
}

/// Serves `GET /metrics` on `addr`; the bound address.
///
/// # Errors
/// When `addr` cannot be bound.
pub async fn serve(
    addr: SocketAddr,
    metrics: Arc<Metrics>,
    auth: Option<MetricsAuth>,
) -> Result<SocketAddr, String> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr} for metrics: {e}"))?;
    let bound = listener
        .local_addr()
        .map_err(|e| format!("cannot listen on {addr} for metrics: {e}"))?;
    let secure = auth.is_some();
    let slots = Arc::new(Semaphore::new(METRICS_CONNECTIONS));
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            };
            let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
                continue;
            };
            let metrics = Arc::clone(&metrics);
            let auth = auth.clone();
            tokio::spawn(async move {
                let _slot = slot;
                serve_connection(tcp, metrics, auth).await;
            });
        }
    });
    if secure {
        info!(addr = %bound, "serving metrics over HTTPS (TokenReview and SubjectAccessReview)");
    } else {
        if !bound.ip().is_loopback() {
            warn!(addr = %bound, "serving metrics over plain HTTP without authentication on a non-loopback address (--metrics-secure serves them over HTTPS with authorization)");
        }
        info!(addr = %bound, "serving metrics");
    }
    Ok(bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_bearer_token() {
        let mut headers = HeaderMap::new();
        assert_eq!(bearer_token(&headers), None);
        headers.insert(header::AUTHORIZATION, "Bearer abc.def".parse().unwrap());
        assert_eq!(bearer_token(&headers), Some("abc.def"));
        headers.insert(header::AUTHORIZATION, "bearer  xyz ".parse().unwrap());
        assert_eq!(bearer_token(&headers), Some("xyz"));
        headers.insert(header::AUTHORIZATION, "Basic dXNlcg==".parse().unwrap());
        assert_eq!(bearer_token(&headers), None);
        headers.insert(header::AUTHORIZATION, "Bearer ".parse().unwrap());
        assert_eq!(bearer_token(&headers), None);
    }
}
