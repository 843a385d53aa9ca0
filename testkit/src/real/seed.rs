//! Seeding a real server through its API, with the objects testkit's seeder stores directly,
//! so one test body can seed either server.

use std::sync::atomic::Ordering;

use futures::{StreamExt, TryStreamExt};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::seed::{SeedKind, SeedReport, fill};

use super::RealApiServer;

/// Creates in flight at once: enough to keep the apiserver busy on two cores, well under its
/// default max-requests-inflight (400).
const CONCURRENCY: usize = 32;

impl RealApiServer {
    /// Creates `count` objects of `kind` in `namespace` (created first if missing), named and
    /// labelled like [`Seeder::objects`](crate::Seeder::objects): `pod-N`, `config-N` or
    /// `deploy-N` with `N` unique per server, label `app=app-{N % 10}`. Server-set fields of
    /// the templates (uid, resourceVersion, timestamps, managedFields) are left to the server.
    /// Returns once the watch cache holds them all, so an informer's first list sees them.
    pub async fn seed(&self, kind: SeedKind, namespace: &str, count: usize) -> Result<SeedReport> {
        self.create_namespace(namespace).await?;
        let first = self.seed_seq.fetch_add(count as u64, Ordering::Relaxed);
        let client = self.client();
        let path = collection_path(kind, namespace);
        let versions: Vec<u64> = futures::stream::iter(0..count as u64)
            .map(|i| {
                let index = first + i;
                let name = format!("{}-{index}", kind.name_prefix());
                let body = for_create(fill(kind.template(), &name, namespace, index));
                create(client.clone(), path.clone(), body)
            })
            .buffered(CONCURRENCY)
            .try_collect()
            .await?;
        let names = (count > 0).then(|| {
            let name = |i: u64| format!("{}-{i}", kind.name_prefix());
            (name(first), name(first + count as u64 - 1))
        });
        let resource_version = versions.into_iter().max().unwrap_or_default();
        if count > 0 {
            self.wait_for_watch_cache(&path, resource_version).await?;
        }
        Ok(SeedReport { count, names, resource_version })
    }

    /// Creates a namespace; one that exists already is fine.
    pub async fn create_namespace(&self, name: &str) -> Result<()> {
        let body = serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}});
        match create(self.client(), "/api/v1/namespaces".into(), body).await {
            Ok(_) => Ok(()),
            Err(Error::Seed(message)) if message.contains("AlreadyExists") => Ok(()),
            Err(err) => Err(err),
        }
    }
}

fn collection_path(kind: SeedKind, namespace: &str) -> String {
    let prefix = match kind {
        SeedKind::Pods | SeedKind::ConfigMaps => "/api/v1",
        SeedKind::Deployments => "/apis/apps/v1",
    };
    format!("{prefix}/namespaces/{namespace}/{}", kind.plural())
}

/// The template object without what only the server may set.
fn for_create(mut object: Value) -> Value {
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        for field in ["uid", "resourceVersion", "creationTimestamp", "managedFields", "generation"]
        {
            meta.remove(field);
        }
    }
    object
}

/// POSTs `body` and returns the resourceVersion the server gave it.
async fn create(client: kube::Client, path: String, body: Value) -> Result<u64> {
    let request = http::Request::post(path)
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(body.to_string().into_bytes())
        .map_err(|e| Error::Seed(e.to_string()))?;
    let created: Value = client.request(request).await.map_err(|e| match e {
        kube::Error::Api(status) => Error::Seed(format!("{}: {}", status.reason, status.message)),
        other => Error::Seed(other.to_string()),
    })?;
    Ok(created["metadata"]["resourceVersion"].as_str().and_then(|rv| rv.parse().ok()).unwrap_or(0))
}
