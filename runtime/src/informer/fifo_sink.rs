//! Feeds what the reflector lists and watches into a DeltaFIFO, applying the informer's
//! transform on the way: the informer's [`ReflectorStore`].

use std::sync::Arc;
use std::task::{Context, Poll};

use kube::Resource;

use crate::DeletedObject;
use crate::fifo::{DeltaFifo, Replacing};
use crate::reflector::{BoxError, ReflectorStore, ReplaceSink, Room};
use crate::store::meta_namespace_key_func;

use super::options::Transform;

/// The reflector's view of an informer's DeltaFIFO.
pub(crate) struct FifoSink<K> {
    queue: DeltaFifo<K>,
    transform: Option<Transform<K>>,
    /// Relists are queued object by object as they are decoded
    /// ([`DeltaFifo::start_replace`]): for a compact cache, which holds much less than
    /// the decoded list.
    streamed: bool,
}

impl<K> FifoSink<K>
where
    K: Resource + Clone + Send + Sync + 'static,
{
    /// `streamed`: queue relists object by object, see [`FifoSink::streamed`].
    pub(crate) fn new(
        queue: DeltaFifo<K>,
        transform: Option<Transform<K>>,
        streamed: bool,
    ) -> Self {
        Self { queue, transform, streamed }
    }

    /// Runs the transform in place: the reflector hands over a fresh `Arc`, so this never
    /// copies the object. An `Arc` shared with the store is one [`reuse`](ReflectorStore::reuse)
    /// handed back to a relist: stored, so transformed already, and kept as it is.
    fn transformed(&self, mut obj: Arc<K>) -> Arc<K> {
        if let Some(transform) = &self.transform
            && Arc::strong_count(&obj) == 1
        {
            transform(Arc::make_mut(&mut obj));
        }
        obj
    }
}

impl<K> ReflectorStore<K> for FifoSink<K>
where
    K: Resource + Clone + Send + Sync + 'static,
{
    fn replace(&self, list: Vec<Arc<K>>, resource_version: String) -> Result<(), BoxError> {
        let list = list.into_iter().map(|obj| self.transformed(obj)).collect();
        Ok(self.queue.replace(list, &resource_version)?)
    }

    fn add(&self, obj: Arc<K>) -> Result<(), BoxError> {
        Ok(self.queue.add(self.transformed(obj))?)
    }

    fn update(&self, obj: Arc<K>) -> Result<(), BoxError> {
        Ok(self.queue.update(self.transformed(obj))?)
    }

    fn delete(&self, obj: Arc<K>) -> Result<(), BoxError> {
        Ok(self.queue.delete(DeletedObject::Object(self.transformed(obj)))?)
    }

    fn resync(&self) -> Result<(), BoxError> {
        Ok(self.queue.resync()?)
    }

    /// The FIFO's newest state of the object (queued, being processed, or in the
    /// informer's store) when it has `obj`'s resourceVersion. Never for a compact cache
    /// (a streamed sink): it holds no decoded object to share, so the lookup would decode
    /// the stored one, only to drop the object just decoded from the list.
    fn reuse(&self, obj: &K) -> Option<Arc<K>> {
        if self.streamed {
            return None;
        }
        let version = obj.meta().resource_version.as_deref().filter(|rv| !rv.is_empty())?;
        let newest = self.queue.newest(&meta_namespace_key_func(obj).ok()?)?;
        (newest.meta().resource_version.as_deref() == Some(version)).then_some(newest)
    }

    fn forget(&self, key: &str) -> Result<(), BoxError> {
        self.queue.forget(key);
        Ok(())
    }

    fn start_replace(&self) -> Option<Box<dyn ReplaceSink<K> + '_>> {
        self.streamed.then(|| {
            Box::new(StreamedRelist { sink: self, relist: self.queue.start_replace() })
                as Box<dyn ReplaceSink<K> + '_>
        })
    }
}

/// A relist queued object by object, each transformed on the way.
struct StreamedRelist<'a, K> {
    sink: &'a FifoSink<K>,
    relist: Replacing<K>,
}

impl<K> ReplaceSink<K> for StreamedRelist<'_, K>
where
    K: Resource + Clone + Send + Sync + 'static,
{
    fn push(&mut self, obj: Arc<K>) -> Result<(), BoxError> {
        Ok(self.relist.push(self.sink.transformed(obj))?)
    }

    fn finish(self: Box<Self>, resource_version: String) -> Result<(), BoxError> {
        Ok(self.relist.finish(&resource_version)?)
    }

    fn room(&self) -> Option<Arc<dyn Room>> {
        Some(Arc::new(FifoRoom(self.sink.queue.clone())))
    }
}

/// Decoded objects a streamed relist may have queued or being stored before the reflector
/// waits ([`DeltaFifo::poll_room`]): about 10 MB of Pods without managedFields, against
/// 40–180 MB that piled up at 10,000–100,000 Pods without a bound (BENCH.md).
const STREAMED_RELIST_ROOM: usize = 256;

/// A streamed relist's room: the FIFO's queued and in-flight keys.
struct FifoRoom<K>(DeltaFifo<K>);

impl<K: Send + Sync> Room for FifoRoom<K> {
    fn poll_room(&self, cx: &mut Context<'_>) -> Poll<()> {
        self.0.poll_room(STREAMED_RELIST_ROOM, cx)
    }
}
