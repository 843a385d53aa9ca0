//! Sustained load for `make soak` (ignored in `make test`): 1,000 updates per second for 60 s
//! against one informer, then the cache, the server and a model rebuilt from handler
//! callbacks must match exactly. Prints updates applied, events received, divergences and
//! peak RSS. `SOAK_SECS` and `SOAK_RATE` shorten or change the run.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::join_all;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, Patch, PatchParams};
use kube_informers_runtime::TypedInformerFactory;
use kube_informers_testkit::TestApiServer;
use kube_informers_tests::{CallbackModel, Recorder, cache_model, init_tracing, peak_rss_kib};

const OBJECTS: usize = 200;
/// Updates are sent in waves every `TICK`.
const TICK: Duration = Duration::from_millis(10);

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "soak: run by `make soak`"]
async fn sustained_updates_converge() {
    init_tracing();
    let secs = env_u64("SOAK_SECS", 60);
    let rate = env_u64("SOAK_RATE", 1_000);
    let server = TestApiServer::start().await.unwrap();
    server.seed().config_maps("soak", OBJECTS).unwrap();
    let client = server.client().unwrap();
    let factory = TypedInformerFactory::new(client.clone(), Duration::ZERO);
    let informer = factory.informer_for::<ConfigMap>();
    let (recorder, mut events) = Recorder::new();
    let registration = informer.add_event_handler(recorder).unwrap();
    factory.start();
    assert!(
        factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await.values().all(|ok| *ok)
    );

    let api = Api::<ConfigMap>::namespaced(client.clone(), "soak");
    let names: Vec<String> = informer
        .get_indexer()
        .list()
        .iter()
        .map(|cm| cm.metadata.name.clone().unwrap_or_default())
        .collect();
    assert_eq!(names.len(), OBJECTS);

    // Drain the handler while the load runs, so the model keeps up and memory stays flat.
    let seen = Arc::new(parking_lot::Mutex::new((CallbackModel::default(), 0u64)));
    let drain = tokio::spawn({
        let seen = Arc::clone(&seen);
        async move {
            while let Some(event) = events.recv().await {
                let mut seen = seen.lock();
                seen.0.apply(&event);
                seen.1 += 1;
            }
        }
    });

    let per_tick = (rate * TICK.as_millis() as u64 / 1_000).max(1) as usize;
    let started = Instant::now();
    let mut interval = tokio::time::interval(TICK);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let mut sent = 0u64;
    let mut failed = 0u64;
    let mut peak_pending = 0usize;
    while started.elapsed() < Duration::from_secs(secs) {
        interval.tick().await;
        let wave = (0..per_tick).map(|i| {
            let name = &names[(sent as usize + i) % names.len()];
            let patch = serde_json::json!({"data": {"n": (sent + i as u64).to_string()}});
            let api = api.clone();
            async move { api.patch(name, &PatchParams::default(), &Patch::Merge(&patch)).await }
        });
        for result in join_all(wave).await {
            if result.is_err() {
                failed += 1;
            }
        }
        sent += per_tick as u64;
        peak_pending = peak_pending.max(registration.pending());
    }
    let elapsed = started.elapsed();

    let expected = cache_model(
        &api.list(&Default::default())
            .await
            .unwrap()
            .items
            .into_iter()
            .map(Arc::new)
            .collect::<Vec<_>>(),
    );
    kube_informers_tests::eventually(Duration::from_secs(60), "cache converges", || {
        let done = cache_model(&informer.get_indexer().list()) == expected
            && seen.lock().0.objects == expected;
        async move { done }
    })
    .await;
    factory.shutdown().await;
    drain.abort();
    let (model, applied) = {
        let seen = seen.lock();
        (seen.0.clone(), seen.1)
    };
    let divergences = usize::from(model.objects != expected);
    println!(
        "soak summary: updates_sent={sent} failed={failed} achieved_rate={:.0}/s events_applied={applied} \
         peak_pending={peak_pending} divergences={divergences} peak_rss={}KiB",
        (sent - failed) as f64 / elapsed.as_secs_f64(),
        peak_rss_kib().unwrap_or(0)
    );
    assert_eq!(failed, 0, "every update was accepted");
    assert_eq!(divergences, 0);
    // Every update produced exactly one callback (plus the initial adds).
    assert_eq!(applied, sent + OBJECTS as u64);
    server.shutdown().await;
}
