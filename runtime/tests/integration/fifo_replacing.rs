//! A relist handed to the DeltaFIFO object by object (`DeltaFifo::start_replace`): the
//! same deltas as client-go's `Replace` (delta_fifo_test.go cases, ported), delivered as
//! they are pushed, with `HasSynced` waiting for the end of the first list.

use std::convert::Infallible;
use std::sync::Arc;

use k8s_openapi::api::core::v1::ConfigMap;
use kube_informers_runtime::DeletedObject;
use kube_informers_runtime::fifo::{Delta, DeltaFifo, Deltas, FifoError};

use crate::fifo_delta_fifo::{obj, pop_rendered, val, with_known};

/// A delta as `kind(value)`, a tombstone as `tombstone(key,value)`.
fn render(deltas: &Deltas<ConfigMap>) -> Vec<String> {
    deltas
        .iter()
        .map(|d| match d {
            Delta::Added(o) => format!("added({})", val(o)),
            Delta::Updated(o) => format!("updated({})", val(o)),
            Delta::Deleted(DeletedObject::Object(o)) => format!("deleted({})", val(o)),
            Delta::Deleted(DeletedObject::DeletedFinalStateUnknown(t)) => {
                format!("tombstone({},{})", t.key, val(&t.object))
            }
            Delta::Replaced(o) => format!("replaced({})", val(o)),
            Delta::Sync(o) => format!("sync({})", val(o)),
        })
        .collect()
}

/// Pops one key: its deltas and whether they belong to the initial list.
async fn pop(f: &DeltaFifo<ConfigMap>) -> (Vec<String>, bool) {
    pop_rendered(f, render).await
}

// client-go: delta_fifo_test.go TestDeltaFIFO_ReplaceMakesDeletions (pre-existing delete),
// with the relist pushed object by object.
#[tokio::test]
async fn streamed_replace_makes_deletions() {
    let f = with_known(vec![obj("foo", 5), obj("bar", 6), obj("baz", 7)]);
    f.delete(DeletedObject::Object(obj("baz", 10))).unwrap();
    let mut relist = f.start_replace();
    relist.push(obj("foo", 5)).unwrap();
    relist.finish("0").unwrap();
    assert_eq!(pop(&f).await.0, ["deleted(10)"]);
    assert_eq!(pop(&f).await.0, ["replaced(5)"]);
    assert_eq!(pop(&f).await.0, ["tombstone(bar,6)"]);
    assert!(f.is_empty());
}

// client-go: delta_fifo_test.go TestDeltaFIFO_ReplaceMakesDeletions (known objects missing
// from the list get tombstones), with the listed object popped before the list ends.
#[tokio::test]
async fn streamed_replace_delivers_each_object_before_the_list_ends() {
    let f = with_known(vec![obj("foo", 5), obj("bar", 6), obj("baz", 7)]);
    let mut relist = f.start_replace();
    relist.push(obj("foo", 6)).unwrap();
    assert_eq!(relist.pushed(), 1);
    assert_eq!(pop(&f).await.0, ["replaced(6)"], "delivered while the list is read");
    assert!(f.is_empty());
    relist.finish("0").unwrap();
    // foo was listed, so no tombstone for it although it is no longer queued.
    assert_eq!(f.list_keys(), ["bar", "baz"]);
    assert_eq!(pop(&f).await.0, ["tombstone(bar,6)"]);
    assert_eq!(pop(&f).await.0, ["tombstone(baz,7)"]);
}

