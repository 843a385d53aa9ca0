//! Storage modelled on etcd + the watch cache: one global resourceVersion, a bounded
//! event history (for watch resume and consistent paginated lists), and watcher fan-out.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::ops::Bound;
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::{Mutex, MutexGuard};
use tokio::sync::mpsc;

use crate::object::{ObjKey, StoredObject};
use crate::resources::GroupResource;
use crate::status::{ApiError, ApiResult};

/// Watch event types stored in history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EventType {
    Added,
    Modified,
    Deleted,
}

impl EventType {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
        }
    }
}

/// One committed change.
#[derive(Debug)]
pub(crate) struct Event {
    pub(crate) rv: u64,
    pub(crate) resource: GroupResource,
    pub(crate) key: ObjKey,
    pub(crate) kind: EventType,
    /// The object after the change (for DELETED: its final state, at the deletion RV).
    pub(crate) object: Arc<StoredObject>,
    /// The object before the change, if it existed.
    pub(crate) prev: Option<Arc<StoredObject>>,
}

/// What a watch stream receives.
#[derive(Debug, Clone)]
pub(crate) enum WatchMsg {
    /// A committed change.
    Event(Arc<Event>),
    /// A synthetic ADDED for the initial state.
    Initial(Arc<StoredObject>),
    /// A raw, possibly malformed, line (fault injection).
    Raw(Bytes),
}

struct WatcherSlot {
    resource: GroupResource,
    sender: mpsc::UnboundedSender<WatchMsg>,
}

/// Where a watch starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WatchStart {
    /// Synthetic ADDED events for the current state, then live events.
    CurrentState,
    /// Events after this resourceVersion.
    After(u64),
}

/// The store behind one mutex: simple and obviously consistent.
#[derive(Debug)]
pub(crate) struct Store {
    inner: Mutex<StoreInner>,
}

impl Store {
    pub(crate) fn new(history_len: usize) -> Self {
        Store {
            inner: Mutex::new(StoreInner {
                rv: 1,
                collections: HashMap::new(),
                history: VecDeque::new(),
                history_len,
                compacted_rv: 0,
                watch_floor: 0,
                watchers: Vec::new(),
            }),
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, StoreInner> {
        self.inner.lock()
    }
}

/// The locked store state.
pub(crate) struct StoreInner {
    rv: u64,
    collections: HashMap<GroupResource, BTreeMap<ObjKey, Arc<StoredObject>>>,
    history: VecDeque<Arc<Event>>,
    history_len: usize,
    /// Events with an RV at or below this were dropped from history.
    compacted_rv: u64,
    /// Watches from an RV below this get 410: the watch cache of a restarted apiserver
    /// starts here (lists and continue tokens still read older history, as from etcd).
    watch_floor: u64,
    watchers: Vec<WatcherSlot>,
}

impl std::fmt::Debug for StoreInner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreInner")
            .field("rv", &self.rv)
            .field("history", &self.history.len())
            .field("compacted_rv", &self.compacted_rv)
            .finish_non_exhaustive()
    }
}

impl StoreInner {
    /// The latest committed resourceVersion.
    pub(crate) fn current_rv(&self) -> u64 {
        self.rv
    }

    /// The highest RV whose following events are no longer all retained.
    pub(crate) fn compacted_rv(&self) -> u64 {
        self.compacted_rv
    }

    /// Allocates the RV of the next change; it must then be committed with `put`/`remove`.
    pub(crate) fn next_rv(&mut self) -> u64 {
        self.rv += 1;
        self.rv
    }

    pub(crate) fn set_history_len(&mut self, len: usize) {
        self.history_len = len;
        self.trim_history();
    }

    pub(crate) fn get(&self, resource: &GroupResource, key: &ObjKey) -> Option<Arc<StoredObject>> {
        self.collections.get(resource)?.get(key).cloned()
    }

