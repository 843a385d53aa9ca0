//! What a delete notification carries: the object itself, or a tombstone.

use std::sync::Arc;

/// An object the informer knew about and later found gone from a relist, without seeing
/// its delete event (client-go's `DeletedFinalStateUnknown`).
///
/// `object` is the last state the informer had; it may be stale, since the object could
/// have changed on the server before it was deleted.
#[derive(Debug)]
pub struct DeletedFinalStateUnknown<K> {
    /// The store key (`namespace/name`, or `name` for cluster-scoped objects).
    pub key: String,
    /// The last known state of the object.
    pub object: Arc<K>,
}

impl<K> Clone for DeletedFinalStateUnknown<K> {
    fn clone(&self) -> Self {
        Self { key: self.key.clone(), object: Arc::clone(&self.object) }
    }
}

/// The payload of a delete: either the deleted object as the watch delivered it, or a
/// [`DeletedFinalStateUnknown`] tombstone when the delete was missed and discovered by a
/// relist.
///
/// client-go hands handlers an `interface{}` that callers must type-switch on; here the
/// two cases are an enum, so a handler cannot forget the tombstone case.
#[derive(Debug)]
pub enum DeletedObject<K> {
    /// The object as it was deleted.
    Object(Arc<K>),
    /// The delete was missed; this is the last state the informer had.
    DeletedFinalStateUnknown(DeletedFinalStateUnknown<K>),
}

impl<K> Clone for DeletedObject<K> {
    fn clone(&self) -> Self {
        match self {
            Self::Object(o) => Self::Object(Arc::clone(o)),
            Self::DeletedFinalStateUnknown(t) => Self::DeletedFinalStateUnknown(t.clone()),
        }
    }
}

impl<K> DeletedObject<K> {
    /// The object, or the tombstone's last known state of it.
    pub fn object(&self) -> &Arc<K> {
        match self {
            Self::Object(o) => o,
            Self::DeletedFinalStateUnknown(t) => &t.object,
        }
    }

    /// Whether this is a tombstone for a missed delete.
    pub fn is_tombstone(&self) -> bool {
        matches!(self, Self::DeletedFinalStateUnknown(_))
    }

    /// The tombstone, if this is one.
    pub fn tombstone(&self) -> Option<&DeletedFinalStateUnknown<K>> {
        match self {
            Self::Object(_) => None,
            Self::DeletedFinalStateUnknown(t) => Some(t),
        }
    }
}
