//! Property: any sequence of add, update, delete, replace and resync, pushed through the
//! DeltaFIFO and applied to an Indexer the way client-go's `processDeltas` does, leaves the
//! store equal to a reference model once drained; and each key's last popped delta matches
//! its final state. Producer operations also run *inside* `process`, to exercise the window
//! in which a popped key is not yet in the store.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::Arc;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::ObjectMeta;
use kube_informers_runtime::DeletedObject;
use kube_informers_runtime::fifo::{Delta, DeltaFifo, Deltas, KnownObjects};
use kube_informers_runtime::store::{Indexer, meta_namespace_key_func, namespace_indexers};
use proptest::prelude::*;

const NAMES: [&str; 5] = ["a", "b", "c", "d", "e"];
const NAMESPACES: [&str; 2] = ["", "ns"];

#[derive(Debug, Clone)]
enum Op {
    Add(usize),
    Update(usize),
    Delete(usize),
    /// Relist with the objects at these indices (fresh versions of a random subset).
    Replace(Vec<usize>),
    Resync,
    /// Pop up to this many times.
    Drain(usize),
    /// Pop one key and run the op while its deltas are being processed.
    PopDuring(Box<Op>),
}

fn producer_op() -> impl Strategy<Value = Op> {
    let n = NAMES.len() * NAMESPACES.len();
    prop_oneof![
        3 => (0..n).prop_map(Op::Add),
        3 => (0..n).prop_map(Op::Update),
        3 => (0..n).prop_map(Op::Delete),
        2 => proptest::collection::vec(0..n, 0..n).prop_map(Op::Replace),
        1 => Just(Op::Resync),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        10 => producer_op(),
        2 => (1usize..4).prop_map(Op::Drain),
        3 => producer_op().prop_map(|op| Op::PopDuring(Box::new(op))),
    ]
}

/// Whether `op` marks the FIFO populated (client-go: any Replace, Add, Update or Delete).
fn populates(op: &Op) -> bool {
    match op {
        Op::Add(_) | Op::Update(_) | Op::Delete(_) | Op::Replace(_) => true,
        Op::Resync | Op::Drain(_) => false,
        Op::PopDuring(inner) => populates(inner),
    }
}

struct Harness {
    fifo: DeltaFifo<ConfigMap>,
    indexer: Indexer<ConfigMap>,
    /// What the server holds: key -> (resourceVersion, object).
    model: BTreeMap<String, Arc<ConfigMap>>,
    /// Every key's last popped delta: `None` = deleted, `Some(obj)` = that object.
    last_popped: BTreeMap<String, Option<Arc<ConfigMap>>>,
    next_rv: u64,
}

impl Harness {
    fn new() -> Self {
        let indexer = Indexer::new(namespace_indexers());
        let known: Arc<dyn KnownObjects<ConfigMap>> = Arc::new(indexer.clone());
        Self {
            fifo: DeltaFifo::new(Some(known)),
            indexer,
            model: BTreeMap::new(),
            last_popped: BTreeMap::new(),
            next_rv: 1,
        }
    }