// client-go: delta_fifo_test.go TestDeltaFIFO_HasSynced (replace of a and b, popped one by
// one): with the relist pushed object by object, popping everything pushed so far is not
// enough; the first list has to end.
#[tokio::test]
async fn first_streamed_replace_syncs_only_once_finished_and_popped() {
    let f = DeltaFifo::<ConfigMap>::new(None);
    let mut relist = f.start_replace();
    relist.push(obj("a", 1)).unwrap();
    assert_eq!(pop(&f).await, (vec!["replaced(1)".to_string()], true));
    relist.push(obj("b", 2)).unwrap();
    assert_eq!(pop(&f).await, (vec!["replaced(2)".to_string()], true));
    assert!(!f.has_synced(), "the initial list has not ended");
    relist.push(obj("c", 3)).unwrap();
    relist.finish("7").unwrap();
    assert!(!f.has_synced(), "c is not processed yet");
    assert_eq!(pop(&f).await, (vec!["replaced(3)".to_string()], true));
    assert!(f.has_synced());

    // An empty first list syncs at once, as an empty replace does.
    let f = DeltaFifo::<ConfigMap>::new(None);
    f.start_replace().finish("1").unwrap();
    assert!(f.has_synced());
}

// client-go: delta_fifo_test.go TestDeltaFIFO_HasSynced (a pop in flight counts until its
// processing returns): a key of the initial list popped before the list ends keeps the
// FIFO unsynced until it is processed.
#[tokio::test]
async fn first_streamed_replace_waits_for_a_key_in_flight() {
    let f = DeltaFifo::<ConfigMap>::new(None);
    let mut relist = f.start_replace();
    relist.push(obj("a", 1)).unwrap();
    let mut relist = Some(relist);
    f.pop(|_, initial| {
        assert!(initial);
        relist.take().unwrap().finish("1").unwrap();
        assert!(!f.has_synced(), "a is still being processed");
        Ok::<_, Infallible>(())
    })
    .await
    .unwrap();
    assert!(f.has_synced());
}

// No client-go counterpart (its Replace takes the whole list): a list that fails part way
// leaves what it read queued, with no tombstones, and the first list still to come.
#[tokio::test]
async fn given_up_streamed_replace_keeps_what_it_queued_without_tombstones() {
    let f = with_known(vec![obj("foo", 5), obj("bar", 6)]);
    let mut relist = f.start_replace();
    relist.push(obj("foo", 6)).unwrap();
    drop(relist);
    assert_eq!(f.list_keys(), ["foo"], "no tombstone for bar");
    assert_eq!(pop(&f).await.0, ["replaced(6)"]);

    let f = DeltaFifo::<ConfigMap>::new(None);
    let mut relist = f.start_replace();
    relist.push(obj("a", 1)).unwrap();
    drop(relist);
    assert_eq!(pop(&f).await, (vec!["replaced(1)".to_string()], true));
    assert!(!f.has_synced(), "no list has ended");
    let mut relist = f.start_replace();
    relist.push(obj("a", 1)).unwrap();
    relist.push(obj("b", 2)).unwrap();
    relist.finish("2").unwrap();
    assert_eq!(pop(&f).await, (vec!["replaced(1)".to_string()], true));
    assert!(!f.has_synced());
    assert_eq!(pop(&f).await, (vec!["replaced(2)".to_string()], true));
    assert!(f.has_synced());
}

// A later relist supersedes one still being handed over: the older one queues nothing
// more and makes no tombstones; the newer one's tombstones cover what the older pushed.
#[tokio::test]
async fn a_later_relist_supersedes_one_being_handed_over() {
    let f = with_known(vec![]);
    let mut older = f.start_replace();
    older.push(obj("a", 1)).unwrap();
    let mut newer = f.start_replace();
    assert_eq!(older.push(obj("b", 2)), Err(FifoError::Superseded));
    assert_eq!(older.finish("1"), Err(FifoError::Superseded));
    newer.push(obj("c", 3)).unwrap();
    newer.finish("2").unwrap();
    assert_eq!(pop(&f).await.0, ["replaced(1)", "tombstone(a,1)"]);
    assert_eq!(pop(&f).await.0, ["replaced(3)"]);
    assert!(f.is_empty());

    // A whole replace supersedes too.
    let f = with_known(vec![]);
    let mut older = f.start_replace();
    f.replace(vec![obj("x", 1)], "3").unwrap();
    assert_eq!(older.push(obj("y", 2)), Err(FifoError::Superseded));
    assert_eq!(f.list_keys(), ["x"]);
}

