//! Convergence under chaos: a seeded random schedule of testkit faults (dropped watches,
//! watches cut after N events, 410 compactions, bursts of 500 and 429, restarts, latency,
//! lists that hang mid-body, ERROR events mid-stream, silent watches, streaming lists
//! without their end bookmark, and objects that do not decode) runs while a workload creates, updates and deletes ConfigMaps in three namespaces. Once the
//! faults are cleared, the informer's cache, the server's state and a model rebuilt only from
//! handler callbacks must match exactly (keys and resourceVersions).
//!
//! `make test` runs 200 seeds (four batches of 50, one server per batch; each seed gets its own
//! factory and a `chaos-seed=<n>` label selector so seeds never see each other's objects).
//! `CHAOS_SEED_START` and `CHAOS_SEEDS` override the range (`make soak` runs 10,000); a failing
//! seed prints a one-line replay command.
//!
//! client-go: the behaviours exercised are reflector.go's relist on "too old resource version"
//! and on watch errors, delta_fifo.go Replace's `DeletedFinalStateUnknown` tombstones, and
//! shared_informer.go's notification of every change to every handler.
//!
//! The compact store (issue 18) is checked on the same workload: `chaos_compact_store_*`
//! runs a few seeds with a compact-store informer beside the typed one, fed through a
//! [`tee`](kube_informers_tests::tee) with exactly the server answers the typed informer got,
//! and requires the same lister `list()`/`get()`, index `by_index()` results and the same
//! handler notification sequence (adds, updates with their old objects, deletes and
//! tombstones with their objects). `CHAOS_COMPACT_SEED_START` and `CHAOS_COMPACT_SEEDS` override
//! its range (6 seeds from 1,000,000).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use kube_informers_runtime::lister::Lister;
use kube_informers_runtime::reflector::{BackoffConfig, ReflectorConfig};
use kube_informers_runtime::store::{CompactConfig, NAMESPACE_INDEX, namespace_indexers};
use kube_informers_runtime::{ApiListerWatcher, SharedIndexInformer, TypedInformerFactory};
use kube_informers_testkit::{InjectedFailure, Malformed, TestApiServer};
use kube_informers_tests::tee::{Replica, tee};
use kube_informers_tests::{
    CallbackModel, Event, Recorder, Seen, cache_model, init_tracing, key_of, peak_rss_kib,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Seeds per test function in `make test` (four functions: 200 seeds).
const SEEDS_PER_BATCH: u64 = 50;
/// Test functions that split the seed range between them.
const BATCHES: u64 = 4;
/// Seeds of the compact-store equivalence test in `make test`.
const COMPACT_SEEDS: u64 = 6;
/// Seeds of the compact-store test start here, past those of the typed batches.
const COMPACT_SEED_START: u64 = 1_000_000;
/// Steps (workload operations and faults) per seed.
const STEPS_PER_SEED: usize = 40;
/// How long a seed may take to converge once the faults are cleared.
const CONVERGE_WITHIN: Duration = Duration::from_secs(30);
/// How long a fault or the factory's shutdown may take.
const STEP_WITHIN: Duration = Duration::from_secs(20);
/// How long the workload waits for the answer to one of its requests.
const WORKLOAD_WITHIN: Duration = Duration::from_secs(5);
const NAMESPACES: [&str; 3] = ["chaos-a", "chaos-b", "chaos-c"];

/// The kinds of fault the schedule injects, for the summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Fault {
    DropWatches,
    CutWatchAfter,
    Compact,
    Burst500,
    Burst429,
    Restart,
    Latency,
    /// A relist whose response stops mid-body and stays open (`list_idle_timeout`).
    ListHangsMidBody,
    /// An ERROR event (500, 410 or 403) in the middle of the open watches.
    ErrorEvent,
    /// The next watch gets no answer, or half an event, then silence (`watch_idle_margin`).
    SilentWatch,
    /// The next streaming list never sends its initial-events-end bookmark.
    NoInitialEventsEnd,
    /// An object that does not decode in the next relist.
    PoisonInList,
    /// An object that does not decode in the open watches.
    PoisonInWatch,
}

/// What one batch did.
#[derive(Debug, Default)]
struct Summary {
    seeds: u64,
    faults: BTreeMap<String, u64>,
    workload_ops: u64,
    events_applied: u64,
    /// Workload requests abandoned after WORKLOAD_WITHIN without an answer.
    workload_timeouts: u64,
    /// Watches the reflector abandoned because they went silent (`WireError::Stalled`).
    stalled_watches: u64,
    divergences: u64,
}

