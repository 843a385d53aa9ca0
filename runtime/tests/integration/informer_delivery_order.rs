//! Handlers receive changes in the order they arrived, across keys: deltas queued as A1, B1,
//! A2 reach handlers as A1, B1, A2, not grouped per key as A1, A2, B1. client-go delivers in
//! arrival order since 1.33 (RealFIFO behind `InOrderInformers`, GA in 1.36:
//! shared_informer_test.go TestSharedInformerEventOrdering-style checks, real_fifo.go);
//! its older DeltaFIFO path grouped per key, as ours did.

use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::core::WatchEvent;
use kube_informers_runtime::store::Indexers;
use kube_informers_runtime::{OverflowPolicy, ResourceEventHandlerFuncs, SharedIndexInformer};

use crate::handler_overflow::{
    Gate, ScriptedServer, bound, config_map, drain, gated_cm, name_of, run, wait_until_async,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deltas_queued_as_a1_b1_a2_reach_handlers_as_a1_b1_a2() {
    // Three initial objects and a blocking handler that holds the first at its gate: the
    // second fills its one free slot and the third is held back, so the informer waits
    // before popping again and the three watch events queue up behind it.
    let initial = vec![config_map("z1", 1), config_map("z2", 1), config_map("z3", 1)];
    let (server, events) = ScriptedServer::new(initial);
    let informer = SharedIndexInformer::new(server, Duration::ZERO, Indexers::default());
    let gate = Gate::default();
    let (blocking, blocking_rx) = gated_cm(gate.clone());
    informer.add_event_handler_with_options(blocking, bound(1, OverflowPolicy::Block)).unwrap();
    let (tx, seen) = std::sync::mpsc::channel();
    let update_tx = std::sync::Mutex::new(tx.clone());
    let recording = ResourceEventHandlerFuncs::new()
        .on_add(move |cm: &std::sync::Arc<ConfigMap>, _| {
            let _ = tx.send(format!("add {}@{}", name_of(cm), rv(cm)));
        })
        .on_update(move |_, cm| {
            let _ = update_tx.lock().unwrap().send(format!("update {}@{}", name_of(cm), rv(cm)));
        });
    informer.add_event_handler(recording).unwrap();
    let (cancel, running) = run(&informer);
    assert_eq!(drain(&blocking_rx, 1), ["z1"], "the blocking handler holds z1");
    let mut initial = drain(&seen, 3);
    initial.sort();
    assert_eq!(initial, ["add z1@1", "add z2@1", "add z3@1"]);

    events.send(WatchEvent::Added(config_map("a", 2))).unwrap();
    events.send(WatchEvent::Added(config_map("b", 3))).unwrap();
    events.send(WatchEvent::Modified(config_map("a", 4))).unwrap();
    // All three are queued once the reflector has applied the last one.
    wait_until_async("the three events are queued", || {
        informer.last_sync_resource_version() == "4"
    })
    .await;
    assert!(seen.try_recv().is_err(), "nothing delivered while the informer waits");

    gate.open();
    assert_eq!(drain(&seen, 3), ["add a@2", "add b@3", "update a@4"], "arrival order");
    cancel.cancel();
    tokio::time::timeout(Duration::from_secs(30), running).await.expect("stops").unwrap();
}

fn rv(cm: &ConfigMap) -> &str {
    cm.metadata.resource_version.as_deref().unwrap_or_default()
}
