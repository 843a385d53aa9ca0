//! Ports of client-go `delta_fifo_test.go`.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::Arc;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::ObjectMeta;
use kube_informers_runtime::fifo::{Delta, DeltaFifo, DeltaType, Deltas, KnownObjects};
use kube_informers_runtime::store::Indexer;
use kube_informers_runtime::{DeletedFinalStateUnknown, DeletedObject};

/// client-go's `mkFifoObj(name, val)`: a cluster-scoped ConfigMap carrying `val`.
pub(crate) fn obj(name: &str, val: u32) -> Arc<ConfigMap> {
    Arc::new(ConfigMap {
        metadata: ObjectMeta { name: Some(name.into()), ..Default::default() },
        data: Some([("val".to_string(), val.to_string())].into()),
        ..Default::default()
    })
}

/// The `val` an [`obj`] carries.
pub(crate) fn val(o: &ConfigMap) -> u32 {
    o.data.as_ref().and_then(|d| d.get("val")).and_then(|v| v.parse().ok()).unwrap_or(0)
}

/// client-go's `literalListerGetter`: known objects in a fixed order.
struct Literal(Vec<Arc<ConfigMap>>);

impl KnownObjects<ConfigMap> for Literal {
    fn list_keys(&self) -> Vec<String> {
        self.0.iter().map(|o| o.metadata.name.clone().unwrap_or_default()).collect()
    }
    fn get_by_key(&self, key: &str) -> Option<Arc<ConfigMap>> {
        self.0.iter().find(|o| o.metadata.name.as_deref() == Some(key)).cloned()
    }
}

/// A FIFO whose known objects are `known`, in that order.
pub(crate) fn with_known(known: Vec<Arc<ConfigMap>>) -> DeltaFifo<ConfigMap> {
    DeltaFifo::new(Some(Arc::new(Literal(known))))
}

/// A comparable rendering of a delta: kind, value, and the tombstone key if any.
#[derive(Debug, PartialEq, Eq)]
enum D {
    Added(u32),
    Updated(u32),
    Deleted(u32),
    Tombstone(&'static str, u32),
    Replaced(u32),
    Sync(u32),
}

fn render(deltas: &Deltas<ConfigMap>) -> Vec<D> {
    deltas
        .iter()
        .map(|d| match d {
            Delta::Added(o) => D::Added(val(o)),
            Delta::Updated(o) => D::Updated(val(o)),
            Delta::Deleted(DeletedObject::Object(o)) => D::Deleted(val(o)),
            Delta::Deleted(DeletedObject::DeletedFinalStateUnknown(t)) => {
                D::Tombstone(Box::leak(t.key.clone().into_boxed_str()), val(&t.object))
            }
            Delta::Replaced(o) => D::Replaced(val(o)),
            Delta::Sync(o) => D::Sync(val(o)),
        })
        .collect()
}

async fn pop(f: &DeltaFifo<ConfigMap>) -> (Vec<D>, bool) {
    pop_rendered(f, render).await
}

/// Pops one key: its deltas as `render` shows them, and whether they belong to the
/// initial list.
pub(crate) async fn pop_rendered<R>(
    f: &DeltaFifo<ConfigMap>,
    render: fn(&Deltas<ConfigMap>) -> R,
) -> (R, bool) {
    let mut out = None;
    f.pop(|deltas, initial| {
        out = Some((render(&deltas), initial));
        Ok::<_, Infallible>(())
    })
    .await
    .unwrap();
    out.unwrap()
}

fn del(o: Arc<ConfigMap>) -> DeletedObject<ConfigMap> {
    DeletedObject::Object(o)
}

// client-go: delta_fifo_test.go TestDeltaFIFO_basic (per-producer order is kept)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn basic_order_per_producer() {
    let f = DeltaFifo::<ConfigMap>::new(None);
    const AMOUNT: u32 = 300;
    let producers: Vec<_> = ["a", "b"]
        .into_iter()
        .map(|prefix| {
            let f = f.clone();
            std::thread::spawn(move || {
                for i in 0..AMOUNT {
                    f.add(obj(&format!("{prefix}-{i}"), i + 1)).unwrap();
                }
            })
        })
        .collect();
    let mut last: BTreeMap<char, u32> = BTreeMap::new();
    for _ in 0..AMOUNT * 2 {
        let mut got = None;
        f.pop(|d, _| {
            let o = d.newest().unwrap().object().clone();
            got = Some((o.metadata.name.clone().unwrap().chars().next().unwrap(), val(&o)));
            Ok::<_, Infallible>(())
        })
        .await
        .unwrap();
        let (producer, v) = got.unwrap();
        let prev = last.insert(producer, v).unwrap_or(0);
        assert!(v > prev, "producer {producer}: got {v} after {prev}");
    }
    for p in producers {
        p.join().unwrap();
    }
    assert!(f.is_empty());
}

