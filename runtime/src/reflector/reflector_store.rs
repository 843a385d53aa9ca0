//! [`ReflectorStore`], the interface through which the reflector hands what it lists and
//! watches to a store, [`ReplaceSink`], through which a store can take a relist object by
//! object (and [`Room`], through which it can hold the list back), and [`BoxError`], the
//! error their methods return.

use std::sync::Arc;
use std::task::{Context, Poll};

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

    /// Starts a relist that this store takes object by object, as each is decoded, instead
    /// of whole through [`replace`](Self::replace); `None` (the default) for a store that
    /// takes it whole. A store that keeps much less than the decoded objects (a compact
    /// store) takes it this way, so that a relist never holds every decoded object at once.
    ///
    /// The reflector pushes every listed object, then calls
    /// [`finish`](ReplaceSink::finish) with the list's resource version. A list that fails
    /// part way, or restarts (an expired continue token), drops the sink without `finish`:
    /// what was pushed then stands as the server's state of those objects, and objects
    /// deleted meanwhile are only noticed by the next relist that finishes. client-go has
    /// no counterpart: it always collects the whole list first.
    fn start_replace(&self) -> Option<Box<dyn ReplaceSink<K> + '_>> {
        None
    }
}

/// A relist taken object by object: see [`ReflectorStore::start_replace`]. Dropping it
/// without [`finish`](Self::finish) gives the relist up.
pub trait ReplaceSink<K>: Send {
    /// One listed object, as [`replace`](ReflectorStore::replace) would have it in its list.
    fn push(&mut self, obj: Arc<K>) -> Result<(), BoxError>;

    /// The list ended at `resource_version`: objects that were not pushed were deleted
    /// while unobserved.
    fn finish(self: Box<Self>, resource_version: String) -> Result<(), BoxError>;

    /// What the reflector waits on before reading more of the list, so that decoded
    /// objects do not pile up ahead of a store that takes them more slowly than they
    /// arrive; `None` (the default): the list is read as fast as it comes.
    ///
    /// A wait that lasts [`LIST_PACE_GRACE`](super::LIST_PACE_GRACE) (or half the list
    /// idle timeout, if that is shorter) ends the pacing for the rest of that list: a
    /// consumer held up by something else (a handler applying back-pressure) must not make
    /// the API server time the list out.
    fn room(&self) -> Option<Arc<dyn Room>> {
        None
    }
}

/// Whether a store taking a relist object by object has room for more: see
/// [`ReplaceSink::room`].
pub trait Room: Send + Sync {
    /// Ready when the store can take more; otherwise `cx`'s waker is woken when it may.
    fn poll_room(&self, cx: &mut Context<'_>) -> Poll<()>;
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

    fn start_replace(&self) -> Option<Box<dyn ReplaceSink<K> + '_>> {
        (**self).start_replace()
    }
}
