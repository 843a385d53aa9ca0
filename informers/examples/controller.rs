//! A small real controller: keeps a ConfigMap `<deployment>-info` (replicas, image) for each
//! Deployment and deletes the ConfigMaps whose Deployment is gone.
//!
//! Informers for Deployments and ConfigMaps, listers, an owner index on ConfigMaps and
//! client-go's rate-limited workqueue. Runs against `KUBECONFIG`'s cluster when set, else
//! against the built-in test API server seeded with a few Deployments:
//!
//! ```sh
//! cargo run -p kube-informers --example controller            # stops after 5 s on testkit
//! cargo run -p kube-informers --example controller -- --metrics-addr 0.0.0.0:9090
//! ```
//!
//! It serves Prometheus metrics of its informers (`informer_*`, labelled by resource) and its
//! work queue (client-go's `workqueue_*`, labelled `name="configmap-sync"`) at
//! `http://<metrics-addr>/metrics`; `--metrics-addr` defaults to `127.0.0.1:8080`.

#[path = "controller/metrics.rs"]
mod metrics;
#[path = "controller/reconcile.rs"]
mod reconcile;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kube_informers::metrics::prometheus::prometheus_client::registry::Registry;
use kube_informers::metrics::prometheus::{WorkQueueMetricsProvider, register_factory};
use kube_informers::store::index_func;
use kube_informers::workqueue::{QueueConfig, default_controller_rate_limiter};
use kube_informers::{RateLimitingQueue, ResourceEventHandlerFuncs, SharedInformerFactory};
use kube_informers_testkit::TestApiServer;

use metrics::MetricsServer;
use reconcile::{Context, OWNER_INDEX, Outcome, owner_key, reconcile};

/// Where `/metrics` is served unless `--metrics-addr` says otherwise.
const DEFAULT_METRICS_ADDR: &str = "127.0.0.1:8080";

/// The `--metrics-addr ADDR` (or `--metrics-addr=ADDR`) argument.
fn metrics_addr() -> Result<SocketAddr, Box<dyn std::error::Error>> {
    let mut addr = DEFAULT_METRICS_ADDR.to_string();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.strip_prefix("--metrics-addr") {
            Some("") => addr = args.next().ok_or("--metrics-addr needs an address")?,
            Some(value) if value.starts_with('=') => addr = value[1..].to_string(),
            _ => {
                return Err(
                    format!("unknown argument {arg:?}; usage: [--metrics-addr ADDR]").into()
                );
            }
        }
    }
    Ok(addr.parse()?)
}

fn deployment_key(d: &Deployment) -> Option<String> {
    Some(format!("{}/{}", d.metadata.namespace.as_deref()?, d.metadata.name.as_deref()?))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let metrics_addr = metrics_addr()?;
    let (client, server) = match std::env::var_os("KUBECONFIG") {
        Some(_) => (kube::Client::try_default().await?, None),
        None => {
            let server = TestApiServer::start().await?;
            server.seed().deployments("default", 5)?;
            (server.client()?, Some(server))
        }
    };

    let factory = SharedInformerFactory::new(client.clone(), Duration::ZERO);
    let deployments = factory.apps().v1().deployments();
    let config_maps = factory.core().v1().config_maps();
    config_maps
        .informer()
        .add_indexers([(OWNER_INDEX.to_string(), index_func(owner_key))].into())?;

    // Metrics: every informer the factory starts, and the work queue.
    let mut registry = Registry::default();
    register_factory(&mut registry, &factory);
    let queue_metrics = WorkQueueMetricsProvider::new(&mut registry);
    let metrics_server = MetricsServer::start(metrics_addr, Arc::new(registry)).await?;
    println!("metrics at http://{}/metrics", metrics_server.addr);

    let queue: RateLimitingQueue<String> = RateLimitingQueue::with_config(
        default_controller_rate_limiter(),
        QueueConfig::new().name("configmap-sync").metrics_provider(queue_metrics),
    );
    let enqueue = {
        let queue = queue.clone();
        move |d: &Deployment| deployment_key(d).into_iter().for_each(|key| queue.add(key))
    };
    let (on_add, on_update) = (enqueue.clone(), enqueue.clone());
    deployments.informer().add_event_handler(
        ResourceEventHandlerFuncs::new()
            .on_add(move |d: &Arc<Deployment>, _| on_add(d))
            .on_update(move |_, d: &Arc<Deployment>| on_update(d))
            .on_delete(move |d| enqueue(d.object())),
    )?;
    // A ConfigMap changed or vanished behind our back: reconcile its owner.
    let owners = queue.clone();
    let enqueue_owner =
        move |cm: &ConfigMap| owner_key(cm).into_iter().for_each(|key| owners.add(key));
    let (on_update, on_delete) = (enqueue_owner.clone(), enqueue_owner);
    config_maps.informer().add_event_handler(
        ResourceEventHandlerFuncs::new()
            .on_update(move |_, cm: &Arc<ConfigMap>| on_update(cm))
            .on_delete(move |cm| on_delete(cm.object())),
    )?;

    factory.start();
    factory.wait_for_cache_sync().await;
    let ctx = Context {
        client,
        deployments: deployments.lister(),
        config_maps: config_maps.informer().get_indexer(),
    };
    let worker = tokio::spawn({
        let queue = queue.clone();
        async move {
            while let Some(key) = queue.get().await {
                match reconcile(&ctx, &key).await {
                    Ok(outcome) => {
                        if outcome != Outcome::Unchanged {
                            println!("{key}: {outcome:?}");
                        }
                        queue.forget(&key);
                    }
                    Err(err) => {
                        eprintln!("{key}: {err}; retrying");
                        queue.add_rate_limited(key.clone());
                    }
                }
                queue.done(&key);
            }
        }
    });

    match server {
        Some(_) => tokio::time::sleep(Duration::from_secs(5)).await,
        None => tokio::signal::ctrl_c().await?,
    }
    queue.shut_down_with_drain().await;
    worker.await?;
    factory.shutdown().await;
    metrics_server.shutdown().await?;
    if let Some(server) = server {
        println!("ConfigMaps on the server: {}", server.object_count("configmaps"));
        server.shutdown().await;
    }
    Ok(())
}