impl Summary {
    fn line(&self, elapsed: Duration) -> String {
        let total: u64 = self.faults.values().sum();
        let by_kind: Vec<String> = self.faults.iter().map(|(k, n)| format!("{k}={n}")).collect();
        format!(
            "chaos summary: seeds={} faults={} ({}) workload_ops={} workload_timeouts={} events_applied={} stalled_watches={} divergences={} elapsed={:.1}s peak_rss={}KiB",
            self.seeds,
            total,
            by_kind.join(" "),
            self.workload_ops,
            self.workload_timeouts,
            self.events_applied,
            self.stalled_watches,
            self.divergences,
            elapsed.as_secs_f64(),
            peak_rss_kib().unwrap_or(0)
        )
    }
}

/// Prints the replay command if the seed's test body panics; `.1`: a compact-store seed.
struct ReplayOnPanic(u64, bool);

impl Drop for ReplayOnPanic {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let (vars, test) = if self.1 {
                ("CHAOS_COMPACT_SEED_START", "reliability_chaos::chaos_compact")
            } else {
                ("CHAOS_SEED_START", "reliability_chaos::")
            };
            let count = vars.replace("SEED_START", "SEEDS");
            eprintln!(
                "chaos seed {seed} failed; replay with: {vars}={seed} {count}=1 \
                 cargo nextest run -p kube-informers-tests --test integration --no-capture {test}",
                seed = self.0
            );
        }
    }
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name)
        .ok()
        .map(|v| v.parse().unwrap_or_else(|_| panic!("{name}={v} is not a number")))
}

/// The seeds batch `batch` runs: its share of `CHAOS_SEEDS` (default 200) from `CHAOS_SEED_START`.
fn seeds_of(batch: u64) -> std::ops::Range<u64> {
    let start = env_u64("CHAOS_SEED_START").unwrap_or(0);
    let count = env_u64("CHAOS_SEEDS").unwrap_or(SEEDS_PER_BATCH * BATCHES);
    let share = count.div_ceil(BATCHES);
    let from = (start + batch * share).min(start + count);
    let to = (from + share).min(start + count);
    from..to
}

fn chaos_reflector_config(seed: u64) -> ReflectorConfig {
    ReflectorConfig {
        // Per seed, so that a debug log (`RUST_LOG=kube_informers_runtime=debug`) of a
        // failing seed can be picked out of a whole batch.
        name: format!("chaos-{seed}"),
        // Small pages so relists paginate and a compaction can expire a continue token.
        page_size: 7,
        // Short server-side watch timeouts, so watches also end the normal way, and a
        // watch that stalls (see `watch_idle_margin`) is abandoned within 5 s, well inside
        // CONVERGE_WITHIN.
        min_watch_timeout: Duration::from_secs(2),
        max_watch_timeout: Duration::from_secs(4),
        watch_idle_margin: Duration::from_secs(1),
        // A list that hangs is abandoned after a second.
        list_idle_timeout: Duration::from_secs(1),
        // Odd seeds sync through streaming lists, so their faults meet that path too.
        streaming_list: seed % 2 == 1,
        backoff: BackoffConfig {
            initial: Duration::from_millis(5),
            max: Duration::from_millis(100),
            ..BackoffConfig::default()
        },
        ..ReflectorConfig::default()
    }
}

async fn run_batch(batch: u64) {
    run_seeds(batch, seeds_of(batch), false).await;
}

/// Runs `seeds` against one server; with `twin`, each seed also checks a compact-store
/// informer against the typed one.
async fn run_seeds(batch: u64, seeds: std::ops::Range<u64>, twin: bool) {
    init_tracing();
    if seeds.is_empty() {
        return;
    }
    let started = Instant::now();
    let server = TestApiServer::builder()
        .bookmark_interval(Duration::from_millis(50))
        .start()
        .await
        .unwrap();
    let clean = server.client().unwrap();
    let ns_api = Api::<k8s_openapi::api::core::v1::Namespace>::all(clean.clone());
    for ns in NAMESPACES {
        let mut namespace = k8s_openapi::api::core::v1::Namespace::default();
        namespace.metadata.name = Some(ns.into());
        ns_api.create(&PostParams::default(), &namespace).await.unwrap();
    }
    let mut summary = Summary::default();
    for seed in seeds {
        let _guard = ReplayOnPanic(seed, twin);
        run_seed(&server, seed, twin, &mut summary).await;
    }
    println!("batch {batch}: {}", summary.line(started.elapsed()));
    assert_eq!(summary.divergences, 0);
    server.shutdown().await;
}

