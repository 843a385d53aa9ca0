//! [`Delta`] and [`Deltas`]: what happened to one object, in order.

use std::fmt;
use std::sync::Arc;

use crate::tombstone::DeletedObject;

/// The kind of a [`Delta`] (client-go `DeltaType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeltaType {
    /// The watch reported a new object.
    Added,
    /// The watch reported a changed object.
    Updated,
    /// The watch reported a delete, or a relist found the object gone (tombstone).
    Deleted,
    /// The object was in a relist (client-go emits this with `EmitDeltaTypeReplaced`,
    /// which is always on here).
    Replaced,
    /// A periodic resync re-delivered the cached object.
    Sync,
}

/// One change to one object (client-go `Delta`). The object is shared, never copied.
pub enum Delta<K> {
    /// The watch reported a new object.
    Added(Arc<K>),
    /// The watch reported a changed object.
    Updated(Arc<K>),
    /// The object was deleted; a [`DeletedObject::DeletedFinalStateUnknown`] when a relist
    /// found it gone.
    Deleted(DeletedObject<K>),
    /// The object was in a relist.
    Replaced(Arc<K>),
    /// A resync re-delivered the cached object.
    Sync(Arc<K>),
}

impl<K> Delta<K> {
    /// The kind of this delta.
    pub fn kind(&self) -> DeltaType {
        match self {
            Self::Added(_) => DeltaType::Added,
            Self::Updated(_) => DeltaType::Updated,
            Self::Deleted(_) => DeltaType::Deleted,
            Self::Replaced(_) => DeltaType::Replaced,
            Self::Sync(_) => DeltaType::Sync,
        }
    }

    /// The object (for a tombstone, the last state the informer had).
    pub fn object(&self) -> &Arc<K> {
        match self {
            Self::Added(o) | Self::Updated(o) | Self::Replaced(o) | Self::Sync(o) => o,
            Self::Deleted(gone) => gone.object(),
        }
    }

    /// Whether this is a `Deleted` delta carrying a tombstone.
    pub fn is_tombstone(&self) -> bool {
        matches!(self, Self::Deleted(gone) if gone.is_tombstone())
    }
}

impl<K> Clone for Delta<K> {
    fn clone(&self) -> Self {
        match self {
            Self::Added(o) => Self::Added(Arc::clone(o)),
            Self::Updated(o) => Self::Updated(Arc::clone(o)),
            Self::Deleted(gone) => Self::Deleted(gone.clone()),
            Self::Replaced(o) => Self::Replaced(Arc::clone(o)),
            Self::Sync(o) => Self::Sync(Arc::clone(o)),
        }
    }
}

impl<K: fmt::Debug> fmt::Debug for Delta<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Deleted(gone) => f.debug_tuple("Deleted").field(gone).finish(),
            other => f.debug_tuple(&format!("{:?}", other.kind())).field(other.object()).finish(),
        }
    }
}

/// The deltas queued for one key, oldest first (client-go `Deltas`). Never empty when it
/// comes out of a [`DeltaFifo`](super::DeltaFifo).
///
/// Each delta also carries the FIFO's arrival number: the order in which deltas of all keys
/// were queued, which a consumer uses to apply a batch of keys in arrival order (see
/// [`DeltaFifo::pop_batch`](super::DeltaFifo::pop_batch)).
pub struct Deltas<K> {
    pub(crate) items: Vec<Delta<K>>,
    /// The arrival number of each item, increasing; 0 for deltas built outside a FIFO.
    arrivals: Vec<u64>,
}

impl<K> Deltas<K> {
    /// Deltas holding `items`, oldest first; `None` when `items` is empty.
    pub fn new(items: Vec<Delta<K>>) -> Option<Self> {
        let arrivals = vec![0; items.len()];
        (!items.is_empty()).then_some(Self { items, arrivals })
    }

    pub(crate) fn one(delta: Delta<K>, arrival: u64) -> Self {
        Self { items: vec![delta], arrivals: vec![arrival] }
    }

    /// The deltas, oldest first, each with its arrival number.
    pub(crate) fn with_arrivals(&self) -> impl Iterator<Item = (u64, &Delta<K>)> {
        self.arrivals.iter().copied().zip(&self.items)
    }

    /// The arrival number of the oldest delta.
    pub(crate) fn first_arrival(&self) -> u64 {
        self.arrivals.first().copied().unwrap_or_default()
    }

    /// Numbers the deltas as arriving now, from `next` on; returns the next free number.
    pub(crate) fn renumber(&mut self, mut next: u64) -> u64 {
        for arrival in &mut self.arrivals {
            *arrival = next;
            next += 1;
        }
        next
    }

    /// Splits off the deltas that arrived after `boundary`, if any.
    pub(crate) fn split_after(&mut self, boundary: u64) -> Option<Self> {
        let at = self.arrivals.partition_point(|arrival| *arrival <= boundary);
        if at == self.items.len() {
            return None;
        }
        Some(Self { items: self.items.split_off(at), arrivals: self.arrivals.split_off(at) })
    }

    /// The oldest delta.
    pub fn oldest(&self) -> Option<&Delta<K>> {
        self.items.first()
    }

    /// The newest delta: the object's latest known state.
    pub fn newest(&self) -> Option<&Delta<K>> {
        self.items.last()
    }

    /// The deltas, oldest first.
    pub fn iter(&self) -> std::slice::Iter<'_, Delta<K>> {
        self.items.iter()
    }

    /// Number of deltas.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there are no deltas (never true for deltas popped from a FIFO).
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The kinds of the deltas, oldest first.
    pub fn kinds(&self) -> Vec<DeltaType> {
        self.items.iter().map(Delta::kind).collect()
    }

    /// Appends `delta`, collapsing two consecutive deletes into one (client-go
    /// `dedupDeltas`/`isDeletionDup`): of the two, the one that is not a tombstone is kept,
    /// and if both are tombstones the newer one.
    pub(crate) fn push(&mut self, delta: Delta<K>, arrival: u64) {
        if let (Some(Delta::Deleted(older)), Delta::Deleted(_)) = (self.items.last(), &delta) {
            if older.is_tombstone()
                && let (Some(last), Some(last_arrival)) =
                    (self.items.last_mut(), self.arrivals.last_mut())
            {
                *last = delta;
                *last_arrival = arrival;
            }
            return;
        }
        self.items.push(delta);
        self.arrivals.push(arrival);
    }

    /// The object this key will hold once these deltas are applied: `None` if the newest is
    /// a delete.
    pub(crate) fn final_state(&self) -> Option<&Arc<K>> {
        match self.items.last() {
            Some(Delta::Deleted(_)) | None => None,
            Some(other) => Some(other.object()),
        }
    }
}

impl<K> Clone for Deltas<K> {
    fn clone(&self) -> Self {
        Self { items: self.items.clone(), arrivals: self.arrivals.clone() }
    }
}

impl<K: fmt::Debug> fmt::Debug for Deltas<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(&self.items).finish()
    }
}

impl<K> IntoIterator for Deltas<K> {
    type Item = Delta<K>;
    type IntoIter = std::vec::IntoIter<Delta<K>>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'a, K> IntoIterator for &'a Deltas<K> {
    type Item = &'a Delta<K>;
    type IntoIter = std::slice::Iter<'a, Delta<K>>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}