// client-go: delta_fifo_test.go TestDeltaFIFO_ResyncNonExisting's premise (a resync queues
// Sync for known keys): while a relist is handed over, it queues nothing, since the relist
// delivers every object and its tombstones are not made yet.
#[tokio::test]
async fn resync_waits_for_a_streamed_relist_to_end() {
    let f = with_known(vec![obj("foo", 5), obj("bar", 6)]);
    let mut relist = f.start_replace();
    f.resync().unwrap();
    assert!(f.is_empty(), "no Sync while the relist is handed over");
    relist.push(obj("foo", 5)).unwrap();
    relist.finish("0").unwrap();
    assert_eq!(f.list_keys(), ["foo", "bar"]);
    assert_eq!(pop(&f).await.0, ["replaced(5)"]);
    assert_eq!(pop(&f).await.0, ["tombstone(bar,6)"]);
    f.resync().unwrap();
    assert_eq!(pop(&f).await.0, ["sync(5)"], "resyncs again once the relist ended");
}

// client-go: delta_fifo_test.go TestDeltaFIFO_KeyOf's premise: an object without a name has
// no key; pushing it queues nothing and the relist goes on.
#[tokio::test]
async fn pushing_a_nameless_object_is_refused_and_the_relist_goes_on() {
    let f = DeltaFifo::<ConfigMap>::new(None);
    let mut relist = f.start_replace();
    assert!(matches!(relist.push(Arc::new(ConfigMap::default())), Err(FifoError::Key(_))));
    relist.push(obj("a", 1)).unwrap();
    assert_eq!(relist.pushed(), 1);
    relist.finish("1").unwrap();
    assert_eq!(f.list_keys(), ["a"]);
}

/// A waker that counts its wakes.
#[derive(Default)]
struct Wakes(std::sync::atomic::AtomicUsize);

impl futures::task::ArcWake for Wakes {
    fn wake_by_ref(arc_self: &Arc<Self>) {
        arc_self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

// No client-go counterpart: how a reflector streaming a relist waits for the consumer
// (`DeltaFifo::poll_room`). Room counts the keys queued and the keys being processed.
#[tokio::test]
async fn room_counts_queued_and_processing_keys_and_wakes_when_a_pop_ends() {
    use std::task::{Context, Poll};
    let f = with_known(vec![]);
    let wakes = Arc::new(Wakes::default());
    let waker = futures::task::waker(wakes.clone());
    let mut cx = Context::from_waker(&waker);
    let mut relist = f.start_replace();
    relist.push(obj("a", 1)).unwrap();
    assert_eq!(f.poll_room(1, &mut cx), Poll::Ready(()));
    relist.push(obj("b", 1)).unwrap();
    assert_eq!(f.poll_room(1, &mut cx), Poll::Pending, "two queued, room for one");

    f.pop(|_, _| {
        assert_eq!(f.poll_room(1, &mut cx), Poll::Pending, "one queued and one processing");
        Ok::<(), Infallible>(())
    })
    .await
    .unwrap();
    assert_eq!(wakes.0.load(std::sync::atomic::Ordering::SeqCst), 1, "woken as the pop ended");
    assert_eq!(f.poll_room(1, &mut cx), Poll::Ready(()), "one queued");

    relist.push(obj("c", 1)).unwrap();
    assert_eq!(f.poll_room(1, &mut cx), Poll::Pending);
    f.close();
    assert_eq!(wakes.0.load(std::sync::atomic::Ordering::SeqCst), 2, "woken as it closed");
    assert_eq!(f.poll_room(1, &mut cx), Poll::Ready(()), "a closed FIFO never holds a list back");
    relist.finish("0").unwrap();
}
