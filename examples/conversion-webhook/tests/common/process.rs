//! The webhook binary as its own process on 127.0.0.1 (so its peak RSS is its own), and a
//! TLS client for it.
#![allow(dead_code, clippy::unwrap_used)]

use std::io::BufRead;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls::pki_types::ServerName;

use super::{connector_with_alpn, write_cert};

/// The Deployment's memory limit (`deploy/base/deployment.yaml`).
pub const MEMORY_LIMIT_KB: u64 = 128 * 1024;

pub struct Webhook {
    child: Child,
    pub addr: SocketAddr,
    /// The failures the server logged ("conversion failed" lines), as JSON.
    failures: std::sync::Arc<std::sync::Mutex<Vec<serde_json::Value>>>,
    /// The failed TLS handshakes the server logged, as JSON.
    handshake_errors: std::sync::Arc<std::sync::Mutex<Vec<serde_json::Value>>>,
    dir: std::path::PathBuf,
    pub cert: tokio_rustls::rustls::pki_types::CertificateDer<'static>,
}

impl Webhook {
    /// Starts the binary with `args` and waits for the address it listens on.
    pub fn start(name: &str, args: &[&str]) -> Self {
        let dir = std::env::temp_dir().join(format!("webhook-conn-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cert = write_cert(&dir);
        let mut child = Command::new(env!("CARGO_BIN_EXE_conversion-webhook"))
            .args(["--addr", "127.0.0.1:0", "--cert-dir", dir.to_str().unwrap()])
            .args(["--metrics-addr", "127.0.0.1:0", "--cluster-crds", "never"])
            .args(args)
            .env("RUST_LOG", "info")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let failures = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let logged = std::sync::Arc::clone(&failures);
        let handshake_errors = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let handshakes = std::sync::Arc::clone(&handshake_errors);
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if line.contains("serving conversion reviews") {
                    let _ = tx.send(line.clone());
                }
                if line.contains("conversion failed")
                    && let Ok(value) = serde_json::from_str(&line)
                {
                    logged.lock().unwrap().push(value);
                }
                if line.contains("TLS handshake error")
                    && let Ok(value) = serde_json::from_str(&line)
                {
                    handshakes.lock().unwrap().push(value);
                }
            }
        });
        let line = rx.recv_timeout(Duration::from_secs(20)).unwrap();
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        let addr = value["fields"]["addr"].as_str().unwrap().parse().unwrap();
        Self {
            child,
            addr,
            failures,
            handshake_errors,
            dir,
            cert,
        }
    }

    /// The "conversion failed" lines the server logged so far, as JSON.
    pub fn logged_failures(&self) -> Vec<serde_json::Value> {
        self.failures.lock().unwrap().clone()
    }

    /// The "TLS handshake error" lines the server logged so far, as JSON.
    pub fn logged_handshake_errors(&self) -> Vec<serde_json::Value> {
        self.handshake_errors.lock().unwrap().clone()
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The directory holding the server's `tls.crt` and `tls.key`.
    pub fn cert_dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// CPU time the server process used so far (user and system), in clock ticks.
    pub fn cpu_ticks(&self) -> u64 {
        cpu_ticks_of(self.child.id())
    }

    /// Peak resident memory of the server process (VmHWM), in kB.
    pub fn peak_rss_kb(&self) -> u64 {
        peak_rss_kb_of(self.child.id())
    }

    pub fn connector(&self, alpn: &[&[u8]]) -> TlsConnector {
        connector_with_alpn(self.cert.clone(), alpn)
    }

    pub async fn tls(&self, alpn: &[&[u8]]) -> std::io::Result<TlsStream<TcpStream>> {
        let tcp = TcpStream::connect(self.addr).await?;
        self.connector(alpn)
            .connect(ServerName::try_from("localhost").unwrap(), tcp)
            .await
    }

    /// Posts `body` to `/convert` on a new HTTP/1.1 connection: the status and the body.
    pub async fn post_review(&self, body: Vec<u8>) -> (u16, Vec<u8>) {
        self.try_post_review(body).await.unwrap()
    }

    /// Posts `body` to `/convert` on a new HTTP/1.1 connection: the status and the body, or
    /// `None` when the connection or the request failed.
    pub async fn try_post_review(&self, body: Vec<u8>) -> Result<(u16, Vec<u8>), String> {
        let tls = self.tls(&[]).await.map_err(|e| format!("TLS: {e}"))?;
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
            .await
            .map_err(|e| format!("HTTP handshake: {e}"))?;
        tokio::spawn(conn);
        let req = hyper::Request::post("/convert")
            .header("host", "localhost")
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| e.to_string())?;
        let resp = sender
            .send_request(req)
            .await
            .map_err(|e| format!("request: {e:?}"))?;
        let status = resp.status().as_u16();
        let body = resp
            .into_body()
            .collect()
            .await
            .map_err(|e| format!("response body: {e}"))?
            .to_bytes();
        Ok((status, body.to_vec()))
    }

    /// One HTTP/1.1 request on a new connection: the status.
    pub async fn get_healthz(&self) -> Option<u16> {
        let tls = self.tls(&[]).await.ok()?;
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
            .await
            .ok()?;
        tokio::spawn(conn);
        let req = hyper::Request::get("/healthz")
            .header("host", "localhost")
            .body(Full::new(Bytes::new()))
            .unwrap();
        Some(sender.send_request(req).await.ok()?.status().as_u16())
    }
}

impl Drop for Webhook {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// CPU time process `pid` used so far (user and system), in clock ticks (`/proc/PID/stat`).
pub fn cpu_ticks_of(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// Peak resident memory of process `pid` (VmHWM), in kB.
pub fn peak_rss_kb_of(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}