// client-go: delta_fifo_test.go TestDeltaFIFO_replaceWithDeleteDeltaIn
#[tokio::test]
async fn replace_with_delete_delta_in() {
    let f = with_known(vec![obj("foo", 1)]);
    f.delete(del(obj("foo", 1))).unwrap();
    f.replace(vec![obj("foo", 2)], "").unwrap();
    assert_eq!(pop(&f).await.0, [D::Deleted(1), D::Replaced(2)]);
}

// client-go: delta_fifo_test.go TestDeltaFIFOW_ReplaceMakesDeletionsForObjectsOnlyInQueue
#[tokio::test]
async fn replace_makes_deletions_for_objects_only_in_queue() {
    type Ops = fn(&DeltaFifo<ConfigMap>);
    let cases: Vec<(&str, Ops, Vec<D>)> = vec![
        (
            "Added object should be deleted on Replace",
            |f| {
                f.add(obj("foo", 2)).unwrap();
                f.replace(vec![], "0").unwrap();
            },
            vec![D::Added(2), D::Tombstone("foo", 2)],
        ),
        (
            "Replaced object should have only a single Delete",
            |f| {
                f.add(obj("foo", 2)).unwrap();
                f.replace(vec![obj("foo", 2)], "0").unwrap();
                f.replace(vec![], "0").unwrap();
            },
            vec![D::Added(2), D::Replaced(2), D::Tombstone("foo", 2)],
        ),
        (
            "Deleted object should have only a single Delete",
            |f| {
                f.add(obj("foo", 2)).unwrap();
                f.delete(del(obj("foo", 2))).unwrap();
                f.replace(vec![], "0").unwrap();
            },
            vec![D::Added(2), D::Deleted(2)],
        ),
        (
            "Synced objects should have a single delete",
            |f| {
                f.add(obj("foo", 2)).unwrap();
                f.replace(vec![obj("foo", 2)], "0").unwrap();
                f.replace(vec![obj("foo", 2)], "0").unwrap();
                f.replace(vec![], "0").unwrap();
            },
            vec![D::Added(2), D::Replaced(2), D::Replaced(2), D::Tombstone("foo", 2)],
        ),
        (
            "Added objects should have a single delete on multiple Replaces",
            |f| {
                f.add(obj("foo", 2)).unwrap();
                f.replace(vec![], "0").unwrap();
                f.replace(vec![], "1").unwrap();
            },
            vec![D::Added(2), D::Tombstone("foo", 2)],
        ),
        (
            "Added and deleted and added object should be deleted",
            |f| {
                f.add(obj("foo", 2)).unwrap();
                f.delete(del(obj("foo", 2))).unwrap();
                f.add(obj("foo", 3)).unwrap();
                f.replace(vec![], "0").unwrap();
            },
            vec![D::Added(2), D::Deleted(2), D::Added(3), D::Tombstone("foo", 3)],
        ),
    ];
    for (name, ops, expected) in cases {
        for f in [with_known(vec![]), DeltaFifo::new(None)] {
            ops(&f);
            assert_eq!(pop(&f).await.0, expected, "{name}");
            assert!(f.is_empty(), "{name}: extra deltas {:?}", f.list_keys());
        }
    }
}

