//! What an informer calls when objects change: [`ResourceEventHandler`] and the closure
//! builder [`ResourceEventHandlerFuncs`] (client-go's `ResourceEventHandler` and
//! `ResourceEventHandlerDetailedFuncs`).

use std::fmt;
use std::sync::Arc;

use crate::tombstone::DeletedObject;

/// Receives the changes an informer observes, one call at a time, in order.
///
/// # In which order
///
/// In the order the changes arrived from the API server, across objects: changes queued as
/// A1, B1, A2 arrive as A1, B1, A2 (client-go's `RealFIFO` order, the default since 1.33 and
/// GA in 1.36; its older `DeltaFIFO` path gave A1, A2, B1). A relist is still applied to
/// the cache as a whole before its notifications go out.
///
/// # Where handlers run
///
/// Each handler runs on its own OS thread (see [`SharedProcessor`](super::SharedProcessor)),
/// with the informer's Tokio runtime current: the runtime the informer is
/// [run](crate::SharedIndexInformer::run) in (a factory's `start`), or, before that, the
/// one the handler was added in. So a method may:
/// - block or do slow work, without delaying other handlers or the informer;
///   notifications for this handler queue up meanwhile (bound them with
///   [`HandlerOptions::max_pending`](super::HandlerOptions::max_pending));
/// - `tokio::spawn` a task, or use `Handle::current()`, to hand work to async code, such
///   as pushing a key into a work queue or sending on a channel;
/// - not `block_on` the runtime (Tokio refuses to block on a runtime from a thread where
///   it is current); spawn instead, or use a blocking channel send.
///
/// A panic in a method is caught and logged (without the object), and the handler
/// receives the next notification.
///
/// Objects are shared `Arc`s: keep a clone if you need one, never expect to mutate it.
/// Every method defaults to doing nothing.
pub trait ResourceEventHandler<K>: Send + Sync + 'static {
    /// An object appeared. `is_in_initial_list` is true for objects of the informer's first
    /// list, and for the cached objects a handler receives when it is added to a running
    /// informer.
    fn on_add(&self, obj: &Arc<K>, is_in_initial_list: bool) {
        let _ = (obj, is_in_initial_list);
    }

    /// An object changed, or a periodic resync re-delivered it (then `old` and `new` carry
    /// the same resourceVersion).
    fn on_update(&self, old: &Arc<K>, new: &Arc<K>) {
        let _ = (old, new);
    }

    /// An object was deleted: the object itself, or a tombstone when the informer missed
    /// the delete and found the object gone on a relist.
    fn on_delete(&self, obj: &DeletedObject<K>) {
        let _ = obj;
    }
}

/// A shared handler is a handler, so one `Arc` can be registered with several informers
/// or wrapped in a [`FilteringResourceEventHandler`](super::FilteringResourceEventHandler).
impl<K, H> ResourceEventHandler<K> for Arc<H>
where
    H: ResourceEventHandler<K> + ?Sized,
{
    fn on_add(&self, obj: &Arc<K>, is_in_initial_list: bool) {
        (**self).on_add(obj, is_in_initial_list);
    }

    fn on_update(&self, old: &Arc<K>, new: &Arc<K>) {
        (**self).on_update(old, new);
    }

    fn on_delete(&self, obj: &DeletedObject<K>) {
        (**self).on_delete(obj);
    }
}

type AddFn<K> = Box<dyn Fn(&Arc<K>, bool) + Send + Sync + 'static>;
type UpdateFn<K> = Box<dyn Fn(&Arc<K>, &Arc<K>) + Send + Sync + 'static>;
type DeleteFn<K> = Box<dyn Fn(&DeletedObject<K>) + Send + Sync + 'static>;

/// A [`ResourceEventHandler`] built from closures; a callback left unset ignores its
/// notifications.
///
/// ```
/// use std::sync::Arc;
/// use kube_informers_runtime::{DeletedObject, ResourceEventHandler, ResourceEventHandlerFuncs};
///
/// struct Pod {
///     name: String,
/// }
///
/// let handler = ResourceEventHandlerFuncs::new()
///     .on_add(|pod: &Arc<Pod>, is_in_initial_list| {
///         println!("added {} (initial list: {is_in_initial_list})", pod.name);
///     })
///     .on_update(|old, new| println!("{} -> {}", old.name, new.name))
///     .on_delete(|gone: &DeletedObject<Pod>| println!("deleted {}", gone.object().name));
///
/// // The builder's `on_*` methods shadow the trait's, so call the trait explicitly.
/// ResourceEventHandler::on_add(&handler, &Arc::new(Pod { name: "web".into() }), true);
/// ```
pub struct ResourceEventHandlerFuncs<K> {
    add: Option<AddFn<K>>,
    update: Option<UpdateFn<K>>,
    delete: Option<DeleteFn<K>>,
}

impl<K> ResourceEventHandlerFuncs<K> {
    /// A handler that ignores everything until callbacks are set.
    pub fn new() -> Self {
        Self { add: None, update: None, delete: None }
    }

    /// Sets the callback for added objects; the flag is `is_in_initial_list`.
    pub fn on_add<F>(mut self, f: F) -> Self
    where
        F: Fn(&Arc<K>, bool) + Send + Sync + 'static,
    {
        self.add = Some(Box::new(f));
        self
    }

    /// Sets the callback for updated (or resynced) objects: `(old, new)`.
    pub fn on_update<F>(mut self, f: F) -> Self
    where
        F: Fn(&Arc<K>, &Arc<K>) + Send + Sync + 'static,
    {
        self.update = Some(Box::new(f));
        self
    }

    /// Sets the callback for deleted objects and tombstones.
    pub fn on_delete<F>(mut self, f: F) -> Self
    where
        F: Fn(&DeletedObject<K>) + Send + Sync + 'static,
    {
        self.delete = Some(Box::new(f));
        self
    }
}

impl<K> Default for ResourceEventHandlerFuncs<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K> fmt::Debug for ResourceEventHandlerFuncs<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceEventHandlerFuncs")
            .field("on_add", &self.add.is_some())
            .field("on_update", &self.update.is_some())
            .field("on_delete", &self.delete.is_some())
            .finish()
    }
}

impl<K> ResourceEventHandler<K> for ResourceEventHandlerFuncs<K>
where
    K: Send + Sync + 'static,
{
    fn on_add(&self, obj: &Arc<K>, is_in_initial_list: bool) {
        if let Some(add) = &self.add {
            add(obj, is_in_initial_list);
        }
    }

    fn on_update(&self, old: &Arc<K>, new: &Arc<K>) {
        if let Some(update) = &self.update {
            update(old, new);
        }
    }

    fn on_delete(&self, obj: &DeletedObject<K>) {
        if let Some(delete) = &self.delete {
            delete(obj);
        }
    }
}