/// A compact-store informer fed, through a tee, with the typed informer's server answers.
struct Twin {
    factory: TypedInformerFactory,
    informer: SharedIndexInformer<ConfigMap>,
    events: tokio::sync::mpsc::UnboundedReceiver<Event<ConfigMap>>,
    mismatches: Arc<parking_lot::Mutex<Vec<String>>>,
}

async fn run_seed(server: &TestApiServer, seed: u64, twin: bool, summary: &mut Summary) {
    let mut rng = StdRng::seed_from_u64(seed);
    let label = format!("chaos-seed={seed}");
    let informer_client = server.client_without_retry().unwrap();
    let selector = label.clone();
    let factory_for = |client: kube::Client| {
        let selector = selector.clone();
        TypedInformerFactory::builder(client)
            .reflector_config(chaos_reflector_config(seed))
            .tweak_list_params(move |lp| lp.label_selector = Some(selector.clone()))
    };
    let factory = factory_for(informer_client.clone()).build();
    let mut twin = twin.then(|| {
        // The typed informer lists and watches through the tee; the compact one replays
        // what it recorded. Both skip managedFields, which the compact store drops.
        let idle = {
            let config = chaos_reflector_config(seed);
            config.max_watch_timeout + config.watch_idle_margin
        };
        let replica: Arc<parking_lot::Mutex<Option<Replica<ConfigMap>>>> = Arc::default();
        let slot = replica.clone();
        let _typed = factory.informer_for_with::<ConfigMap>(move |client, options| {
            let mut lister_watcher = ApiListerWatcher::new(Api::all(client)).skip_managed_fields();
            if let Some(tweak) = options.tweak {
                lister_watcher = lister_watcher.with_tweak(tweak);
            }
            let (tee, replica) = tee(Arc::new(lister_watcher), idle);
            *slot.lock() = Some(replica);
            SharedIndexInformer::new(Arc::new(tee), options.resync, namespace_indexers())
        });
        let replica = replica.lock().take().expect("the typed informer was made");
        let mismatches = replica.mismatches();
        let compact_factory = factory_for(informer_client.clone()).compact_store().build();
        let informer = compact_factory.informer_for_with::<ConfigMap>(move |_, options| {
            // A small decoded cache, so that reads both hit it and decode.
            let config = options
                .compact_store
                .map(|config| CompactConfig { hot_cache_bytes: 8 << 10, ..config });
            SharedIndexInformer::with_compact_store(
                Arc::new(replica),
                options.resync,
                namespace_indexers(),
                config.expect("the factory asked for a compact store"),
            )
        });
        let (recorder, events) = Recorder::new();
        informer.add_event_handler(recorder).unwrap();
        Twin { factory: compact_factory, informer, events, mismatches }
    });
    let informer = factory.informer_for::<ConfigMap>();
    let (recorder, mut events) = Recorder::new();
    informer.add_event_handler(recorder).unwrap();
    // The notifications of the typed informer, in order, when a twin compares its own.
    let mut typed_seen: Vec<Seen<ConfigMap>> = Vec::new();
    let mut compact_seen: Vec<Seen<ConfigMap>> = Vec::new();
    let mut compact_model = CallbackModel::default();
    // The last few errors that ended a list-and-watch cycle, printed if the seed diverges.
    let errors = Arc::new(parking_lot::Mutex::new(std::collections::VecDeque::new()));
    let sink = errors.clone();
    informer
        .set_watch_error_handler(move |err| {
            let mut last = sink.lock();
            if last.len() == 8 {
                last.pop_front();
            }
            last.push_back(format!("{:?} {err}", std::time::SystemTime::now()));
        })
        .unwrap();

    // Some objects exist before the informer starts, so the initial list has content.
    let workload = server.client().unwrap();
    let mut live: Vec<(String, String)> = Vec::new();
    let mut next_name = 0u32;
    for _ in 0..rng.random_range(0..6) {
        bounded(summary, create(&workload, seed, &mut rng, &mut live, &mut next_name)).await;
        summary.workload_ops += 1;
    }
    factory.start();
    if let Some(twin) = &twin {
        twin.factory.start();
    }

    let mut latency_steps = 0u32;
    for _ in 0..STEPS_PER_SEED {
        if latency_steps > 0 {
            latency_steps -= 1;
            if latency_steps == 0 {
                server.faults().set_latency(None);
            }
        }
        if rng.random_bool(0.3) {
            let fault =
                within(seed, "inject a fault", inject_fault(server, &mut rng, &mut latency_steps))
                    .await;
            tracing::debug!(seed, ?fault, "fault injected");
            *summary.faults.entry(format!("{fault:?}")).or_default() += 1;
        } else {
            let op = rng.random_range(0..10);
            if live.is_empty() || op < 4 {
                bounded(summary, create(&workload, seed, &mut rng, &mut live, &mut next_name))
                    .await;
            } else if op < 8 {
                let (ns, name) = live[rng.random_range(0..live.len())].clone();
                bounded(summary, update(&workload, &ns, &name, &mut rng)).await;
            } else {
                let (ns, name) = live.swap_remove(rng.random_range(0..live.len()));
                let api = Api::<ConfigMap>::namespaced(workload.clone(), &ns);
                let _ = bounded(summary, api.delete(&name, &DeleteParams::default())).await;
            }
            summary.workload_ops += 1;
        }
    }

    // Quiet: clear every fault, then wait for the three views to agree.
    server.faults().set_latency(None);
    server.faults().clear_failures();
    server.faults().drop_watches_after(0);
    let truth = Api::<ConfigMap>::all(workload.clone());
    let params = ListParams::default().labels(&label);
    let expected = loop {
        match bounded(summary, truth.list(&params)).await {
            Some(Ok(list)) => {
                break cache_model(&list.items.into_iter().map(Arc::new).collect::<Vec<_>>());
            }
            Some(Err(_)) | None => tokio::time::sleep(Duration::from_millis(5)).await,
        }
    };

    let mut model = CallbackModel::default();
    let deadline = tokio::time::Instant::now() + CONVERGE_WITHIN;
    let converged = loop {
        while let Ok(event) = events.try_recv() {
            model.apply(&event);
            summary.events_applied += 1;
            if twin.is_some() {
                typed_seen.push(event.seen());
            }
        }
        let cache = cache_model(&informer.get_indexer().list());
        let twin_done = match &mut twin {
            None => true,
            Some(twin) => {
                while let Ok(event) = twin.events.try_recv() {
                    compact_model.apply(&event);
                    compact_seen.push(event.seen());
                }
                cache_model(&twin.informer.get_indexer().list()) == expected
                    && compact_model.objects == expected
            }
        };
        if cache == expected && model.objects == expected && twin_done {
            break true;
        }
        if tokio::time::Instant::now() >= deadline {
            if let Some(twin) = &twin {
                eprintln!(
                    "seed {seed} compact twin:\n  cache:  {:?}\n  model:  {:?}\n  stats: {:?}\n  \
                     mismatches: {:?}\n  notifications: typed {} compact {}",
                    cache_model(&twin.informer.get_indexer().list()),
                    compact_model.objects,
                    twin.informer.stats().reflector,
                    twin.mismatches.lock(),
                    typed_seen.len(),
                    compact_seen.len(),
                );
            }
            eprintln!(
                "seed {seed} diverged:\n  server: {expected:?}\n  cache:  {cache:?}\n  model:  {:?}\n  \
                 informer: synced={} last_sync_rv={:?} stopped={}\n  stats: {:?}\n  \
                 server: rv={} list requests={} watch requests={}\n  last errors: {:#?}",
                model.objects,
                informer.has_synced(),
                informer.last_sync_resource_version(),
                informer.is_stopped(),
                informer.stats().reflector,
                server.resource_version(),
                server.request_count("list", "configmaps"),
                server.request_count("watch", "configmaps"),
                errors.lock(),
            );
            break false;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    };
    if converged && let Some(twin) = &twin {
        assert_same_as_typed(seed, &informer, twin, &typed_seen, &compact_seen);
    }
    within(seed, "shut the factory down", factory.shutdown()).await;
    if let Some(twin) = &twin {
        within(seed, "shut the compact factory down", twin.factory.shutdown()).await;
    }
    summary.seeds += 1;
    summary.stalled_watches += informer.stats().reflector.stalls;
    if !converged {
        summary.divergences += 1;
        panic!("seed {seed}: cache, server and callback model did not converge");
    }
}

/// The compact-store informer's cache and notifications are the typed one's: lister
/// `list()` and `get()` (every key ever seen, absent ones included), the namespace index's
/// `by_index()` and values, and every notification in order, objects compared by value.
fn assert_same_as_typed(
    seed: u64,
    typed: &SharedIndexInformer<ConfigMap>,
    twin: &Twin,
    typed_seen: &[Seen<ConfigMap>],
    compact_seen: &[Seen<ConfigMap>],
) {
    let mismatches = twin.mismatches.lock().clone();
    assert!(mismatches.is_empty(), "seed {seed}: the two reflectors diverged: {mismatches:?}");
    let (ti, ci) = (typed.get_indexer(), twin.informer.get_indexer());
    assert!(ci.is_compact() && !ti.is_compact());
    let sorted = |mut v: Vec<Arc<ConfigMap>>| {
        v.sort_by_key(|o| key_of(o.as_ref()));
        v
    };
    let (tl, cl) = (Lister::new(ti.clone()), Lister::new(ci.clone()));
    let all = kube::core::Selector::default();
    assert_eq!(sorted(cl.list(&all)), sorted(tl.list(&all)), "seed {seed}: list()");
    let mut keys: std::collections::BTreeSet<String> = typed_seen
        .iter()
        .map(|seen| match seen {
            Seen::Add(o, _) | Seen::Update(_, o) | Seen::Delete(o, _) => key_of(o),
        })
        .collect();
    keys.extend(ti.list_keys());
    for key in &keys {
        assert_eq!(ci.get_by_key(key), ti.get_by_key(key), "seed {seed}: get({key})");
    }
    for ns in NAMESPACES {
        assert_eq!(
            sorted(ci.by_index(NAMESPACE_INDEX, ns).unwrap()),
            sorted(ti.by_index(NAMESPACE_INDEX, ns).unwrap()),
            "seed {seed}: by_index({ns})"
        );
        assert_eq!(
            sorted(cl.namespaced(ns).list(&all)),
            sorted(tl.namespaced(ns).list(&all)),
            "seed {seed}: namespaced({ns}).list()"
        );
    }
    let values = |ix: &kube_informers_runtime::Indexer<ConfigMap>| {
        let mut v = ix.list_index_func_values(NAMESPACE_INDEX);
        v.sort();
        v
    };
    assert_eq!(values(&ci), values(&ti), "seed {seed}: index values");
    assert_eq!(compact_seen.len(), typed_seen.len(), "seed {seed}: number of notifications");
    for (i, (c, t)) in compact_seen.iter().zip(typed_seen).enumerate() {
        assert_eq!(c, t, "seed {seed}: notification {i}");
    }
}

/// Awaits one workload request for at most [`WORKLOAD_WITHIN`]; `None` (counted) when it
/// does not answer. The workload is the test's driver, not the system under test: an
/// abandoned create may still have happened, which is fine because the views are compared
/// with the server's state, and the workload only tracks objects it knows exist.
async fn bounded<T>(
    summary: &mut Summary,
    request: impl std::future::Future<Output = T>,
) -> Option<T> {
    match tokio::time::timeout(WORKLOAD_WITHIN, request).await {
        Ok(out) => Some(out),
        Err(_) => {
            summary.workload_timeouts += 1;
            tracing::warn!(after = ?WORKLOAD_WITHIN, "workload request abandoned without an answer");
            None
        }
    }
}

/// Awaits one step of a seed, failing the seed (rather than hanging the run) if the step
/// takes longer than [`STEP_WITHIN`].
async fn within<T>(seed: u64, step: &str, fut: impl std::future::Future<Output = T>) -> T {
    match tokio::time::timeout(STEP_WITHIN, fut).await {
        Ok(out) => out,
        Err(_) => panic!("seed {seed}: step {step:?} did not finish within {STEP_WITHIN:?}"),
    }
}

async fn inject_fault(server: &TestApiServer, rng: &mut StdRng, latency_steps: &mut u32) -> Fault {
    let faults = server.faults();
    let verb = if rng.random_bool(0.5) { "list" } else { "watch" };
    match rng.random_range(0..13) {
        0 => {
            faults.drop_watches();
            Fault::DropWatches
        }
        1 => {
            faults.drop_watches_after(rng.random_range(1..6));
            Fault::CutWatchAfter
        }
        2 => {
            server.compact();
            // Sometimes force the reconnect at once, so the informer meets the 410 now.
            if rng.random_bool(0.5) {
                faults.drop_watches();
            }
            Fault::Compact
        }
        3 => {
            faults.fail_next(
                verb,
                "configmaps",
                rng.random_range(1..4),
                InjectedFailure::internal_error(),
            );
            faults.drop_watches();
            Fault::Burst500
        }
        4 => {
            // No Retry-After, so the reflector's own (small) backoff paces the retry.
            let failure = InjectedFailure { code: 429, retry_after: None };
            faults.fail_next(verb, "configmaps", rng.random_range(1..4), failure);
            faults.drop_watches();
            Fault::Burst429
        }
        5 => {
            server.restart().await.unwrap();
            Fault::Restart
        }
        7 => {
            faults.hang_next_mid_body("list", "configmaps", 1);
            force_relist(server);
            Fault::ListHangsMidBody
        }
        8 => {
            let code = [500, 410, 403][rng.random_range(0..3)];
            faults.error_event_in_watch("configmaps", InjectedFailure { code, retry_after: None });
            Fault::ErrorEvent
        }
        9 => {
            if rng.random_bool(0.5) {
                faults.hang_next("watch", "configmaps", 1);
            } else {
                faults.hang_next_mid_body("watch", "configmaps", 1);
            }
            faults.drop_watches();
            Fault::SilentWatch
        }
        10 => {
            faults.drop_next_initial_events_end("configmaps");
            force_relist(server);
            Fault::NoInitialEventsEnd
        }
        11 => {
            faults.malformed_in_next_list("configmaps", Malformed::WrongType);
            force_relist(server);
            Fault::PoisonInList
        }
        12 => {
            faults.malformed_in_watch("configmaps", Malformed::WrongType);
            Fault::PoisonInWatch
        }
        _ => {
            faults.set_latency(Some(Duration::from_millis(rng.random_range(1..4))));
            *latency_steps = rng.random_range(1..6);
            Fault::Latency
        }
    }
}

/// Makes the informer relist: its watch is dropped and the re-watch meets a 410.
fn force_relist(server: &TestApiServer) {
    server.compact();
    server.faults().drop_watches();
}

async fn create(
    client: &kube::Client,
    seed: u64,
    rng: &mut StdRng,
    live: &mut Vec<(String, String)>,
    next_name: &mut u32,
) {
    let ns = NAMESPACES[rng.random_range(0..NAMESPACES.len())];
    let name = format!("s{seed}-cm{next_name}");
    *next_name += 1;
    let mut cm = ConfigMap::default();
    cm.metadata.name = Some(name.clone());
    cm.metadata.labels = Some([("chaos-seed".to_string(), seed.to_string())].into());
    cm.data = Some([("v".to_string(), "0".to_string())].into());
    let api = Api::<ConfigMap>::namespaced(client.clone(), ns);
    // A create whose answer is lost (restart) may still have happened; the comparison is
    // against the server's state, so the workload only tracks what it knows.
    if api.create(&PostParams::default(), &cm).await.is_ok() {
        live.push((ns.to_string(), name));
    }
}

async fn update(client: &kube::Client, ns: &str, name: &str, rng: &mut StdRng) {
    let api = Api::<ConfigMap>::namespaced(client.clone(), ns);
    let value = rng.random_range(0..1_000_000u32).to_string();
    let patch = serde_json::json!({"data": {"v": value}});
    let _ =
        api.patch(name, &kube::api::PatchParams::default(), &kube::api::Patch::Merge(&patch)).await;
}

// client-go: shared_informer.go HandleDeltas over a cache.Indexer; the compact store must be
// indistinguishable from client-go's threadSafeMap to listers, indexers and handlers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chaos_compact_store_gives_the_typed_store_results_and_notifications() {
    let count = env_u64("CHAOS_COMPACT_SEEDS").unwrap_or(COMPACT_SEEDS);
    let start = env_u64("CHAOS_COMPACT_SEED_START").unwrap_or(COMPACT_SEED_START);
    run_seeds(4, start..start + count, true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chaos_converges_batch_0() {
    run_batch(0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chaos_converges_batch_1() {
    run_batch(1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chaos_converges_batch_2() {
    run_batch(2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chaos_converges_batch_3() {
    run_batch(3).await;
}
