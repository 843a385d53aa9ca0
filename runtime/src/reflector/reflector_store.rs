//! [`ReflectorStore`], the interface through which the reflector hands what it lists and
//! watches to a store, and [`BoxError`], the error its methods return.

use std::sync::Arc;

/// A boxed error returned by a [`ReflectorStore`] implementation.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Where a [`Reflector`](super::Reflector) puts what it lists and watches: client-go's
/// `ReflectorStore`. A shared informer implements it with an adapter that queues what
/// arrives into its DeltaFIFO (applying the informer's transform); tests use a recording
/// implementation.
///
/// Objects arrive already wrapped in `Arc` and are never copied. Implementations must be
/// cheap and non-blocking: they are called from the reflector's task.
pub trait ReflectorStore<K>: Send + Sync {
    /// Replaces the whole content with `list`, the result of a (re)list or streaming list
    /// at `resource_version`. Objects missing from `list` were deleted while unobserved.
    fn replace(&self, list: Vec<Arc<K>>, resource_version: String) -> Result<(), BoxError>;

    /// An `ADDED` watch event.
    fn add(&self, obj: Arc<K>) -> Result<(), BoxError>;

    /// A `MODIFIED` watch event.
    fn update(&self, obj: Arc<K>) -> Result<(), BoxError>;

    /// A `DELETED` watch event, carrying the object's last state.
    fn delete(&self, obj: Arc<K>) -> Result<(), BoxError>;

    /// The resync timer fired and `should_resync` agreed: re-deliver the known objects.
    fn resync(&self) -> Result<(), BoxError>;

    /// The object this store holds for `obj`'s key at `obj`'s resourceVersion, if any. A
    /// (re)list hands that object to [`replace`](Self::replace) in place of `obj`, which is
    /// dropped at once: an unchanged object is then held once, not twice, while a relist is
    /// read, and the store's copy (already transformed, for an informer) is kept. The
    /// default holds nothing and returns `None`.
    ///
    /// client-go decodes and keeps a second copy of every object during a relist, and
    /// hands `OnUpdate` two equal but distinct objects; here an unchanged object is the same
    /// `Arc` before and after the relist.
    fn reuse(&self, obj: &K) -> Option<Arc<K>> {
        let _ = obj;
        None
    }

    /// A watch event for the object under `key` (`namespace/name` or `name`) carried a
    /// version that does not decode (see
    /// [`SkippedObject`](crate::listwatch::SkippedObject)): drop the object as a relist
    /// without it would, with no final state. The default does nothing, which keeps the
    /// last decodable version until the next relist; the informer's store queues a
    /// [`DeletedFinalStateUnknown`](crate::DeletedFinalStateUnknown) tombstone.
    fn forget(&self, key: &str) -> Result<(), BoxError> {
        let _ = key;
        Ok(())
    }
}

impl<K, S> ReflectorStore<K> for Arc<S>
where
    S: ReflectorStore<K> + ?Sized,
{
    fn replace(&self, list: Vec<Arc<K>>, resource_version: String) -> Result<(), BoxError> {
        (**self).replace(list, resource_version)
    }

    fn add(&self, obj: Arc<K>) -> Result<(), BoxError> {
        (**self).add(obj)
    }

    fn update(&self, obj: Arc<K>) -> Result<(), BoxError> {
        (**self).update(obj)
    }

    fn delete(&self, obj: Arc<K>) -> Result<(), BoxError> {
        (**self).delete(obj)
    }

    fn resync(&self) -> Result<(), BoxError> {
        (**self).resync()
    }

    fn reuse(&self, obj: &K) -> Option<Arc<K>> {
        (**self).reuse(obj)
    }

    fn forget(&self, key: &str) -> Result<(), BoxError> {
        (**self).forget(key)
    }
}
