//! The FIFO's state behind its lock: per-key deltas, queue order, what is being processed,
//! and the initial-population count.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use futures::task::AtomicWaker;
use tracing::debug;

use super::delta::{Delta, Deltas};
use super::known::KnownObjects;
use crate::tombstone::{DeletedFinalStateUnknown, DeletedObject};

mod replace;

/// client-go `DeltaFIFO`'s fields, plus `in_flight` and arrival numbers.
///
/// Invariants: a key is in `items` iff it is in `queue`, exactly once; `queue` is ordered
/// by the first arrival number of each key's deltas.
pub(super) struct QueueState<K> {
    items: HashMap<Arc<str>, Deltas<K>>,
    queue: VecDeque<Arc<str>>,
    /// Keys popped and being processed, with the state they will have once processed
    /// (`None`: deleted). The FIFO treats them as known, since the consumer has not yet
    /// written them to its store; see the module docs.
    in_flight: HashMap<Arc<str>, Option<Arc<K>>>,
    /// Set by the first replace, add, update or delete.
    populated: bool,
    /// Keys of the first replace not yet processed.
    initial_population_count: usize,
    /// Of `initial_population_count`, how many are popped and being processed.
    initial_in_flight: usize,
    synced: bool,
    closed: bool,
    /// The arrival number of the next delta queued.
    next_arrival: u64,
    /// The last arrival number of the first replace: the initial list.
    initial_boundary: u64,
    /// A key of the initial list taken while the initial list is being processed leaves
    /// its deltas that arrived after the initial list queued, in their place in arrival
    /// order (see [`DeltaFifo::in_arrival_order`](super::DeltaFifo::in_arrival_order)).
    split_initial: bool,
    /// The relist being handed over object by object, if any (see [`replace`]).
    replacing: Option<Replacement>,
    /// The number of the last relist begun.
    replace_generation: u64,
    /// A paced producer waiting for a pop to finish ([`DeltaFifo::poll_room`](super::DeltaFifo::poll_room)).
    room: AtomicWaker,
}

/// The relist being handed over (see `replace.rs`): its number and the keys listed so far.
struct Replacement {
    generation: u64,
    listed: HashSet<String>,
}

/// What one pop took out of the queue.
pub(super) struct Taken<K> {
    pub(super) batch: Vec<Deltas<K>>,
    pub(super) keys: Vec<Arc<str>>,
    pub(super) counted: usize,
    pub(super) is_in_initial_list: bool,
}

impl<K> QueueState<K> {
    pub(super) fn new() -> Self {
        Self {
            items: HashMap::new(),
            queue: VecDeque::new(),
            in_flight: HashMap::new(),
            populated: false,
            initial_population_count: 0,
            initial_in_flight: 0,
            synced: false,
            closed: false,
            next_arrival: 1,
            initial_boundary: 0,
            split_initial: false,
            replacing: None,
            replace_generation: 0,
            room: AtomicWaker::new(),
        }
    }

    /// See [`split_initial`](Self::split_initial).
    pub(super) fn split_initial_list(&mut self) {
        self.split_initial = true;
    }

    fn arrival(&mut self) -> u64 {
        let arrival = self.next_arrival;
        self.next_arrival += 1;
        arrival
    }

    /// Queues `key` with `deltas` at its place by first arrival (at the back, unless the
    /// deltas arrived before some already queued).
    fn enqueue(&mut self, key: Arc<str>, deltas: Deltas<K>) {
        let first = deltas.first_arrival();
        let at = self.queue.partition_point(|queued| {
            self.items.get(queued).is_none_or(|d| d.first_arrival() <= first)
        });
        self.queue.insert(at, Arc::clone(&key));
        self.items.insert(key, deltas);
    }

    fn check_synced(&mut self) {
        if self.populated && self.initial_population_count == 0 {
            self.synced = true;
        }
    }

    /// Marks the FIFO populated by an add, update or delete (client-go does this before
    /// queueing).
    pub(super) fn mark_populated(&mut self) {
        self.populated = true;
        self.check_synced();
    }

    /// Appends `delta` to `key`'s deltas, queueing the key if it was not (client-go
    /// `queueActionLocked`).
    pub(super) fn queue_action(&mut self, key: &str, delta: Delta<K>) {
        let arrival = self.arrival();
        if let Some(deltas) = self.items.get_mut(key) {
            deltas.push(delta, arrival);
            return;
        }
        // Reuse the key allocation of a key being processed.
        let key: Arc<str> = match self.in_flight.get_key_value(key) {
            Some((existing, _)) => Arc::clone(existing),
            None => Arc::from(key),
        };
        self.queue.push_back(Arc::clone(&key));
        self.items.insert(key, Deltas::one(delta, arrival));
    }

    /// Whether a delete for `key` is news: the key is queued, being processed into
    /// existence, or known to the consumer (client-go `Delete`'s check, plus in-flight keys).
    pub(super) fn delete_is_relevant(
        &self,
        key: &str,
        known: Option<&dyn KnownObjects<K>>,
    ) -> bool {
        if self.items.contains_key(key) {
            return true;
        }
        match self.in_flight.get(key) {
            Some(state) => state.is_some(),
            None => known.is_some_and(|known| known.get_by_key(key).is_some()),
        }
    }

