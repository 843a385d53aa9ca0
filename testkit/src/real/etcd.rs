//! The etcd behind a [`RealApiServer`](super::RealApiServer), and the compaction tests use
//! to force `410 Gone`.

use std::path::Path;

use crate::error::{Error, Result};

use super::process::{ServerProcess, free_port};

/// A single-member etcd on loopback with its data in the test's temporary folder.
#[derive(Debug)]
pub(super) struct Etcd {
    process: ServerProcess,
    client_port: u16,
}

impl Etcd {
    pub(super) fn start(binary: &Path, dir: &Path) -> Result<Etcd> {
        let client_port = free_port()?;
        let peer_port = free_port()?;
        let client = format!("http://127.0.0.1:{client_port}");
        let peer = format!("http://127.0.0.1:{peer_port}");
        let args = vec![
            "--name=default".to_owned(),
            format!("--data-dir={}", dir.join("etcd").display()),
            format!("--listen-client-urls={client}"),
            format!("--advertise-client-urls={client}"),
            format!("--listen-peer-urls={peer}"),
            format!("--initial-advertise-peer-urls={peer}"),
            format!("--initial-cluster=default={peer}"),
            // Test data: losing it on a crash is fine, and fsync dominates write latency.
            "--unsafe-no-fsync=true".to_owned(),
            "--log-level=warn".to_owned(),
        ];
        let process = ServerProcess::spawn("etcd", binary, &args, &[], dir.join("etcd.log"))?;
        Ok(Etcd { process, client_port })
    }

    pub(super) fn client_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.client_port)
    }

    pub(super) fn check_alive(&mut self) -> Result<()> {
        self.process.check_alive()
    }

    pub(super) async fn kill(&mut self) {
        self.process.kill().await;
    }

    /// Reads the current revision, then compacts (physically) up to it, through etcd's
    /// JSON gateway (`/v3/kv/range`, `/v3/kv/compaction`): no etcdctl needed.
    pub(super) async fn compact(&self) -> Result<i64> {
        let uri: http::Uri = self
            .client_url()
            .parse()
            .map_err(|e: http::uri::InvalidUri| Error::Client(e.to_string()))?;
        let client = kube::Client::try_from(kube::Config::new(uri))
            .map_err(|e| Error::Client(e.to_string()))?;
        // Key "/" (base64 "Lw=="): any key will do, the header carries the store's revision.
        let range: serde_json::Value =
            post(&client, "/v3/kv/range", serde_json::json!({"key": "Lw==", "limit": 1})).await?;
        let revision = range["header"]["revision"]
            .as_str()
            .and_then(|r| r.parse::<i64>().ok())
            .ok_or_else(|| Error::Etcd(format!("no revision in {range}")))?;
        post(
            &client,
            "/v3/kv/compaction",
            serde_json::json!({"revision": revision.to_string(), "physical": true}),
        )
        .await?;
        tracing::debug!(revision, "etcd compacted");
        Ok(revision)
    }
}

async fn post(
    client: &kube::Client,
    path: &str,
    body: serde_json::Value,
) -> Result<serde_json::Value> {
    let request = http::Request::post(path)
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(body.to_string().into_bytes())
        .map_err(|e| Error::Etcd(e.to_string()))?;
    let text = client.request_text(request).await.map_err(|e| Error::Etcd(e.to_string()))?;
    serde_json::from_str(&text).map_err(|e| Error::Etcd(format!("{path}: {e}")))
}
