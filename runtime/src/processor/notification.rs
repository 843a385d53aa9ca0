//! [`Notification`]: one change on its way from the informer to a handler.

use std::sync::Arc;

use super::handler::ResourceEventHandler;
use crate::tombstone::DeletedObject;

/// One change queued for a handler (client-go's `addNotification`, `updateNotification`
/// and `deleteNotification`).
///
/// It holds `Arc`s only, so cloning it for each listener never copies an object.
#[derive(Debug)]
pub enum Notification<K> {
    /// An object appeared.
    Add {
        /// The new object.
        object: Arc<K>,
        /// Whether it belongs to the initial list (see [`ResourceEventHandler::on_add`]).
        is_in_initial_list: bool,
    },
    /// An object changed, or a resync re-delivered it.
    Update {
        /// The state the handler saw last.
        old: Arc<K>,
        /// The current state.
        new: Arc<K>,
    },
    /// An object was deleted, or found gone on a relist.
    Delete(DeletedObject<K>),
}

impl<K> Clone for Notification<K> {
    fn clone(&self) -> Self {
        match self {
            Self::Add { object, is_in_initial_list } => {
                Self::Add { object: Arc::clone(object), is_in_initial_list: *is_in_initial_list }
            }
            Self::Update { old, new } => {
                Self::Update { old: Arc::clone(old), new: Arc::clone(new) }
            }
            Self::Delete(gone) => Self::Delete(gone.clone()),
        }
    }
}

impl<K> Notification<K> {
    /// `"add"`, `"update"` or `"delete"`: what logs may say about a notification without
    /// revealing the object.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Add { .. } => "add",
            Self::Update { .. } => "update",
            Self::Delete(_) => "delete",
        }
    }

    /// Whether this is an add of the initial list, which a handler's `has_synced` waits for.
    pub fn is_initial_list_add(&self) -> bool {
        matches!(self, Self::Add { is_in_initial_list: true, .. })
    }

    /// Calls the matching method of `handler`.
    pub fn dispatch_to<H>(&self, handler: &H)
    where
        H: ResourceEventHandler<K> + ?Sized,
    {
        match self {
            Self::Add { object, is_in_initial_list } => handler.on_add(object, *is_in_initial_list),
            Self::Update { old, new } => handler.on_update(old, new),
            Self::Delete(gone) => handler.on_delete(gone),
        }
    }
}