// client-go: delta_fifo_test.go TestDeltaFIFO_addUpdate
#[tokio::test]
async fn add_update() {
    let f = DeltaFifo::<ConfigMap>::new(None);
    f.add(obj("foo", 10)).unwrap();
    f.update(obj("foo", 12)).unwrap();
    f.delete(del(obj("foo", 15))).unwrap();
    assert_eq!(f.list_keys(), ["foo"]);
    assert_eq!(
        render(&f.get_by_key("foo").unwrap()),
        [D::Added(10), D::Updated(12), D::Deleted(15)]
    );
    let (deltas, _) = pop(&f).await;
    assert_eq!(deltas.last(), Some(&D::Deleted(15)));
    assert!(f.get_by_key("foo").is_none());
    assert!(f.is_empty());
}

// client-go: delta_fifo_test.go TestDeltaFIFO_enqueueingNoLister
#[tokio::test]
async fn enqueueing_no_lister() {
    let f = DeltaFifo::<ConfigMap>::new(None);
    f.add(obj("foo", 10)).unwrap();
    f.update(obj("bar", 15)).unwrap();
    f.add(obj("qux", 17)).unwrap();
    f.delete(del(obj("qux", 18))).unwrap();
    // Not queued: "baz" is neither queued nor known.
    f.delete(del(obj("baz", 20))).unwrap();
    let mut newest = Vec::new();
    for _ in 0..3 {
        newest.push(pop(&f).await.0.pop().unwrap());
    }
    assert_eq!(newest, [D::Added(10), D::Updated(15), D::Deleted(18)]);
    assert!(f.is_empty());
}

// client-go: delta_fifo_test.go TestDeltaFIFO_enqueueingWithLister
#[tokio::test]
async fn enqueueing_with_lister() {
    let f = with_known(vec![obj("foo", 5), obj("bar", 6), obj("baz", 7)]);
    f.add(obj("foo", 10)).unwrap();
    f.update(obj("bar", 15)).unwrap();
    // Queued: "baz" is known.
    f.delete(del(obj("baz", 20))).unwrap();
    let mut newest = Vec::new();
    for _ in 0..3 {
        newest.push(pop(&f).await.0.pop().unwrap());
    }
    assert_eq!(newest, [D::Added(10), D::Updated(15), D::Deleted(20)]);
    assert!(f.is_empty());
}

// client-go: delta_fifo_test.go TestDeltaFIFO_addReplace
#[tokio::test]
async fn add_replace() {
    let f = DeltaFifo::<ConfigMap>::new(None);
    f.add(obj("foo", 10)).unwrap();
    f.replace(vec![obj("foo", 15)], "0").unwrap();
    assert_eq!(pop(&f).await.0, [D::Added(10), D::Replaced(15)]);
    assert!(f.is_empty());
}

// client-go: delta_fifo_test.go TestDeltaFIFO_ResyncNonExisting (resync skips queued keys)
#[test]
fn resync_non_existing() {
    let f = with_known(vec![obj("foo", 5)]);
    f.delete(del(obj("foo", 10))).unwrap();
    f.resync().unwrap();
    assert_eq!(render(&f.get_by_key("foo").unwrap()), [D::Deleted(10)]);
}

// client-go: delta_fifo_test.go TestDeltaFIFO_Resync
#[test]
fn resync_queues_sync_for_known_keys() {
    let f = with_known(vec![obj("foo", 5)]);
    f.resync().unwrap();
    assert_eq!(render(&f.get_by_key("foo").unwrap()), [D::Sync(5)]);
    // Without known objects a resync does nothing.
    let f = DeltaFifo::<ConfigMap>::new(None);
    f.resync().unwrap();
    assert!(f.is_empty());
}

// client-go: delta_fifo_test.go TestDeltaFIFO_UpdateResyncRace (resync skips queued keys)
#[tokio::test]
async fn update_resync_race() {
    let f = with_known(vec![obj("foo", 5)]);
    f.update(obj("foo", 6)).unwrap();
    f.resync().unwrap();
    assert_eq!(pop(&f).await.0, [D::Updated(6)]);
    assert!(f.is_empty());
}