    /// Queues a tombstone for `key` with its newest state (queued, being processed or
    /// known), unless it has none or its newest delta is a delete already. Whether it did.
    pub(super) fn forget(&mut self, key: &str, known: Option<&dyn KnownObjects<K>>) -> bool {
        let last = match self.items.get(key).and_then(Deltas::newest) {
            Some(Delta::Deleted(_)) => return false,
            Some(delta) => Some(Arc::clone(delta.object())),
            None => match self.in_flight.get(key) {
                Some(state) => state.clone(),
                None => known.and_then(|known| known.get_by_key(key)),
            },
        };
        match last {
            Some(obj) => {
                self.queue_tombstone(key, obj);
                true
            }
            None => false,
        }
    }

    /// The newest state of `key`: its newest queued delta's object (none after a delete),
    /// else its in-flight state, else the known object if it can be shared
    /// ([`KnownObjects::get_shared`]).
    pub(super) fn newest(&self, key: &str, known: Option<&dyn KnownObjects<K>>) -> Option<Arc<K>> {
        match self.items.get(key).and_then(Deltas::newest) {
            Some(Delta::Deleted(_)) => None,
            Some(delta) => Some(Arc::clone(delta.object())),
            None => match self.in_flight.get(key) {
                Some(state) => state.clone(),
                None => known.and_then(|known| known.get_shared(key)),
            },
        }
    }

    fn queue_tombstone(&mut self, key: &str, obj: Arc<K>) {
        debug!(%key, "queueing tombstone for an object missing from a relist or forgotten");
        let tombstone = DeletedFinalStateUnknown { key: key.to_owned(), object: obj };
        self.queue_action(key, Delta::Deleted(DeletedObject::DeletedFinalStateUnknown(tombstone)));
    }

    /// Queues `Sync` for every known key that is neither queued nor being processed
    /// (client-go `Resync`/`syncKeyLocked`). Nothing while a relist is being handed over:
    /// it delivers every object anyway, and its tombstones are not made yet.
    pub(super) fn resync(&mut self, known: &dyn KnownObjects<K>) {
        if self.is_replacing() {
            debug!("resync skipped: a relist is being handed over");
            return;
        }
        for key in known.list_keys() {
            if self.items.contains_key(key.as_str()) || self.in_flight.contains_key(key.as_str()) {
                continue;
            }
            match known.get_by_key(&key) {
                Some(obj) => self.queue_action(&key, Delta::Sync(obj)),
                None => debug!(%key, "known key vanished during resync"),
            }
        }
    }

    /// Re-queues `deltas` under `key` unless the key is queued already (client-go
    /// `AddIfNotPresent`).
    pub(super) fn add_if_not_present(&mut self, key: &str, mut deltas: Deltas<K>) -> bool {
        if deltas.is_empty() || self.items.contains_key(key) {
            return false;
        }
        // Re-queued now: they arrive now, behind everything queued.
        self.next_arrival = deltas.renumber(self.next_arrival);
        let key: Arc<str> = Arc::from(key);
        self.queue.push_back(Arc::clone(&key));
        self.items.insert(key, deltas);
        true
    }

    /// Takes up to `max` keys from the front of the queue and marks them in flight. While
    /// the initial list is not fully taken, a batch stops at its end, so that
    /// `is_in_initial_list` is exact for the whole batch.
    pub(super) fn take(&mut self, max: usize) -> Option<Taken<K>> {
        if self.queue.is_empty() {
            return None;
        }
        let is_in_initial_list = !self.synced;
        let initial_left = self.initial_population_count - self.initial_in_flight;
        let limit = if initial_left > 0 { max.min(initial_left) } else { max };
        let mut batch = Vec::with_capacity(limit.min(self.queue.len()));
        let mut keys = Vec::with_capacity(batch.capacity());
        let mut later = Vec::new();
        while batch.len() < limit {
            let Some(key) = self.queue.pop_front() else { break };
            let Some(mut deltas) = self.items.remove(&key) else { continue };
            if self.split_initial
                && initial_left > 0
                && let Some(rest) = deltas.split_after(self.initial_boundary)
            {
                // Arrived after the initial list: delivered after it, in arrival order
                // with the keys that arrived meanwhile.
                later.push((Arc::clone(&key), rest));
            }
            self.in_flight.insert(Arc::clone(&key), deltas.final_state().cloned());
            keys.push(key);
            batch.push(deltas);
        }
        for (key, rest) in later {
            self.enqueue(key, rest);
        }
        let counted = batch.len().min(initial_left);
        self.initial_in_flight += counted;
        Some(Taken { batch, keys, counted, is_in_initial_list })
    }

    /// Called once the deltas taken for `keys` are processed.
    pub(super) fn finish(&mut self, keys: &[Arc<str>], counted: usize) {
        for key in keys {
            self.in_flight.remove(key);
        }
        self.initial_in_flight -= counted;
        self.initial_population_count -= counted;
        self.check_synced();
        self.room.wake();
    }

    pub(super) fn close(&mut self) {
        self.closed = true;
        self.room.wake();
    }

    /// Whether at most `bound` keys are queued or being processed, or the FIFO is closed;
    /// if not, `waker` is woken when a pop finishes or the FIFO closes.
    pub(super) fn has_room(&self, bound: usize, waker: &std::task::Waker) -> bool {
        self.room.register(waker);
        self.closed || self.queue.len() + self.in_flight.len() <= bound
    }

    pub(super) fn is_closed(&self) -> bool {
        self.closed
    }

    pub(super) fn has_synced(&self) -> bool {
        self.synced
    }

    pub(super) fn len(&self) -> usize {
        self.queue.len()
    }

    pub(super) fn list_keys(&self) -> Vec<String> {
        self.queue.iter().map(|key| key.to_string()).collect()
    }

    pub(super) fn get(&self, key: &str) -> Option<Deltas<K>> {
        self.items.get(key).cloned()
    }
}