    /// Number of objects stored for a resource.
    pub(crate) fn count(&self, resource: &GroupResource) -> usize {
        self.collections.get(resource).map_or(0, BTreeMap::len)
    }

    /// Stores a new object version (its RV must come from `next_rv`).
    pub(crate) fn put(&mut self, resource: &GroupResource, object: Arc<StoredObject>) -> EventType {
        let key = object.meta.key();
        let prev = self
            .collections
            .entry(resource.clone())
            .or_default()
            .insert(key.clone(), object.clone());
        let kind = if prev.is_some() { EventType::Modified } else { EventType::Added };
        self.record(Event {
            rv: object.meta.resource_version,
            resource: resource.clone(),
            key,
            kind,
            object,
            prev,
        });
        kind
    }

    /// Removes an object; `final_state` is what DELETED carries (stamped with a new RV).
    pub(crate) fn remove(&mut self, resource: &GroupResource, final_state: Arc<StoredObject>) {
        let key = final_state.meta.key();
        let prev = self.collections.get_mut(resource).and_then(|c| c.remove(&key));
        self.record(Event {
            rv: final_state.meta.resource_version,
            resource: resource.clone(),
            key,
            kind: EventType::Deleted,
            object: final_state,
            prev,
        });
    }

    fn record(&mut self, event: Event) {
        let event = Arc::new(event);
        self.watchers.retain(|w| {
            w.resource != event.resource || w.sender.send(WatchMsg::Event(event.clone())).is_ok()
        });
        self.history.push_back(event);
        self.trim_history();
    }

    fn trim_history(&mut self) {
        while self.history.len() > self.history_len {
            if let Some(old) = self.history.pop_front() {
                self.compacted_rv = old.rv;
            }
        }
    }

    /// Drops all history: watches and continue tokens from older RVs get 410.
    pub(crate) fn compact(&mut self) {
        self.history.clear();
        self.compacted_rv = self.rv;
    }

    /// Starts the watch cache afresh, as a restarted kube-apiserver does: watches resumed
    /// from an RV older than now get 410 Expired; lists are unaffected.
    pub(crate) fn restart_watch_cache(&mut self) {
        self.watch_floor = self.rv;
    }

    /// Removes every object of a resource (CRD deletion), emitting DELETED events, and
    /// closes its watches.
    pub(crate) fn drop_resource(&mut self, resource: &GroupResource) -> ApiResult<()> {
        let objects: Vec<Arc<StoredObject>> = self
            .collections
            .get(resource)
            .map(|c| c.values().cloned().collect())
            .unwrap_or_default();
        for object in objects {
            let rv = self.next_rv();
            let mut value = object.to_value()?;
            crate::object::set_meta(&mut value, "resourceVersion", rv.to_string().into());
            self.remove(resource, Arc::new(StoredObject::from_value(&value)?));
        }
        self.collections.remove(resource);
        self.watchers.retain(|w| &w.resource != resource);
        Ok(())
    }

    /// Sends a raw line to every watch of a resource; returns how many received it.
    pub(crate) fn send_raw(&mut self, resource: &GroupResource, line: Bytes) -> usize {
        let mut sent = 0;
        self.watchers.retain(|w| {
            if w.resource != *resource {
                return true;
            }
            let ok = w.sender.send(WatchMsg::Raw(line.clone())).is_ok();
            sent += usize::from(ok);
            ok
        });
        sent
    }

    /// Whether a list or watch at `rv` can still be served from history.
    pub(crate) fn check_not_compacted(&self, rv: u64) -> ApiResult<()> {
        if rv < self.compacted_rv {
            Err(ApiError::expired(format!(
                "too old resource version: {rv} ({})",
                self.compacted_rv + 1
            )))
        } else {
            Ok(())
        }
    }

