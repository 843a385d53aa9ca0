//! The fault rules a server holds: set through the [`Faults`](crate::Faults) handle,
//! read (and used up) by the requests and watches they hit.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use parking_lot::Mutex;
use tokio_util::sync::CancellationToken;

use crate::faults::injected::{Injected, Malformed};
use crate::resources::ResourceInfo;

/// A pending `fail_next` rule.
#[derive(Debug)]
pub(super) struct FailRule {
    pub(super) verb: String,
    pub(super) resource: String,
    pub(super) remaining: u64,
    pub(super) failure: Injected,
}

/// The pending faults and the request counters: set through [`Faults`](crate::Faults),
/// consulted on every request and watch event.
#[derive(Debug, Default)]
pub(crate) struct FaultState {
    pub(super) fail_rules: Mutex<Vec<FailRule>>,
    pub(super) denied: Mutex<HashSet<String>>,
    pub(super) latency: Mutex<Option<Duration>>,
    pub(super) malformed_lists: Mutex<HashMap<String, VecDeque<Malformed>>>,
    /// Requests received, by verb, group and plural.
    pub(super) counts: Mutex<HashMap<(String, String, String), u64>>,
    /// Answers sent gzip-compressed, by verb, group and plural.
    pub(super) compressed: Mutex<HashMap<(String, String, String), u64>>,
    /// Cancelled to drop every open watch; replaced afterwards.
    pub(super) watch_token: Mutex<CancellationToken>,
    /// Watch events still to send before every watch is dropped (0 = off).
    pub(super) drop_after: AtomicU64,
    /// Resources whose next watch event is cut in the middle, one entry per pending cut.
    pub(super) truncations: Mutex<Vec<String>>,
    /// Resources whose next streaming list sends no initial-events-end bookmark, one entry
    /// per pending streaming list.
    pub(super) endless_initial_events: Mutex<Vec<String>>,
    pub(super) malformed_seq: AtomicU64,
}

/// Whether a user-facing resource name (`pods`, `deployments.apps`, `*`) names `info`.
fn names_resource(name: &str, info: &ResourceInfo) -> bool {
    if name == "*" {
        return true;
    }
    match name.split_once('.') {
        Some((plural, group)) => plural == info.plural && group == info.group,
        None => name == info.plural,
    }
}

/// Adds one to the count of `verb` on `info`'s resource.
fn add_one(
    counts: &Mutex<HashMap<(String, String, String), u64>>,
    verb: &str,
    info: &ResourceInfo,
) {
    *counts
        .lock()
        .entry((verb.to_string(), info.group.clone(), info.plural.clone()))
        .or_default() += 1;
}

impl FaultState {
    pub(crate) fn latency(&self) -> Option<Duration> {
        *self.latency.lock()
    }

    pub(crate) fn count(&self, verb: &str, info: &ResourceInfo) {
        add_one(&self.counts, verb, info);
    }

    /// Counts an answer sent gzip-compressed.
    pub(crate) fn count_compressed(&self, verb: &str, info: &ResourceInfo) {
        add_one(&self.compressed, verb, info);
    }

    pub(crate) fn is_denied(&self, info: &ResourceInfo) -> bool {
        self.denied.lock().iter().any(|name| names_resource(name, info))
    }

    /// Consumes one matching `fail_next` rule, if any.
    pub(crate) fn take_failure(&self, verb: &str, info: &ResourceInfo) -> Option<Injected> {
        let mut rules = self.fail_rules.lock();
        let index = rules
            .iter()
            .position(|r| (r.verb == verb || r.verb == "*") && names_resource(&r.resource, info))?;
        let rule = &mut rules[index];
        rule.remaining -= 1;
        let failure = rule.failure.clone();
        if rule.remaining == 0 {
            rules.remove(index);
        }
        Some(failure)
    }

    pub(crate) fn take_malformed_list(&self, info: &ResourceInfo) -> Vec<Malformed> {
        let mut map = self.malformed_lists.lock();
        let mut taken = Vec::new();
        for (name, queue) in map.iter_mut() {
            if names_resource(name, info) {
                taken.extend(queue.drain(..));
            }
        }
        map.retain(|_, q| !q.is_empty());
        taken
    }

    pub(crate) fn next_malformed_seq(&self) -> u64 {
        self.malformed_seq.fetch_add(1, Ordering::Relaxed)
    }

    /// Consumes one pending `truncate_next_watch_event` of this resource, if any.
    pub(crate) fn take_truncation(&self, info: &ResourceInfo) -> bool {
        take_one(&self.truncations, info)
    }

    /// Consumes one pending `drop_next_initial_events_end` of this resource, if any.
    pub(crate) fn take_endless_initial_events(&self, info: &ResourceInfo) -> bool {
        take_one(&self.endless_initial_events, info)
    }

    /// The token a new watch listens on.
    pub(crate) fn watch_token(&self) -> CancellationToken {
        self.watch_token.lock().clone()
    }

    pub(crate) fn drop_watches(&self) {
        let old = std::mem::take(&mut *self.watch_token.lock());
        old.cancel();
    }

    /// Called after every watch event written; drops all watches when the budget runs out.
    pub(crate) fn on_watch_event(&self) {
        let result = self
            .drop_after
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n > 0).then(|| n - 1));
        if result == Ok(1) {
            self.drop_watches();
        }
    }
}

/// Removes the first entry of `pending` that names `info`; whether there was one.
fn take_one(pending: &Mutex<Vec<String>>, info: &ResourceInfo) -> bool {
    let mut pending = pending.lock();
    match pending.iter().position(|name| names_resource(name, info)) {
        Some(index) => {
            pending.remove(index);
            true
        }
        None => false,
    }
}
