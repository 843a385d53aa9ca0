//! Popping: waiting, closing, batches, `has_synced` timing, and producers racing a
//! consumer that is processing (the FIFO lock is not held while `process` runs).

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use futures::FutureExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::ObjectMeta;
use kube_informers_runtime::fifo::{Delta, DeltaFifo, DeltaType, KnownObjects, PopError};
use kube_informers_runtime::store::Indexer;
use kube_informers_runtime::{DeletedFinalStateUnknown, DeletedObject};

fn obj(name: &str, rv: u32) -> Arc<ConfigMap> {
    Arc::new(ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            resource_version: Some(rv.to_string()),
            ..Default::default()
        },
        ..Default::default()
    })
}

fn rv(o: &ConfigMap) -> u32 {
    o.metadata.resource_version.as_deref().and_then(|v| v.parse().ok()).unwrap_or(0)
}

fn fifo_over(indexer: &Indexer<ConfigMap>) -> DeltaFifo<ConfigMap> {
    DeltaFifo::new(Some(Arc::new(indexer.clone()) as Arc<dyn KnownObjects<ConfigMap>>))
}

/// client-go `processDeltas` for the store side.
fn apply(indexer: &Indexer<ConfigMap>, deltas: impl IntoIterator<Item = Delta<ConfigMap>>) {
    for delta in deltas {
        match delta {
            Delta::Deleted(DeletedObject::Object(o)) => indexer.delete(&o).unwrap(),
            Delta::Deleted(DeletedObject::DeletedFinalStateUnknown(t)) => {
                indexer.delete_key(&t.key);
            }
            other => indexer.update(Arc::clone(other.object())).unwrap(),
        }
    }
}

#[tokio::test]
async fn pop_waits_for_an_item_without_spinning() {
    let f = DeltaFifo::<ConfigMap>::new(None);
    let popper = {
        let f = f.clone();
        tokio::spawn(async move {
            let mut got = None;
            f.pop(|d, _| {
                got = Some(d.kinds());
                Ok::<_, Infallible>(())
            })
            .await
            .unwrap();
            got
        })
    };
    tokio::task::yield_now().await;
    assert!(!popper.is_finished());
    f.add(obj("a", 1)).unwrap();
    assert_eq!(popper.await.unwrap(), Some(vec![DeltaType::Added]));
}

// client-go: delta_fifo_test.go TestDeltaFIFO_PopShouldUnblockWhenClosed
#[tokio::test]
async fn pop_should_unblock_when_closed() {
    let f = DeltaFifo::<ConfigMap>::new(None);
    let poppers: Vec<_> = (0..10)
        .map(|_| {
            let f = f.clone();
            tokio::spawn(async move { f.pop(|_, _| Ok::<_, Infallible>(())).await })
        })
        .collect();
    tokio::task::yield_now().await;
    f.close();
    assert!(f.is_closed());
    for p in poppers {
        assert!(matches!(p.await.unwrap(), Err(PopError::Closed)));
    }
}

// client-go: delta_fifo.go Pop returns ErrFIFOClosed only once the queue is empty
#[tokio::test]
async fn close_drains_queued_items_before_reporting_closed() {
    let f = DeltaFifo::<ConfigMap>::new(None);
    f.add(obj("a", 1)).unwrap();
    f.add(obj("b", 2)).unwrap();
    f.close();
    let mut popped = Vec::new();
    loop {
        match f
            .pop(|d, _| {
                popped.push(rv(d.newest().unwrap().object()));
                Ok::<_, Infallible>(())
            })
            .await
        {
            Ok(()) => {}
            Err(e) => {
                assert!(e.is_closed());
                break;
            }
        }
    }
    assert_eq!(popped, [1, 2]);
}

