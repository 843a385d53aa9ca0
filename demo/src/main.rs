//! `make demo`: kube-informers syncing and following a cluster (when `KUBECONFIG` points at
//! a reachable one) or the built-in test API server seeded with Pods and Deployments plus a
//! churn generator, drawn as a live terminal view once a second.
//!
//! Flags (see `--help`): `--duration 20s` (also `500ms`, `1m30s`, `2h`; default: until
//! Ctrl-C), `--pods N` and `--deployments M` (what to seed into the built-in server; default
//! 5000 and 500).

mod args;
mod churn;
mod error;
mod source;
mod stats;
mod view;

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Pod;
use kube_informers::workqueue::default_controller_rate_limiter;
use kube_informers::{
    NAMESPACE_INDEX, RateLimitingQueue, ResourceEventHandlerFuncs, Selector, SharedInformerFactory,
    labels,
};
use tokio::sync::watch;

use crate::args::Args;
use crate::error::BoxError;
use crate::stats::{EventCounter, Rate};
use crate::view::{InformerRow, Snapshot};

fn main() -> ExitCode {
    // A bad command line prints clap's error and exits with 2; --help and --version exit 0.
    let args = Args::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("kube-informers-demo: cannot start the runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("kube-informers-demo: {err}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> Result<(), BoxError> {
    let source = source::connect(&args).await?;
    let client = source.client.clone();
    let (stop_tx, stop_rx) = watch::channel(false);
    let churn = source.churn_namespace.clone().map(|namespace| {
        tokio::spawn(churn::run(
            client.clone(),
            namespace,
            Duration::from_millis(200),
            stop_rx.clone(),
        ))
    });

    let factory = SharedInformerFactory::new(client, Duration::ZERO);
    let pods = factory.core().v1().pods();
    let deployments = factory.apps().v1().deployments();
    let (pod_events, deploy_events) = (EventCounter::default(), EventCounter::default());
    let pod_registration = pods.informer().add_event_handler(pod_events.clone())?;
    let deploy_registration = deployments.informer().add_event_handler(deploy_events.clone())?;

    // client-go's controller pattern: handlers enqueue keys, a worker reconciles them.
    let queue: RateLimitingQueue<String> =
        RateLimitingQueue::named(default_controller_rate_limiter(), "deployments");
    let enqueue = {
        let queue = queue.clone();
        move |d: &Deployment| {
            if let (Some(ns), Some(name)) =
                (d.metadata.namespace.as_deref(), d.metadata.name.as_deref())
            {
                queue.add(format!("{ns}/{name}"));
            }
        }
    };
    let (on_add, on_update, on_delete) = (enqueue.clone(), enqueue.clone(), enqueue);
    deployments.informer().add_event_handler(
        ResourceEventHandlerFuncs::new()
            .on_add(move |d: &Arc<Deployment>, _| on_add(d))
            .on_update(move |_, d: &Arc<Deployment>| on_update(d))
            .on_delete(move |d| on_delete(d.object())),
    )?;
    let processed = Arc::new(AtomicU64::new(0));
    let worker = tokio::spawn({
        let (queue, lister, processed) = (queue.clone(), deployments.lister(), processed.clone());
        async move {
            while let Some(key) = queue.get().await {
                // The "reconcile": read the desired state from the cache, never the server.
                if let Some((ns, name)) = key.split_once('/') {
                    let _current = lister.deployments(ns).get(name);
                }
                processed.fetch_add(1, Ordering::Relaxed);
                queue.forget(&key);
                queue.done(&key);
            }
        }
    });

    factory.start();
    let interactive = std::io::stdout().is_terminal();
    let synced =
        wait_for_sync_with_progress(&factory, &pods.informer(), &deployments.informer()).await;
    if !synced {
        return Err("informers did not sync".into());
    }
    println!("synced pods: {} objects", pods.informer().get_indexer().len());
    println!("synced deployments: {} objects", deployments.informer().get_indexer().len());

    let app3: Selector = labels::parse("app=app-3")?;
    let namespace = source.query_namespace.clone();
    let started = Instant::now();
    let deadline = args.duration.map(|d| tokio::time::Instant::now() + d);
    let (mut pod_rate, mut deploy_rate) = (Rate::default(), Rate::default());
    pod_rate.sample(pod_events.total());
    deploy_rate.sample(deploy_events.total());
    let mut ticker = tokio::time::interval(Duration::from_secs(1));
    ticker.tick().await;
    let ctrl_c = tokio::signal::ctrl_c();
    tokio::pin!(ctrl_c);
    loop {
        let until_deadline = async {
            match deadline {
                Some(deadline) => tokio::time::sleep_until(deadline).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = ticker.tick() => {}
            _ = &mut ctrl_c => break,
            () = until_deadline => break,
        }
        let pod_indexer = pods.informer().get_indexer();
        let deploy_lister = deployments.lister();
        let some_deployment = deployments.informer().get_indexer().list_keys().into_iter().min();
        let deployment_answer = match some_deployment.as_deref().and_then(|k| k.split_once('/')) {
            Some((ns, name)) => match deploy_lister.deployments(ns).get(name) {
                Some(d) => format!("found, replicas {}", d.spec.replicas.unwrap_or(1)),
                None => "not found".to_string(),
            },
            None => "no deployments".to_string(),
        };
        let snapshot = Snapshot {
            source: source.description.clone(),
            elapsed: started.elapsed(),
            informers: vec![
                InformerRow {
                    name: "pods",
                    objects: pod_indexer.len(),
                    events_per_sec: pod_rate.sample(pod_events.total()),
                    handler_lag: pod_registration.pending(),
                },
                InformerRow {
                    name: "deployments",
                    objects: deployments.informer().get_indexer().len(),
                    events_per_sec: deploy_rate.sample(deploy_events.total()),
                    handler_lag: deploy_registration.pending(),
                },
            ],
            queue_depth: queue.len(),
            queue_processed: processed.load(Ordering::Relaxed),
            queries: vec![
                (
                    format!("pods in {namespace} (lister)"),
                    pods.lister().pods(&namespace).list(&Selector::default()).len().to_string(),
                ),
                (
                    "pods with app=app-3 (lister)".to_string(),
                    pods.lister().list(&app3).len().to_string(),
                ),
                (
                    format!("by_index({NAMESPACE_INDEX}, {namespace})"),
                    pod_indexer
                        .by_index(NAMESPACE_INDEX, &namespace)
                        .map(|v| v.len().to_string())?,
                ),
                (
                    format!("get deployment {}", some_deployment.unwrap_or_default()),
                    deployment_answer,
                ),
            ],
        };
        draw(&snapshot, interactive);
    }

    println!("shutting down");
    let _ = stop_tx.send(true);
    if let Some(churn) = churn {
        let _ = churn.await;
    }
    queue.shut_down();
    let _ = worker.await;
    factory.shutdown().await;
    if let Some(server) = source.server {
        server.shutdown().await;
    }
    println!("stopped cleanly");
    Ok(())
}

/// Shows a progress bar (on a terminal; hidden otherwise) of informers synced, with the
/// objects cached so far, until every informer has synced.
async fn wait_for_sync_with_progress(
    factory: &SharedInformerFactory,
    pods: &kube_informers::SharedIndexInformer<Pod>,
    deployments: &kube_informers::SharedIndexInformer<Deployment>,
) -> bool {
    let bar = ProgressBar::new(2);
    if let Ok(style) =
        ProgressStyle::with_template("{spinner} syncing informers [{bar:20}] {pos}/{len} {msg}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    let sync = factory.wait_for_cache_sync();
    tokio::pin!(sync);
    let mut poll = tokio::time::interval(Duration::from_millis(100));
    let result = loop {
        tokio::select! {
            result = &mut sync => break result,
            _ = poll.tick() => {
                bar.set_position(u64::from(pods.has_synced()) + u64::from(deployments.has_synced()));
                bar.set_message(format!(
                    "pods {} deployments {}",
                    pods.get_indexer().len(),
                    deployments.get_indexer().len()
                ));
                bar.tick();
            }
        }
    };
    bar.finish_and_clear();
    !result.is_empty() && result.values().all(|synced| *synced)
}

/// Redraws the screen on a terminal; prints plain lines otherwise.
fn draw(snapshot: &Snapshot, interactive: bool) {
    let mut out = std::io::stdout().lock();
    if interactive {
        let _ = write!(out, "\x1b[2J\x1b[H");
    } else {
        let _ = writeln!(out, "---");
    }
    for line in snapshot.lines() {
        let _ = writeln!(out, "{line}");
    }
    let _ = out.flush();
}
