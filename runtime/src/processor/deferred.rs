//! [`Deferred`]: notifications held back for listeners that were full under
//! [`OverflowPolicy::Block`](super::OverflowPolicy::Block), delivered once they have room.

use std::collections::{HashSet, VecDeque};

use super::listener::{ListenerHandle, ListenerId};
use super::notification::Notification;

/// Notifications for full, blocking listeners, in distribution order.
///
/// Once a listener has a notification here, every later one for it goes here too, so it
/// still receives them in order.
pub(crate) struct Deferred<K> {
    entries: VecDeque<(ListenerHandle<K>, Notification<K>)>,
    listeners: HashSet<ListenerId>,
}

impl<K> Default for Deferred<K> {
    fn default() -> Self {
        Self { entries: VecDeque::new(), listeners: HashSet::new() }
    }
}

impl<K> Deferred<K> {
    /// Whether `listener` has notifications held back here.
    pub(crate) fn holds(&self, listener: ListenerId) -> bool {
        self.listeners.contains(&listener)
    }

    pub(crate) fn push(&mut self, listener: ListenerHandle<K>, notification: Notification<K>) {
        self.listeners.insert(listener.id());
        self.entries.push_back((listener, notification));
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Puts `earlier`, held back before everything here, in front.
    pub(crate) fn prepend(&mut self, mut earlier: Deferred<K>) {
        earlier.entries.append(&mut self.entries);
        self.entries = earlier.entries;
        self.listeners.extend(earlier.listeners);
    }
}

impl<K: Send + Sync + 'static> Deferred<K> {
    /// Queues every held notification, oldest first, each waiting until its listener has
    /// room or is removed. Dropping the future leaves every notification not yet queued
    /// here, the one it was waiting with included.
    pub(crate) async fn deliver(&mut self) {
        while let Some((listener, notification)) = self.entries.front() {
            let (listener, notification) = (listener.clone(), notification.clone());
            listener.add_when_room(notification).await;
            self.entries.pop_front();
        }
        self.listeners.clear();
    }
}
