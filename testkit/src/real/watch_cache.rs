//! Waiting for kube-apiserver's watch cache to catch up with writes a test just made.
//!
//! An informer's first list asks for `resourceVersion="0"`, which kube-apiserver answers from
//! its watch cache as that cache stands, with no freshness wait: objects created a moment
//! before can be missing (the informer then gets them from its watch, as non-initial adds).
//! client-go behaves the same; a test that expects them in the initial list must first wait
//! for the cache, which is what this does.

use std::time::{Duration, Instant};

use crate::error::{Error, Result};

use super::RealApiServer;

/// How long kube-apiserver gets to bring one resource's watch cache up to date.
const FRESH_TIMEOUT: Duration = Duration::from_secs(30);

/// A selector nothing carries, so the probe's answer is an empty list whatever the
/// collection's size. A selector also keeps kube-apiserver from sending the probe to etcd
/// while the cache is still initializing (it does so only for unfiltered lists with a limit).
const MATCH_NOTHING: &str = "kube-informers-testkit-matches-nothing";

impl RealApiServer {
    /// Returns once the watch cache behind `collection_path` (a list URL path such as
    /// `/api/v1/namespaces/prod/pods`) holds every change up to `resource_version`, so a
    /// `resourceVersion="0"` list, an informer's first, shows them.
    ///
    /// It lists with `resourceVersionMatch=NotOlderThan`, which kube-apiserver always serves
    /// from the cache after waiting (up to 3 s a request) for it to reach that version;
    /// answers that the cache is initializing (429) or not yet fresh (504), or a 500 or
    /// 503 from a resource still being set up, are retried for 30 s; other errors return.
    pub async fn wait_for_watch_cache(
        &self,
        collection_path: &str,
        resource_version: u64,
    ) -> Result<()> {
        let path = format!(
            "{collection_path}?resourceVersion={resource_version}\
             &resourceVersionMatch=NotOlderThan&labelSelector={MATCH_NOTHING}"
        );
        let client = self.client();
        let deadline = Instant::now() + FRESH_TIMEOUT;
        loop {
            let request = http::Request::get(path.as_str())
                .body(Vec::new())
                .map_err(|e| Error::Setup(e.to_string()))?;
            let err = match client.request_text(request).await {
                Ok(_) => return Ok(()),
                Err(err) => err,
            };
            let retried =
                matches!(&err, kube::Error::Api(s) if matches!(s.code, 429 | 500 | 503 | 504));
            if !retried || Instant::now() > deadline {
                return Err(Error::Setup(format!(
                    "the watch cache of {collection_path} did not reach resourceVersion \
                     {resource_version}: {err}"
                )));
            }
            tracing::debug!(%err, collection_path, "watch cache not fresh yet");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}
