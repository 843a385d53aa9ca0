//! Resyncs through a whole informer: `on_update(x, x)` goes only to handlers that asked for
//! a resync period, at that cadence (client-go: shared_informer_test.go
//! TestListenerResyncPeriods, run end to end through reflector, DeltaFIFO and processor).

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta;
use kube::api::{ListParams, WatchParams};
use kube::core::{ObjectList, TypeMeta};
use kube_informers_runtime::listwatch::{ListerWatcher, WatchStream};
use kube_informers_runtime::store::Indexers;
use kube_informers_runtime::{DeletedObject, ResourceEventHandler, SharedIndexInformer};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Lists three ConfigMaps, then watches forever without events.
struct QuietServer;

fn config_map(name: &str) -> ConfigMap {
    let mut cm = ConfigMap::default();
    cm.metadata.name = Some(name.into());
    cm.metadata.namespace = Some("ns".into());
    cm.metadata.resource_version = Some("7".into());
    cm
}

impl ListerWatcher<ConfigMap> for QuietServer {
    fn list<'a>(
        &'a self,
        _: &'a ListParams,
    ) -> BoxFuture<'a, Result<ObjectList<ConfigMap>, kube::Error>> {
        Box::pin(async {
            Ok(ObjectList {
                types: TypeMeta { api_version: "v1".into(), kind: "ConfigMapList".into() },
                metadata: ListMeta { resource_version: Some("7".into()), ..ListMeta::default() },
                items: vec![config_map("a"), config_map("b"), config_map("c")],
            })
        })
    }

    fn watch<'a>(
        &'a self,
        _: &'a WatchParams,
        _: &'a str,
    ) -> BoxFuture<'a, Result<WatchStream<ConfigMap>, kube::Error>> {
        Box::pin(async { Ok(Box::pin(futures::stream::pending()) as WatchStream<ConfigMap>) })
    }
}

#[derive(Debug, PartialEq)]
enum Seen {
    Add(String, bool),
    Update(String, bool),
    Delete,
}

struct Tell(mpsc::UnboundedSender<Seen>);

impl ResourceEventHandler<ConfigMap> for Tell {
    fn on_add(&self, obj: &Arc<ConfigMap>, initial: bool) {
        let _ = self.0.send(Seen::Add(obj.metadata.name.clone().unwrap(), initial));
    }
    fn on_update(&self, old: &Arc<ConfigMap>, new: &Arc<ConfigMap>) {
        // A resync hands over the cached object itself as both old and new.
        let _ =
            self.0.send(Seen::Update(new.metadata.name.clone().unwrap(), Arc::ptr_eq(old, new)));
    }
    fn on_delete(&self, _: &DeletedObject<ConfigMap>) {
        let _ = self.0.send(Seen::Delete);
    }
}

async fn recv(rx: &mut mpsc::UnboundedReceiver<Seen>) -> Seen {
    // Handlers run on their own threads, outside the paused clock: wait in real time, while
    // letting the informer's tasks run (without letting the paused clock jump ahead).
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        if let Ok(seen) = rx.try_recv() {
            return seen;
        }
        assert!(std::time::Instant::now() < deadline, "no notification within 10 s");
        tokio::task::yield_now().await;
        std::thread::sleep(Duration::from_micros(200));
    }
}

#[tokio::test(start_paused = true)]
async fn resync_reaches_only_handlers_with_a_period_at_their_cadence() {
    let informer =
        SharedIndexInformer::new(Arc::new(QuietServer), Duration::ZERO, Indexers::default());
    let (resyncing_tx, mut resyncing) = mpsc::unbounded_channel();
    let (quiet_tx, mut quiet) = mpsc::unbounded_channel();
    informer
        .add_event_handler_with_resync_period(Tell(resyncing_tx), Duration::from_secs(10))
        .unwrap();
    informer.add_event_handler(Tell(quiet_tx)).unwrap();
    let cancel = CancellationToken::new();
    let running = tokio::spawn({
        let (informer, cancel) = (informer.clone(), cancel.clone());
        async move { informer.run(cancel).await }
    });
    assert!(informer.wait_for_sync().await);
    let synced_at = tokio::time::Instant::now();
    for rx in [&mut resyncing, &mut quiet] {
        let mut names = Vec::new();
        for _ in 0..3 {
            match recv(rx).await {
                Seen::Add(name, true) => names.push(name),
                other => panic!("expected an initial add, got {other:?}"),
            }
        }
        names.sort();
        assert_eq!(names, ["a", "b", "c"]);
    }

    for round in 1..=3u32 {
        tokio::time::sleep_until(synced_at + Duration::from_secs(10) * round).await;
        let mut names = Vec::new();
        for _ in 0..3 {
            match recv(&mut resyncing).await {
                Seen::Update(name, true) => names.push(name),
                other => panic!("round {round}: expected a resync update, got {other:?}"),
            }
        }
        names.sort();
        assert_eq!(names, ["a", "b", "c"], "round {round}");
        assert!(resyncing.try_recv().is_err(), "round {round}: one resync per period");
        let elapsed = tokio::time::Instant::now() - synced_at;
        assert!(
            elapsed < Duration::from_secs(10) * round + Duration::from_secs(2),
            "round {round} late: {elapsed:?}"
        );
    }
    assert!(quiet.try_recv().is_err(), "a handler without a resync period never resyncs");
    cancel.cancel();
    running.await.unwrap();
    assert!(informer.is_stopped());
}