// client-go: delta_fifo_test.go TestDeltaFIFO_HasSynced, with the count taken after process
#[tokio::test]
async fn has_synced_only_after_the_last_initial_item_is_processed() {
    let indexer = Indexer::<ConfigMap>::default();
    let f = fifo_over(&indexer);
    f.replace(vec![obj("a", 1), obj("b", 2)], "10").unwrap();
    for _ in 0..2 {
        f.pop(|d, initial| {
            assert!(initial);
            // Still inside process: the store is not yet updated, so not synced.
            assert!(!f.has_synced());
            apply(&indexer, d);
            Ok::<_, Infallible>(())
        })
        .await
        .unwrap();
    }
    assert!(f.has_synced());
    assert_eq!(indexer.len(), 2);
    // Later items are not part of the initial list.
    f.add(obj("c", 3)).unwrap();
    f.pop(|_, initial| {
        assert!(!initial);
        Ok::<_, Infallible>(())
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn pop_batch_takes_distinct_keys_in_queue_order() {
    let f = DeltaFifo::<ConfigMap>::new(None);
    f.add(obj("a", 1)).unwrap();
    f.add(obj("b", 2)).unwrap();
    f.update(obj("a", 3)).unwrap();
    f.add(obj("c", 4)).unwrap();
    let mut seen = Vec::new();
    f.pop_batch(2, |batch, initial| {
        assert!(!initial);
        seen = batch.iter().map(|d| d.iter().map(|x| rv(x.object())).collect::<Vec<_>>()).collect();
        Ok::<_, Infallible>(())
    })
    .await
    .unwrap();
    assert_eq!(seen, [vec![1, 3], vec![2]]);
    assert_eq!(f.list_keys(), ["c"]);
    // max = 0 still makes progress (one key).
    f.pop_batch(0, |batch, _| {
        assert_eq!(batch.len(), 1);
        Ok::<_, Infallible>(())
    })
    .await
    .unwrap();
    assert!(f.is_empty());
}

#[tokio::test]
async fn pop_batch_delivers_a_whole_relist_and_stops_at_the_initial_list() {
    let indexer = Indexer::<ConfigMap>::default();
    let f = fifo_over(&indexer);
    f.replace(vec![obj("a", 1), obj("b", 2)], "10").unwrap();
    f.add(obj("c", 3)).unwrap(); // not part of the initial list
    let mut sizes = Vec::new();
    for _ in 0..2 {
        f.pop_batch(usize::MAX, |batch, initial| {
            sizes.push((batch.len(), initial));
            indexer.transaction(|txn| {
                for deltas in batch {
                    for d in deltas {
                        txn.update(Arc::clone(d.object())).unwrap();
                    }
                }
            });
            Ok::<_, Infallible>(())
        })
        .await
        .unwrap();
    }
    assert_eq!(sizes, [(2, true), (1, false)]);
    assert!(f.has_synced());

    // A relist that drops "a" and "c" arrives in one batch: replaced "b" plus two tombstones.
    f.replace(vec![obj("b", 4)], "11").unwrap();
    let mut kinds = Vec::new();
    f.pop_batch(usize::MAX, |batch, _| {
        kinds = batch.iter().map(|d| d.kinds()).collect();
        Ok::<_, Infallible>(())
    })
    .await
    .unwrap();
    assert_eq!(
        kinds,
        [vec![DeltaType::Replaced], vec![DeltaType::Deleted], vec![DeltaType::Deleted]]
    );
}

// client-go: real_fifo.go (arrival order across keys, with relists kept whole); its
// DeltaFIFO, which `DeltaFifo::new` follows, hands a key's deltas over at once instead.
#[tokio::test]
async fn in_arrival_order_later_deltas_of_the_initial_list_wait_behind_earlier_keys() {
    let indexer = Indexer::<ConfigMap>::default();
    let known: Arc<dyn KnownObjects<ConfigMap>> = Arc::new(indexer.clone());
    let f = DeltaFifo::in_arrival_order(Some(known));
    f.replace(vec![obj("a", 1), obj("b", 2)], "10").unwrap();
    f.add(obj("c", 3)).unwrap(); // a new key, after the initial list
    f.update(obj("a", 4)).unwrap(); // a listed key, after "c"
    let mut batches = Vec::new();
    for _ in 0..2 {
        f.pop_batch(usize::MAX, |batch, initial| {
            let seen: Vec<(String, u32)> = batch
                .iter()
                .flat_map(|deltas| deltas.iter())
                .map(|d| (d.object().metadata.name.clone().unwrap(), rv(d.object())))
                .collect();
            batches.push((seen, initial));
            Ok::<_, Infallible>(())
        })
        .await
        .unwrap();
    }
    let named = |items: &[(&str, u32)]| -> Vec<(String, u32)> {
        items.iter().map(|(n, v)| ((*n).to_owned(), *v)).collect()
    };
    assert_eq!(batches[0], (named(&[("a", 1), ("b", 2)]), true), "the initial list alone");
    assert_eq!(batches[1], (named(&[("c", 3), ("a", 4)]), false), "then in arrival order");
    assert!(f.is_empty());
}

#[tokio::test]
async fn producers_do_not_wait_for_a_processing_consumer() {
    let f = DeltaFifo::<ConfigMap>::new(None);
    f.add(obj("a", 1)).unwrap();
    f.pop(|_, _| {
        // Another thread pushes while we are processing; it must not block on the FIFO.
        let (done_tx, done_rx) = mpsc::channel();
        let producer = f.clone();
        std::thread::spawn(move || {
            producer.add(obj("b", 2)).unwrap();
            done_tx.send(()).unwrap();
        });
        // A generous bound only to fail instead of hanging; no timing is asserted.
        done_rx.recv_timeout(Duration::from_secs(30)).expect("producer blocked on the FIFO");
        Ok::<_, Infallible>(())
    })
    .await
    .unwrap();
    assert_eq!(f.list_keys(), ["b"]);
}

// client-go: delta_fifo_test.go TestDeltaFIFO_UpdateResyncRace, with the resync landing
// while the update is being processed (client-go excludes this by holding its lock).
#[tokio::test]
async fn resync_during_processing_skips_the_in_flight_key() {
    let indexer = Indexer::<ConfigMap>::default();
    indexer.add(obj("foo", 5)).unwrap();
    let f = fifo_over(&indexer);
    f.update(obj("foo", 6)).unwrap();
    f.pop(|d, _| {
        f.resync().unwrap(); // the store still holds rv 5
        apply(&indexer, d);
        Ok::<_, Infallible>(())
    })
    .await
    .unwrap();
    assert!(f.is_empty(), "a stale Sync was queued: {:?}", f.list_keys());
    assert_eq!(rv(&indexer.get_by_key("foo").unwrap()), 6);
}

#[tokio::test]
async fn replace_during_processing_tombstones_an_in_flight_add() {
    let indexer = Indexer::<ConfigMap>::default();
    let f = fifo_over(&indexer);
    f.add(obj("x", 1)).unwrap();
    f.pop(|d, _| {
        // The object is gone from the relist, but not yet in the store.
        f.replace(vec![], "2").unwrap();
        apply(&indexer, d);
        Ok::<_, Infallible>(())
    })
    .await
    .unwrap();
    let queued = f.get_by_key("x").expect("tombstone queued for the in-flight key");
    match queued.newest().unwrap() {
        Delta::Deleted(DeletedObject::DeletedFinalStateUnknown(DeletedFinalStateUnknown {
            key,
            object,
        })) => {
            assert_eq!(key, "x");
            assert_eq!(rv(object), 1);
        }
        other => panic!("unexpected {:?}", other.kind()),
    }
    f.pop(|d, _| {
        apply(&indexer, d);
        Ok::<_, Infallible>(())
    })
    .await
    .unwrap();
    assert!(indexer.is_empty());
}

#[tokio::test]
async fn delete_during_processing_depends_on_the_in_flight_state() {
    let indexer = Indexer::<ConfigMap>::default();
    let f = fifo_over(&indexer);
    // Being added: a delete is news.
    f.add(obj("x", 1)).unwrap();
    f.pop(|d, _| {
        f.delete(DeletedObject::Object(obj("x", 2))).unwrap();
        apply(&indexer, d);
        Ok::<_, Infallible>(())
    })
    .await
    .unwrap();
    assert_eq!(f.get_by_key("x").unwrap().kinds(), [DeltaType::Deleted]);
    // Being deleted: a second delete is ignored, although the store still has the key.
    f.pop(|d, _| {
        assert!(indexer.get_by_key("x").is_some());
        f.delete(DeletedObject::Object(obj("x", 3))).unwrap();
        apply(&indexer, d);
        Ok::<_, Infallible>(())
    })
    .await
    .unwrap();
    assert!(f.is_empty());
    assert!(indexer.is_empty());
}

// client-go: controller.go processLoop with RetryOnError + DeltaFIFO.AddIfNotPresent
#[tokio::test]
async fn failed_processing_can_requeue_unless_newer_deltas_exist() {
    let f = DeltaFifo::<ConfigMap>::new(None);
    f.add(obj("a", 1)).unwrap();
    let mut failed = None;
    let err = f
        .pop(|d, _| {
            failed = Some(d);
            Err("boom")
        })
        .await
        .unwrap_err();
    assert!(matches!(err, PopError::Process("boom")));
    assert!(f.is_empty());
    let failed = failed.unwrap();
    f.add_if_not_present("a", failed.clone());
    assert_eq!(f.get_by_key("a").unwrap().kinds(), [DeltaType::Added]);
    // The key is queued now: newer deltas win, the retry is dropped.
    f.update(obj("a", 2)).unwrap();
    f.pop(|_, _| Ok::<_, Infallible>(())).await.unwrap();
    f.update(obj("a", 3)).unwrap();
    f.add_if_not_present("a", failed);
    let queued = f.get_by_key("a").unwrap();
    assert_eq!(queued.kinds(), [DeltaType::Updated]);
    assert_eq!(rv(queued.newest().unwrap().object()), 3);
}

#[tokio::test]
async fn a_panicking_process_still_finishes_the_pop() {
    let f = DeltaFifo::<ConfigMap>::new(None);
    f.replace(vec![obj("a", 1)], "1").unwrap();
    let panicked = std::panic::AssertUnwindSafe(
        f.pop(|_, _| -> Result<(), Infallible> { panic!("handler bug") }),
    )
    .catch_unwind()
    .await;
    assert!(panicked.is_err());
    // The popped key counts as processed and the next pop is not blocked.
    assert!(f.has_synced());
    f.add(obj("b", 2)).unwrap();
    f.pop(|d, _| {
        assert_eq!(rv(d.newest().unwrap().object()), 2);
        Ok::<_, Infallible>(())
    })
    .await
    .unwrap();
}
