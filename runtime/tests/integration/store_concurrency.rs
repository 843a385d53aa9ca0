//! Thread safety of the indexer: readers share the lock, transactions are atomic, and
//! concurrent writers keep the indices exact. No sleeps: threads meet on channels.

use std::collections::BTreeMap;
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::ObjectMeta;
use kube_informers_runtime::store::{Indexer, NAMESPACE_INDEX, namespace_indexers};

/// Only a bound so that a broken lock fails the test instead of hanging it.
const GUARD: Duration = Duration::from_secs(30);

fn cm(ns: &str, name: &str) -> Arc<ConfigMap> {
    Arc::new(ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: Some(ns.into()),
            ..Default::default()
        },
        data: Some(BTreeMap::new()),
        ..Default::default()
    })
}

// client-go: thread_safe_store.go uses an RWMutex so that readers proceed in parallel
#[test]
fn readers_do_not_block_each_other() {
    const READERS: usize = 4;
    let indexer = Indexer::new(namespace_indexers::<ConfigMap>());
    indexer.add(cm("ns", "a")).unwrap();
    let (entered_tx, entered_rx) = mpsc::channel();
    let mut releases = Vec::new();
    let mut handles = Vec::new();
    for _ in 0..READERS {
        let (release_tx, release_rx) = mpsc::channel::<()>();
        releases.push(release_tx);
        let indexer = indexer.clone();
        let entered_tx = entered_tx.clone();
        handles.push(thread::spawn(move || {
            indexer.read(|view| {
                entered_tx.send(()).unwrap();
                // Stay inside the read lock until every reader is inside too.
                let _ = release_rx.recv();
                view.len()
            })
        }));
    }
    for i in 0..READERS {
        entered_rx
            .recv_timeout(GUARD)
            .unwrap_or_else(|_| panic!("only {i} of {READERS} readers got the read lock at once"));
    }
    drop(releases);
    for h in handles {
        assert_eq!(h.join().unwrap(), 1);
    }
}

#[test]
fn readers_see_all_or_nothing_of_a_transaction() {
    const ROUNDS: usize = 300;
    let indexer = Indexer::new(namespace_indexers::<ConfigMap>());
    let writer = {
        let indexer = indexer.clone();
        thread::spawn(move || {
            for i in 0..ROUNDS {
                indexer.transaction(|txn| {
                    // Move the pair from the previous round to this one: four changes.
                    if i > 0 {
                        txn.delete_key(&format!("left/{}", i - 1));
                        txn.delete_key(&format!("right/{}", i - 1));
                    }
                    txn.add(cm("left", &i.to_string())).unwrap();
                    txn.add(cm("right", &i.to_string())).unwrap();
                });
            }
        })
    };
    let mut observations = 0;
    while !writer.is_finished() || observations == 0 {
        let (left, right, len) = indexer.read(|view| {
            let names = |ns| {
                let mut v: Vec<String> = view
                    .by_index(NAMESPACE_INDEX, ns)
                    .unwrap()
                    .map(|o| o.metadata.name.clone().unwrap())
                    .collect();
                v.sort();
                v
            };
            (names("left"), names("right"), view.len())
        });
        assert_eq!(left, right, "a reader saw half a transaction");
        assert!(len == 0 || len == 2, "a reader saw {len} objects");
        observations += 1;
    }
    writer.join().unwrap();
    assert_eq!(indexer.len(), 2);
}

#[test]
fn concurrent_writers_keep_indices_exact() {
    const WRITERS: usize = 4;
    const PER_WRITER: usize = 500;
    let indexer = Indexer::new(namespace_indexers::<ConfigMap>());
    let handles: Vec<_> = (0..WRITERS)
        .map(|w| {
            let indexer = indexer.clone();
            thread::spawn(move || {
                for i in 0..PER_WRITER {
                    let ns = format!("ns-{}", i % 10);
                    indexer.add(cm(&ns, &format!("w{w}-{i}"))).unwrap();
                    // Every third object is deleted again, every fifth updated.
                    if i % 3 == 0 {
                        indexer.delete(&cm(&ns, &format!("w{w}-{i}"))).unwrap();
                    } else if i % 5 == 0 {
                        indexer.update(cm(&ns, &format!("w{w}-{i}"))).unwrap();
                    }
                    let _ = indexer.by_index(NAMESPACE_INDEX, &ns).unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let expected_per_writer = (0..PER_WRITER).filter(|i| i % 3 != 0).count();
    assert_eq!(indexer.len(), WRITERS * expected_per_writer);
    let mut indexed = 0;
    for ns in indexer.list_index_func_values(NAMESPACE_INDEX) {
        let keys = indexer.index_keys(NAMESPACE_INDEX, &ns).unwrap();
        assert!(keys.iter().all(|k| k.starts_with(&format!("{ns}/"))));
        indexed += keys.len();
    }
    assert_eq!(indexed, indexer.len());
}