// client-go: delta_fifo_test.go TestDeltaFIFO_DeleteExistingNonPropagated
#[test]
fn delete_existing_non_propagated() {
    let f = with_known(vec![]);
    f.add(obj("foo", 5)).unwrap();
    f.delete(del(obj("foo", 6))).unwrap();
    assert_eq!(render(&f.get_by_key("foo").unwrap()), [D::Added(5), D::Deleted(6)]);
}

// client-go: delta_fifo.go dedupDeltas / isDeletionDup
#[test]
fn consecutive_deletes_collapse_keeping_the_non_tombstone() {
    // Object delete, then tombstone: the object delete is kept.
    let f = with_known(vec![obj("foo", 1)]);
    f.delete(del(obj("foo", 2))).unwrap();
    f.replace(vec![], "1").unwrap();
    assert_eq!(render(&f.get_by_key("foo").unwrap()), [D::Deleted(2)]);

    // Tombstone, then object delete: the object delete replaces the tombstone.
    let f = with_known(vec![obj("foo", 1)]);
    f.replace(vec![], "1").unwrap();
    assert_eq!(render(&f.get_by_key("foo").unwrap()), [D::Tombstone("foo", 1)]);
    f.delete(del(obj("foo", 3))).unwrap();
    assert_eq!(render(&f.get_by_key("foo").unwrap()), [D::Deleted(3)]);

    // Two object deletes: the first is kept.
    let f = with_known(vec![obj("foo", 1)]);
    f.delete(del(obj("foo", 4))).unwrap();
    f.delete(del(obj("foo", 5))).unwrap();
    assert_eq!(render(&f.get_by_key("foo").unwrap()), [D::Deleted(4)]);

    // Two tombstones: the newer one is kept.
    let f = DeltaFifo::<ConfigMap>::new(None);
    f.add(obj("foo", 6)).unwrap();
    let tombstone = |v| {
        DeletedObject::DeletedFinalStateUnknown(DeletedFinalStateUnknown {
            key: "foo".into(),
            object: obj("foo", v),
        })
    };
    f.delete(tombstone(7)).unwrap();
    f.delete(tombstone(8)).unwrap();
    assert_eq!(render(&f.get_by_key("foo").unwrap()), [D::Added(6), D::Tombstone("foo", 8)]);
}

// client-go: delta_fifo_test.go TestDeltaFIFO_ReplaceMakesDeletions (tombstones on replace)
#[tokio::test]
async fn replace_makes_deletions() {
    let known = || vec![obj("foo", 5), obj("bar", 6), obj("baz", 7)];

    // Pre-existing delete.
    let f = with_known(known());
    f.delete(del(obj("baz", 10))).unwrap();
    f.replace(vec![obj("foo", 5)], "0").unwrap();
    assert_eq!(pop(&f).await.0, [D::Deleted(10)]);
    assert_eq!(pop(&f).await.0, [D::Replaced(5)]);
    assert_eq!(pop(&f).await.0, [D::Tombstone("bar", 6)]);
    assert!(f.is_empty());

    // Pre-existing add: the tombstone carries the queued object.
    let f = with_known(known());
    f.add(obj("baz", 10)).unwrap();
    f.replace(vec![obj("foo", 5)], "0").unwrap();
    assert_eq!(pop(&f).await.0, [D::Added(10), D::Tombstone("baz", 10)]);
    assert_eq!(pop(&f).await.0, [D::Replaced(5)]);
    assert_eq!(pop(&f).await.0, [D::Tombstone("bar", 6)]);
    assert!(f.is_empty());

    // Deleted and re-created in the queue, then gone from the relist: the tombstone
    // carries the newest queued object, not the known one.
    let f = with_known(known());
    f.delete(del(obj("bar", 6))).unwrap();
    f.add(obj("bar", 100)).unwrap();
    f.replace(vec![obj("foo", 5)], "0").unwrap();
    assert_eq!(pop(&f).await.0, [D::Deleted(6), D::Added(100), D::Tombstone("bar", 100)]);
    assert_eq!(pop(&f).await.0, [D::Replaced(5)]);
    assert_eq!(pop(&f).await.0, [D::Tombstone("baz", 7)]);
    assert!(f.is_empty());

    // Replaced first, so the delete uses the latest version.
    let f = with_known(known());
    f.replace(vec![obj("bar", 100), obj("foo", 5)], "0").unwrap();
    f.replace(vec![obj("foo", 5)], "0").unwrap();
    assert_eq!(pop(&f).await.0, [D::Replaced(100), D::Tombstone("bar", 100)]);
    assert_eq!(pop(&f).await.0, [D::Replaced(5), D::Replaced(5)]);
    assert_eq!(pop(&f).await.0, [D::Tombstone("baz", 7)]);
    assert!(f.is_empty());

    // Without known objects, only queued keys get tombstones.
    let f = DeltaFifo::<ConfigMap>::new(None);
    f.add(obj("baz", 10)).unwrap();
    f.replace(vec![obj("foo", 5)], "0").unwrap();
    assert_eq!(pop(&f).await.0, [D::Added(10), D::Tombstone("baz", 10)]);
    assert_eq!(pop(&f).await.0, [D::Replaced(5)]);
    assert!(f.is_empty());
}

