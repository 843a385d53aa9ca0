//! Baseline numbers for the store, its indices and the DeltaFIFO.
//!
//! `cargo bench -p kube-informers-runtime --bench store_fifo` prints one table. Plain
//! `Instant` timing, no statistics: these are baselines, not regression gates.

use std::convert::Infallible;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::ObjectMeta;
use kube::core::Selector;
use kube_informers_runtime::fifo::{DeltaFifo, KnownObjects};
use kube_informers_runtime::lister::Lister;
use kube_informers_runtime::store::{Indexer, NAMESPACE_INDEX, namespace_indexers};

const OBJECTS: usize = 100_000;
const NAMESPACES: usize = 100;
const QUERIES: usize = 2_000;

fn objects(version: u32) -> Vec<Arc<ConfigMap>> {
    (0..OBJECTS)
        .map(|i| {
            Arc::new(ConfigMap {
                metadata: ObjectMeta {
                    name: Some(format!("cm-{i}")),
                    namespace: Some(format!("ns-{}", i % NAMESPACES)),
                    resource_version: Some(version.to_string()),
                    labels: Some([("app".to_string(), format!("app-{}", i % 7))].into()),
                    ..Default::default()
                },
                ..Default::default()
            })
        })
        .collect()
}

struct Row {
    what: &'static str,
    n: usize,
    elapsed: Duration,
}

impl Row {
    fn print(&self) {
        let per_op = self.elapsed.as_secs_f64() / self.n as f64;
        println!(
            "| {:<44} | {:>9} | {:>10.1} ms | {:>12.0} | {:>10.2} µs |",
            self.what,
            self.n,
            self.elapsed.as_secs_f64() * 1e3,
            1.0 / per_op,
            per_op * 1e6
        );
    }
}

fn time(what: &'static str, n: usize, f: impl FnOnce()) -> Row {
    let start = Instant::now();
    f();
    Row { what, n, elapsed: start.elapsed() }
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().build().expect("runtime");
    let v1 = objects(1);
    let v2 = objects(2);
    let mut rows = Vec::new();

    // Store writes, with the namespace index maintained.
    let indexer = Indexer::new(namespace_indexers::<ConfigMap>());
    rows.push(time("store add (namespace index)", OBJECTS, || {
        for o in &v1 {
            indexer.add(Arc::clone(o)).expect("add");
        }
    }));
    rows.push(time("store update (namespace index)", OBJECTS, || {
        for o in &v2 {
            indexer.update(Arc::clone(o)).expect("update");
        }
    }));
    rows.push(time("store replace (100k, rebuild index)", OBJECTS, || {
        indexer.replace(v1.clone(), "3").expect("replace");
    }));

    // Reads at 100k objects, 1k per namespace.
    rows.push(time("by_index(namespace) at 100k, 1k hits", QUERIES, || {
        for q in 0..QUERIES {
            let hits = indexer
                .by_index(NAMESPACE_INDEX, &format!("ns-{}", q % NAMESPACES))
                .expect("index");
            black_box(hits);
        }
    }));
    rows.push(time("index_keys(namespace) at 100k, 1k hits", QUERIES, || {
        for q in 0..QUERIES {
            black_box(
                indexer
                    .index_keys(NAMESPACE_INDEX, &format!("ns-{}", q % NAMESPACES))
                    .expect("keys"),
            );
        }
    }));
    let lister = Lister::new(indexer.clone());
    let selector: Selector = [("app", "app-3")].into_iter().collect();
    rows.push(time("namespace lister list(app=..) at 100k", QUERIES, || {
        for q in 0..QUERIES {
            black_box(lister.namespaced(&format!("ns-{}", q % NAMESPACES)).list(&selector));
        }
    }));
    rows.push(time("get_by_key at 100k", OBJECTS, || {
        for i in 0..OBJECTS {
            black_box(indexer.get_by_key(&format!("ns-{}/cm-{i}", i % NAMESPACES)));
        }
    }));

    // DeltaFIFO: push then pop, one key per pop.
    let fifo = DeltaFifo::<ConfigMap>::new(None);
    rows.push(time("fifo add + pop (1 key per pop)", OBJECTS, || {
        for o in &v1 {
            fifo.add(Arc::clone(o)).expect("add");
        }
        rt.block_on(async {
            for _ in 0..OBJECTS {
                fifo.pop(|d, _| {
                    black_box(d);
                    Ok::<_, Infallible>(())
                })
                .await
                .expect("pop");
            }
        });
    }));
    rows.push(time("fifo add + pop_batch(MAX)", OBJECTS, || {
        for o in &v1 {
            fifo.add(Arc::clone(o)).expect("add");
        }
        rt.block_on(async {
            while !fifo.is_empty() {
                fifo.pop_batch(usize::MAX, |b, _| {
                    black_box(b);
                    Ok::<_, Infallible>(())
                })
                .await
                .expect("pop");
            }
        });
    }));

    // A relist against 100k known objects, then applying it in one transaction.
    let known = Indexer::new(namespace_indexers::<ConfigMap>());
    known.replace(v1.clone(), "1").expect("replace");
    let relist = DeltaFifo::new(Some(Arc::new(known.clone()) as Arc<dyn KnownObjects<ConfigMap>>));
    rows.push(time("fifo replace(100k) + pop_batch into store", OBJECTS, || {
        relist.replace(v2.clone(), "2").expect("replace");
        rt.block_on(async {
            relist
                .pop_batch(usize::MAX, |batch, _| {
                    known.transaction(|txn| {
                        for deltas in batch {
                            if let Some(d) = deltas.newest() {
                                txn.update(Arc::clone(d.object())).expect("update");
                            }
                        }
                    });
                    Ok::<_, Infallible>(())
                })
                .await
                .expect("pop");
        });
    }));

    // Producer thread and consumer running at once.
    let fifo = DeltaFifo::<ConfigMap>::new(None);
    rows.push(time("fifo concurrent producer/consumer", OBJECTS, || {
        let producer = {
            let fifo = fifo.clone();
            let objs = v2.clone();
            std::thread::spawn(move || {
                for o in objs {
                    fifo.update(o).expect("update");
                }
                fifo.close();
            })
        };
        let mut popped = 0usize;
        rt.block_on(async {
            while fifo
                .pop_batch(1024, |b, _| {
                    popped += b.len();
                    Ok::<_, Infallible>(())
                })
                .await
                .is_ok()
            {}
        });
        producer.join().expect("producer");
        assert_eq!(popped, OBJECTS);
    }));

    println!(
        "| {:<44} | {:>9} | {:>13} | {:>12} | {:>13} |",
        "operation", "n", "total", "ops/s", "per op"
    );
    println!("|{:-<46}|{:->11}|{:->15}|{:->14}|{:->15}|", "", "", "", "", "");
    for row in &rows {
        row.print();
    }
}
