//! The one factory core behind every front-end (typed, dynamic, metadata): it owns the
//! informers, their tasks and the cancellation tree, and implements start, the three ways
//! of waiting for sync, removal of one informer and shutdown (client-go's
//! `sharedInformerFactory` and `dynamicSharedInformerFactory`, which repeat this).
//!
//! A front-end chooses only the key informers are found by (a Rust type, a
//! GroupVersionResource) and how a new informer is made.

use std::collections::HashMap;
use std::future::Future;

use futures::future::join_all;
use kube::Client;
use kube::core::GroupVersionResource;
use parking_lot::Mutex;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// What the core needs of one informer it runs: the handle a front-end hands out
/// ([`ErasedInformer`](super::ErasedInformer), [`GenericInformer`](super::GenericInformer)).
pub trait Member: Clone + Send + Sync + 'static {
    /// The resource the informer watches: the key of sync reports.
    fn gvr(&self) -> &GroupVersionResource;
    /// Runs the informer until `cancel` fires, as a task of its own.
    fn spawn(&self, cancel: CancellationToken) -> JoinHandle<()>;
    /// Waits until the informer has synced (`true`) or stopped first (`false`).
    fn wait_for_sync(&self) -> impl Future<Output = bool> + Send;
    /// Whether the informer has synced.
    fn has_synced(&self) -> bool;
}

/// Informers of one factory, found by `Key`, in creation order (so that start and sync
/// reports are deterministic).
pub(crate) struct FactoryCore<Key, M> {
    client: Client,
    cancel: CancellationToken,
    state: Mutex<State<Key, M>>,
}

struct State<Key, M> {
    entries: Vec<Entry<Key, M>>,
    shutting_down: bool,
}

struct Entry<Key, M> {
    key: Key,
    member: M,
    /// Set once started: the informer's own token (a child of the factory's) and its task,
    /// until shutdown or removal takes the task to await it.
    running: Option<(CancellationToken, Option<JoinHandle<()>>)>,
}

impl<Key, M> FactoryCore<Key, M> {
    /// How many informers the factory has.
    pub(crate) fn len(&self) -> usize {
        self.state.lock().entries.len()
    }
}

impl<Key: PartialEq, M: Member> FactoryCore<Key, M> {
    pub(crate) fn new(client: Client) -> Self {
        Self {
            client,
            cancel: CancellationToken::new(),
            state: Mutex::new(State { entries: Vec::new(), shutting_down: false }),
        }
    }

    /// The client informers of this factory use.
    pub(crate) fn client(&self) -> &Client {
        &self.client
    }

    /// The informer under `key`, if there is one.
    pub(crate) fn get(&self, key: &Key) -> Option<M> {
        let state = self.state.lock();
        state.entries.iter().find(|e| e.key == *key).map(|e| e.member.clone())
    }

    /// The informer under `key`, made by `make` if there is none. `make` runs under the
    /// factory's lock, so two callers racing for one key get one informer.
    pub(crate) fn get_or_insert_with(&self, key: Key, make: impl FnOnce() -> M) -> M {
        let mut state = self.state.lock();
        if let Some(entry) = state.entries.iter().find(|e| e.key == key) {
            return entry.member.clone();
        }
        let member = make();
        state.entries.push(Entry { key, member: member.clone(), running: None });
        member
    }

    /// Every informer, in creation order.
    pub(crate) fn members(&self) -> Vec<M> {
        self.state.lock().entries.iter().map(|e| e.member.clone()).collect()
    }

    /// Starts every informer not started yet. Does nothing after [`shutdown`](Self::shutdown).
    pub(crate) fn start(&self) {
        let mut state = self.state.lock();
        if state.shutting_down {
            return;
        }
        for entry in state.entries.iter_mut().filter(|e| e.running.is_none()) {
            let cancel = self.cancel.child_token();
            let task = entry.member.spawn(cancel.clone());
            entry.running = Some((cancel, Some(task)));
        }
    }

    /// Waits until every started informer has synced, or `stop` completes: the map says,
    /// per resource, whether it did.
    pub(crate) async fn wait_for_cache_sync_until(
        &self,
        stop: impl Future<Output = ()>,
    ) -> HashMap<GroupVersionResource, bool> {
        let started: Vec<M> = {
            let state = self.state.lock();
            state.entries.iter().filter(|e| e.running.is_some()).map(|e| e.member.clone()).collect()
        };
        let all = join_all(started.iter().map(Member::wait_for_sync));
        let gvrs = started.iter().map(|m| m.gvr().clone());
        tokio::select! {
            synced = all => gvrs.zip(synced).collect(),
            () = stop => gvrs.zip(started.iter().map(Member::has_synced)).collect(),
        }
    }

    /// Stops and forgets the informer under `key`, returning once its task has ended;
    /// `false` if there was none.
    pub(crate) async fn remove(&self, key: &Key) -> bool {
        let entry = {
            let mut state = self.state.lock();
            match state.entries.iter().position(|e| e.key == *key) {
                Some(index) => state.entries.remove(index),
                None => return false,
            }
        };
        if let Some((cancel, task)) = entry.running {
            cancel.cancel();
            if let Some(task) = task {
                // A task only fails by panicking, which the informer already contains.
                let _ = task.await;
            }
        }
        true
    }

    /// Stops every informer and returns once all of their tasks have ended. The factory
    /// starts nothing afterwards.
    pub(crate) async fn shutdown(&self) {
        let tasks: Vec<JoinHandle<()>> = {
            let mut state = self.state.lock();
            state.shutting_down = true;
            state
                .entries
                .iter_mut()
                .filter_map(|e| e.running.as_mut().and_then(|(_, task)| task.take()))
                .collect()
        };
        self.cancel.cancel();
        for task in tasks {
            // A task only fails by panicking, which the informer already contains.
            let _ = task.await;
        }
    }
}
