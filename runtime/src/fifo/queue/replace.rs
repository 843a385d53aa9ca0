//! A relist in the queue (client-go `DeltaFIFO.Replace`), in three steps so that it can
//! also be handed over object by object: [`QueueState::begin_replace`], one
//! [`QueueState::push_replaced`] per listed object, then [`QueueState::finish_replace`]
//! (or [`QueueState::abort_replace`]). [`QueueState::replace`] runs the three under one lock.

use std::collections::HashSet;
use std::sync::Arc;

use tracing::debug;

use super::{QueueState, Replacement};
use crate::fifo::delta::Delta;
use crate::fifo::known::KnownObjects;

impl<K> QueueState<K> {
    /// Queues a whole relist: `Replaced` for each listed object, then a tombstone for each
    /// key that is queued, being processed or known, and absent from the list. `list` holds
    /// precomputed keys.
    pub(in crate::fifo) fn replace(
        &mut self,
        list: Vec<(String, Arc<K>)>,
        known: Option<&dyn KnownObjects<K>>,
    ) {
        let generation = self.begin_replace();
        for (key, obj) in list {
            self.push_replaced(generation, key, obj);
        }
        self.finish_replace(generation, known);
    }

    /// Starts a relist and returns its number. A relist still being handed over is
    /// superseded: its later pushes and its finish are refused, and it makes no
    /// tombstones. Until the relist finishes, a [`resync`](Self::resync) queues nothing.
    pub(in crate::fifo) fn begin_replace(&mut self) -> u64 {
        self.replace_generation += 1;
        if !self.populated {
            // Everything the first relist queues is part of the initial list, however late
            // it arrives: the boundary is set where it finishes.
            self.initial_boundary = u64::MAX;
        }
        self.replacing =
            Some(Replacement { generation: self.replace_generation, listed: HashSet::new() });
        self.replace_generation
    }

    fn current(&mut self, generation: u64) -> Option<&mut Replacement> {
        self.replacing.as_mut().filter(|replacing| replacing.generation == generation)
    }

    /// Queues `Replaced` for one listed object of relist `generation`. Whether it was
    /// queued: `false` when a later relist superseded this one.
    pub(in crate::fifo) fn push_replaced(
        &mut self,
        generation: u64,
        key: String,
        obj: Arc<K>,
    ) -> bool {
        if self.current(generation).is_none() {
            return false;
        }
        if !self.populated && !self.items.contains_key(key.as_str()) {
            // A key of the initial list, newly queued: to be processed before has_synced.
            self.initial_population_count += 1;
        }
        self.queue_action(&key, Delta::Replaced(obj));
        if let Some(replacing) = self.current(generation) {
            replacing.listed.insert(key);
        }
        true
    }

    /// Ends relist `generation`: a tombstone for every key that is queued, being processed
    /// or known, and was not listed. The first relist also marks the queue populated.
    /// Whether it ended: `false` when a later relist superseded this one.
    pub(in crate::fifo) fn finish_replace(
        &mut self,
        generation: u64,
        known: Option<&dyn KnownObjects<K>>,
    ) -> bool {
        if self.current(generation).is_none() {
            return false;
        }
        let Some(Replacement { listed, .. }) = self.replacing.take() else { return false };

        // Queued keys absent from the list: the tombstone carries the newest queued object.
        let queued_gone: Vec<(Arc<str>, Arc<K>)> = self
            .queue
            .iter()
            .filter(|key| !listed.contains(&***key))
            .filter_map(|key| {
                let newest = self.items.get(key)?.newest()?;
                Some((Arc::clone(key), Arc::clone(newest.object())))
            })
            .collect();
        for (key, obj) in queued_gone {
            self.queue_tombstone(&key, obj);
        }

        // Keys being processed into existence: the consumer has not written them yet, so
        // the known objects may not show them.
        let mut in_flight_gone: Vec<(Arc<str>, Arc<K>)> = self
            .in_flight
            .iter()
            .filter(|(key, _)| !listed.contains(&***key) && !self.items.contains_key(&***key))
            .filter_map(|(key, state)| state.as_ref().map(|obj| (Arc::clone(key), Arc::clone(obj))))
            .collect();
        in_flight_gone.sort_by(|a, b| a.0.cmp(&b.0));
        for (key, obj) in in_flight_gone {
            self.queue_tombstone(&key, obj);
        }

        if let Some(known) = known {
            let mut known_gone: Vec<String> = known
                .list_keys()
                .into_iter()
                .filter(|key| {
                    !listed.contains(key)
                        && !self.items.contains_key(key.as_str())
                        && !self.in_flight.contains_key(key.as_str())
                })
                .collect();
            // Sorted so that tombstones come out in a stable order.
            known_gone.sort_unstable();
            for key in known_gone {
                match known.get_by_key(&key) {
                    Some(obj) => self.queue_tombstone(&key, obj),
                    None => debug!(%key, "known key vanished during replace, no tombstone"),
                }
            }
        }

        if !self.populated {
            self.populated = true;
            self.initial_boundary = self.next_arrival - 1;
            // Everything queued now, and what is being processed of the initial list, must
            // be processed before the FIFO counts as synced. client-go counts listed keys
            // plus tombstones, which is the same number when the queue was empty before;
            // counting the queue also covers keys a resync queued.
            self.initial_population_count = self.queue.len() + self.initial_in_flight;
            self.check_synced();
        }
        true
    }

    /// Gives up relist `generation` (its list failed part way): what it queued stays
    /// queued, as the server's state of those objects, and it makes no tombstones. Before
    /// the first relist finishes, what it queued still counts towards `has_synced`.
    pub(in crate::fifo) fn abort_replace(&mut self, generation: u64) {
        if self.current(generation).is_none() {
            return;
        }
        self.replacing = None;
        if !self.populated {
            self.initial_boundary = self.next_arrival - 1;
        }
    }

    /// Whether a relist is being handed over.
    pub(in crate::fifo) fn is_replacing(&self) -> bool {
        self.replacing.is_some()
    }
}