    fn fresh(&mut self, i: usize) -> Arc<ConfigMap> {
        let name = NAMES[i % NAMES.len()];
        let ns = NAMESPACES[i / NAMES.len()];
        self.next_rv += 1;
        Arc::new(ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: (!ns.is_empty()).then(|| ns.to_string()),
                resource_version: Some(self.next_rv.to_string()),
                ..Default::default()
            },
            ..Default::default()
        })
    }

    fn produce(&mut self, op: &Op) {
        match op {
            Op::Add(i) | Op::Update(i) => {
                let obj = self.fresh(*i);
                self.model.insert(meta_namespace_key_func(obj.as_ref()).unwrap(), obj.clone());
                if matches!(op, Op::Add(_)) { self.fifo.add(obj) } else { self.fifo.update(obj) }
                    .unwrap();
            }
            Op::Delete(i) => {
                let obj = self.fresh(*i);
                self.model.remove(&meta_namespace_key_func(obj.as_ref()).unwrap());
                self.fifo.delete(DeletedObject::Object(obj)).unwrap();
            }
            Op::Replace(indices) => {
                let list: Vec<_> = indices.iter().map(|i| self.fresh(*i)).collect();
                self.model.clear();
                for obj in &list {
                    self.model.insert(meta_namespace_key_func(obj.as_ref()).unwrap(), obj.clone());
                }
                self.fifo.replace(list, &self.next_rv.to_string()).unwrap();
            }
            Op::Resync => self.fifo.resync().unwrap(),
            Op::Drain(_) | Op::PopDuring(_) => unreachable!("not a producer op"),
        }
    }

    /// client-go `processDeltas`, store side only.
    fn apply(
        indexer: &Indexer<ConfigMap>,
        last: &mut BTreeMap<String, Option<Arc<ConfigMap>>>,
        deltas: Deltas<ConfigMap>,
    ) {
        for delta in deltas {
            match delta {
                Delta::Deleted(gone) => {
                    let key =
                        kube_informers_runtime::store::deletion_handling_meta_namespace_key_func(
                            &gone,
                        )
                        .unwrap();
                    indexer.delete_key(&key);
                    last.insert(key, None);
                }
                Delta::Added(o) | Delta::Updated(o) | Delta::Replaced(o) | Delta::Sync(o) => {
                    indexer.update(o.clone()).unwrap();
                    last.insert(meta_namespace_key_func(o.as_ref()).unwrap(), Some(o));
                }
            }
        }
    }

    async fn pop_one(&mut self, during: Option<&Op>) {
        if self.fifo.is_empty() {
            if let Some(op) = during {
                self.produce(op);
            }
            return;
        }
        let fifo = self.fifo.clone();
        let indexer = self.indexer.clone();
        let mut last = std::mem::take(&mut self.last_popped);
        let mut this = Some(self);
        fifo.pop(|deltas, _| {
            if let (Some(op), Some(h)) = (during, this.as_mut()) {
                h.produce(op);
            }
            Self::apply(&indexer, &mut last, deltas);
            Ok::<_, Infallible>(())
        })
        .await
        .unwrap();
        if let Some(h) = this.take() {
            h.last_popped = last;
        }
    }

    async fn run(&mut self, ops: &[Op]) {
        for op in ops {
            match op {
                Op::Drain(n) => {
                    for _ in 0..*n {
                        self.pop_one(None).await;
                    }
                }
                Op::PopDuring(inner) => self.pop_one(Some(inner)).await,
                other => self.produce(other),
            }
        }
        while !self.fifo.is_empty() {
            self.pop_one(None).await;
        }
    }

    fn check(&self) {
        let store: BTreeMap<String, String> = self
            .indexer
            .list()
            .iter()
            .map(|o| {
                (
                    meta_namespace_key_func(o.as_ref()).unwrap(),
                    o.metadata.resource_version.clone().unwrap(),
                )
            })
            .collect();
        let model: BTreeMap<String, String> = self
            .model
            .iter()
            .map(|(k, o)| (k.clone(), o.metadata.resource_version.clone().unwrap()))
            .collect();
        assert_eq!(store, model, "store differs from the model");
        for (key, last) in &self.last_popped {
            match (self.model.get(key), last) {
                (Some(expected), Some(popped)) => {
                    assert!(
                        Arc::ptr_eq(expected, popped),
                        "{key}: last delta is not the final object"
                    )
                }
                (None, None) => {}
                (Some(_), None) => panic!("{key}: present, but its last delta is a delete"),
                (None, Some(_)) => panic!("{key}: deleted, but its last delta is not a delete"),
            }
        }
        for key in self.model.keys() {
            assert!(self.last_popped.contains_key(key), "{key}: present but never delivered");
        }
        // The namespace index agrees with the store.
        let indexed: usize = self
            .indexer
            .list_index_func_values(kube_informers_runtime::NAMESPACE_INDEX)
            .iter()
            .map(|ns| {
                self.indexer.index_keys(kube_informers_runtime::NAMESPACE_INDEX, ns).unwrap().len()
            })
            .sum();
        assert_eq!(indexed, self.indexer.len());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn fifo_into_store_matches_model(ops in proptest::collection::vec(op(), 0..40)) {
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let mut harness = Harness::new();
        rt.block_on(harness.run(&ops));
        harness.check();
        // Drained, so synced exactly when something populated the FIFO.
        prop_assert_eq!(harness.fifo.has_synced(), ops.iter().any(populates));
    }
}
