//! A handler's registration with an informer: whether it has synced, how far behind it is,
//! whether it was disconnected (client-go's `ResourceEventHandlerRegistration`).

use std::sync::Weak;

use super::inner::Inner;
use crate::processor::ListenerHandle;

/// A handler's registration with an informer: tells whether that handler has received the
/// initial list, how far behind it is, and whether it was disconnected for overflowing its
/// bound ([`OverflowPolicy::Disconnect`](crate::processor::OverflowPolicy::Disconnect)).
pub struct ResourceEventHandlerRegistration<K> {
    handle: ListenerHandle<K>,
    informer: Weak<Inner<K>>,
}

impl<K> ResourceEventHandlerRegistration<K> {
    pub(super) fn new(handle: ListenerHandle<K>, informer: Weak<Inner<K>>) -> Self {
        Self { handle, informer }
    }

    /// The listener handle the informer removes on `remove_event_handler`.
    pub(super) fn handle(&self) -> &ListenerHandle<K> {
        &self.handle
    }
}

impl<K> ResourceEventHandlerRegistration<K>
where
    K: Send + Sync + 'static,
{
    /// True once the informer has synced and this handler has handled every object of the
    /// initial list (client-go's `ResourceEventHandlerRegistration.HasSynced`).
    ///
    /// False, for good, once the handler is [disconnected](Self::is_disconnected): it no
    /// longer follows the cache, so nothing waiting for it to sync should proceed as if it
    /// did. Register a new handler to catch up.
    pub fn has_synced(&self) -> bool {
        let upstream = self.informer.upgrade().is_some_and(|inner| *inner.synced.borrow());
        upstream && !self.handle.is_disconnected() && self.handle.initial_list_pending() == 0
    }

    /// Notifications queued for this handler and not yet handled, including the one being
    /// handled. Never above the handler's
    /// [`max_pending`](crate::HandlerOptions::max_pending), if it has one.
    pub fn pending(&self) -> usize {
        self.handle.pending()
    }

    /// Whether the handler was disconnected because it fell
    /// [`max_pending`](crate::HandlerOptions::max_pending) notifications behind under
    /// [`OverflowPolicy::Disconnect`](crate::processor::OverflowPolicy::Disconnect). It then receives
    /// nothing more and has been removed from the informer; a warning naming its listener id
    /// and the bound was logged.
    pub fn is_disconnected(&self) -> bool {
        self.handle.is_disconnected()
    }

    /// The listener behind this handler: its id (as logged), bound and counts.
    pub fn listener(&self) -> &ListenerHandle<K> {
        &self.handle
    }
}