// client-go: delta_fifo_test.go TestDeltaFIFO_ReplaceMakesDeletionsReplaced
#[tokio::test]
async fn replace_makes_deletions_replaced() {
    let f = with_known(vec![obj("foo", 5), obj("bar", 6), obj("baz", 7)]);
    f.delete(del(obj("baz", 10))).unwrap();
    f.replace(vec![obj("foo", 6)], "0").unwrap();
    assert_eq!(pop(&f).await.0, [D::Deleted(10)]);
    assert_eq!(pop(&f).await.0, [D::Replaced(6)]);
    assert_eq!(pop(&f).await.0, [D::Tombstone("bar", 6)]);
}

// client-go: delta_fifo_test.go TestDeltaFIFO_ReplaceDeltaType
#[tokio::test]
async fn replace_delta_type() {
    let f = with_known(vec![obj("foo", 5)]);
    f.replace(vec![obj("foo", 5)], "0").unwrap();
    let mut kinds = None;
    f.pop(|d, _| {
        kinds = Some(d.kinds());
        Ok::<_, Infallible>(())
    })
    .await
    .unwrap();
    assert_eq!(kinds.unwrap(), [DeltaType::Replaced]);
}

// client-go: delta_fifo_test.go TestDeltaFIFO_HasSyncedCorrectOnDeletion
#[tokio::test]
async fn has_synced_correct_on_deletion() {
    let f = with_known(vec![obj("foo", 5), obj("bar", 6), obj("baz", 7)]);
    f.replace(vec![obj("foo", 5)], "0").unwrap();
    let expected =
        [vec![D::Replaced(5)], vec![D::Tombstone("bar", 6)], vec![D::Tombstone("baz", 7)]];
    for e in expected {
        assert!(!f.has_synced());
        let (got, initial) = pop(&f).await;
        assert_eq!(got, e);
        assert!(initial, "expected an initial-list item");
    }
    assert!(f.has_synced());
}

// client-go: delta_fifo_test.go TestDeltaFIFO_detectLineJumpers
#[tokio::test]
async fn detect_line_jumpers() {
    let f = DeltaFifo::<ConfigMap>::new(None);
    f.add(obj("foo", 10)).unwrap();
    f.add(obj("bar", 1)).unwrap();
    f.add(obj("foo", 11)).unwrap();
    f.add(obj("foo", 13)).unwrap();
    f.add(obj("zab", 30)).unwrap();
    assert_eq!(pop(&f).await.0.pop(), Some(D::Added(13)));
    f.add(obj("foo", 14)).unwrap(); // foo must not jump back in line
    assert_eq!(pop(&f).await.0.pop(), Some(D::Added(1)));
    assert_eq!(pop(&f).await.0.pop(), Some(D::Added(30)));
    assert_eq!(pop(&f).await.0.pop(), Some(D::Added(14)));
}