    /// One page of the state of `resource` as of `at`, in key order, after `after`.
    ///
    /// Returns the matching items and, when more matching items follow, the key to
    /// continue after.
    pub(crate) fn list_page(
        &self,
        resource: &GroupResource,
        namespace: Option<&str>,
        at: u64,
        after: Option<&ObjKey>,
        limit: usize,
        matches: &dyn Fn(&StoredObject) -> bool,
    ) -> ApiResult<(Vec<Arc<StoredObject>>, Option<ObjKey>)> {
        if at > self.rv {
            return Err(ApiError::too_large_rv());
        }
        let empty = BTreeMap::new();
        let current = self.collections.get(resource).unwrap_or(&empty);
        // The state at `at` is the current state with every later change undone.
        let mut overrides: BTreeMap<ObjKey, Option<Arc<StoredObject>>> = BTreeMap::new();
        if at < self.rv {
            self.check_not_compacted(at)?;
            for event in self.history.iter().rev().take_while(|e| e.rv > at) {
                if &event.resource == resource {
                    overrides.insert(event.key.clone(), event.prev.clone());
                }
            }
        }
        let lower: Bound<ObjKey> = match (after, namespace) {
            (Some(key), _) => Bound::Excluded(key.clone()),
            (None, Some(ns)) => Bound::Included((ns.to_string(), String::new())),
            (None, None) => Bound::Unbounded,
        };
        let mut cur = current.range((lower.clone(), Bound::Unbounded)).peekable();
        let mut ovr = overrides.range((lower, Bound::Unbounded)).peekable();
        let mut items = Vec::new();
        let mut last_key: Option<ObjKey> = None;
        loop {
            let take_override = match (cur.peek(), ovr.peek()) {
                (None, None) => break,
                (Some(_), None) => false,
                (None, Some(_)) => true,
                (Some((ck, _)), Some((ok, _))) => {
                    if ok <= ck {
                        if ok == ck {
                            cur.next();
                        }
                        true
                    } else {
                        false
                    }
                }
            };
            let (key, object) = if take_override {
                match ovr.next() {
                    Some((k, v)) => (k, v.clone()),
                    None => break,
                }
            } else {
                match cur.next() {
                    Some((k, v)) => (k, Some(v.clone())),
                    None => break,
                }
            };
            if namespace.is_some_and(|ns| key.0 != ns) {
                break;
            }
            let Some(object) = object else { continue };
            if !matches(&object) {
                continue;
            }
            if limit > 0 && items.len() == limit {
                // One more match exists: the page is full and there is a continuation.
                return Ok((items, last_key));
            }
            last_key = Some(key.clone());
            items.push(object);
        }
        Ok((items, None))
    }

    /// Registers a watch and returns what it must send first.
    pub(crate) fn watch(
        &mut self,
        resource: &GroupResource,
        namespace: Option<&str>,
        start: WatchStart,
    ) -> ApiResult<(Vec<WatchMsg>, mpsc::UnboundedReceiver<WatchMsg>)> {
        let initial = match start {
            WatchStart::CurrentState => {
                let (items, _) =
                    self.list_page(resource, namespace, self.rv, None, 0, &|_| true)?;
                items.into_iter().map(WatchMsg::Initial).collect()
            }
            WatchStart::After(rv) => {
                self.check_not_compacted(rv)?;
                if rv < self.watch_floor {
                    return Err(ApiError::expired(format!(
                        "too old resource version: {rv} ({})",
                        self.watch_floor
                    )));
                }
                let newer = self.history.len() - self.history.partition_point(|e| e.rv <= rv);
                self.history
                    .iter()
                    .skip(self.history.len() - newer)
                    .filter(|e| &e.resource == resource)
                    .map(|e| WatchMsg::Event(e.clone()))
                    .collect()
            }
        };
        let (sender, receiver) = mpsc::unbounded_channel();
        self.watchers.push(WatcherSlot { resource: resource.clone(), sender });
        Ok((initial, receiver))
    }
}

#[cfg(test)]
mod tests;
