//! [`FilteringResourceEventHandler`]: a handler that sees only the objects a predicate
//! accepts (client-go's `FilteringResourceEventHandler` in `tools/cache/controller.go`).

use std::fmt;
use std::sync::Arc;

use super::handler::ResourceEventHandler;
use crate::tombstone::DeletedObject;

type FilterFn<K> = Box<dyn Fn(&K) -> bool + Send + Sync + 'static>;

/// Forwards to `handler` only what passes `filter`, turning updates that cross the filter's
/// boundary into adds and deletes so the handler's view stays consistent:
///
/// | old passes | new passes | handler receives |
/// |---|---|---|
/// | yes | yes | `on_update(old, new)` |
/// | no | yes | `on_add(new, false)` |
/// | yes | no | `on_delete(DeletedObject::Object(old))` |
/// | no | no | nothing |
///
/// Adds pass when the object passes; deletes pass when the deleted object (or the
/// tombstone's last known state) passes.
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use kube_informers_runtime::{
///     FilteringResourceEventHandler, ResourceEventHandler, ResourceEventHandlerFuncs,
/// };
///
/// let adds = Arc::new(AtomicUsize::new(0));
/// let counted = Arc::clone(&adds);
/// let handler = FilteringResourceEventHandler::new(
///     |n: &u32| n % 2 == 0,
///     ResourceEventHandlerFuncs::new().on_add(move |_, _| {
///         counted.fetch_add(1, Ordering::Relaxed);
///     }),
/// );
/// handler.on_add(&Arc::new(1), false);
/// handler.on_add(&Arc::new(2), false);
/// assert_eq!(adds.load(Ordering::Relaxed), 1);
/// ```
pub struct FilteringResourceEventHandler<K, H> {
    filter: FilterFn<K>,
    handler: H,
}

impl<K, H> FilteringResourceEventHandler<K, H> {
    /// Wraps `handler` so that it sees only objects for which `filter` returns true.
    pub fn new(filter: impl Fn(&K) -> bool + Send + Sync + 'static, handler: H) -> Self {
        Self { filter: Box::new(filter), handler }
    }

    /// The wrapped handler.
    pub fn handler(&self) -> &H {
        &self.handler
    }
}

impl<K, H: fmt::Debug> fmt::Debug for FilteringResourceEventHandler<K, H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FilteringResourceEventHandler").field("handler", &self.handler).finish()
    }
}

impl<K, H> ResourceEventHandler<K> for FilteringResourceEventHandler<K, H>
where
    K: Send + Sync + 'static,
    H: ResourceEventHandler<K>,
{
    fn on_add(&self, obj: &Arc<K>, is_in_initial_list: bool) {
        if (self.filter)(obj) {
            self.handler.on_add(obj, is_in_initial_list);
        }
    }

    fn on_update(&self, old: &Arc<K>, new: &Arc<K>) {
        match ((self.filter)(old), (self.filter)(new)) {
            (true, true) => self.handler.on_update(old, new),
            // Entering the filter: to this handler the object is new. It is not part of an
            // initial list, whatever the informer's state.
            (false, true) => self.handler.on_add(new, false),
            // Leaving the filter: to this handler the object is gone, as it last saw it.
            (true, false) => self.handler.on_delete(&DeletedObject::Object(Arc::clone(old))),
            (false, false) => {}
        }
    }

    fn on_delete(&self, obj: &DeletedObject<K>) {
        if (self.filter)(obj.object()) {
            self.handler.on_delete(obj);
        }
    }
}