// client-go: delta_fifo_test.go TestDeltaFIFO_KeyOf (tombstones keep their own key)
#[test]
fn key_of_tombstone_is_its_key() {
    let f = DeltaFifo::<ConfigMap>::new(None);
    f.add(obj("A", 1)).unwrap();
    let tombstone = DeletedObject::DeletedFinalStateUnknown(DeletedFinalStateUnknown {
        key: "A".into(),
        object: obj("renamed", 2),
    });
    f.delete(tombstone).unwrap();
    assert_eq!(f.list_keys(), ["A"]);
    assert_eq!(render(&f.get_by_key("A").unwrap()), [D::Added(1), D::Tombstone("A", 2)]);
    // A nameless object has no key.
    assert!(f.add(Arc::new(ConfigMap::default())).is_err());
    assert!(f.replace(vec![obj("x", 1), Arc::new(ConfigMap::default())], "1").is_err());
    assert_eq!(f.list_keys(), ["A"], "a failed replace queues nothing");
}

// client-go: delta_fifo_test.go TestDeltaFIFO_HasSynced
#[tokio::test]
async fn has_synced_table() {
    type Action = fn(&DeltaFifo<ConfigMap>) -> bool; // returns whether to pop once
    let replace_ab: Action = |f| {
        f.replace(vec![obj("a", 1), obj("b", 2)], "0").unwrap();
        false
    };
    let pop_once: Action = |_| true;
    let cases: Vec<(Vec<Action>, bool)> = vec![
        (vec![], false),
        (
            vec![|f| {
                f.add(obj("a", 1)).unwrap();
                false
            }],
            true,
        ),
        (
            vec![|f| {
                f.replace(vec![], "0").unwrap();
                false
            }],
            true,
        ),
        (vec![replace_ab], false),
        (vec![replace_ab, pop_once], false),
        (vec![replace_ab, pop_once, pop_once], true),
        (
            // Duplicate keys in one list count once.
            vec![
                |f| {
                    f.replace(vec![obj("a", 1), obj("a", 2)], "0").unwrap();
                    false
                },
                pop_once,
            ],
            true,
        ),
    ];
    for (i, (actions, expected)) in cases.into_iter().enumerate() {
        let f = DeltaFifo::<ConfigMap>::new(None);
        for action in actions {
            if action(&f) {
                pop(&f).await;
            }
        }
        assert_eq!(f.has_synced(), expected, "case {i}");
    }
}

#[tokio::test]
async fn works_with_an_indexer_as_known_objects() {
    let indexer = Indexer::<ConfigMap>::default();
    indexer.add(obj("stale", 1)).unwrap();
    indexer.add(obj("kept", 2)).unwrap();
    let f = DeltaFifo::new(Some(Arc::new(indexer.clone()) as Arc<dyn KnownObjects<ConfigMap>>));
    f.replace(vec![obj("kept", 3)], "9").unwrap();
    assert_eq!(f.list_keys(), ["kept", "stale"]);
    assert_eq!(render(&f.get_by_key("stale").unwrap()), [D::Tombstone("stale", 1)]);
    f.resync().unwrap();
    assert_eq!(f.len(), 2, "resync skips queued keys");
}

// No client-go counterpart: client-go cannot skip an object that does not decode. A key
// forgotten this way gets the tombstone a relist without it would queue.
#[test]
fn forget_queues_a_tombstone_with_the_last_known_state() {
    // Known only to the consumer: the tombstone carries the known object.
    let f = with_known(vec![obj("foo", 1)]);
    f.forget("foo");
    assert_eq!(render(&f.get_by_key("foo").unwrap()), [D::Tombstone("foo", 1)]);

    // Queued: the tombstone carries the newest queued state.
    let f = with_known(vec![obj("foo", 1)]);
    f.update(obj("foo", 2)).unwrap();
    f.forget("foo");
    assert_eq!(render(&f.get_by_key("foo").unwrap()), [D::Updated(2), D::Tombstone("foo", 2)]);

    // Unknown, or already queued as deleted: nothing to forget.
    let f = with_known(vec![]);
    f.forget("foo");
    assert!(f.get_by_key("foo").is_none());
    let f = with_known(vec![obj("foo", 1)]);
    f.delete(del(obj("foo", 3))).unwrap();
    f.forget("foo");
    assert_eq!(render(&f.get_by_key("foo").unwrap()), [D::Deleted(3)]);
}
