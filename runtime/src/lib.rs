//! client-go's informer machinery for Rust: a thread-safe indexed store, the DeltaFIFO,
//! the reflector, shared informers with their processor and listeners, and listers.
//!
//! Objects are shared as `Arc<K>` from the moment they are decoded: the store, the FIFO
//! and every handler see the same allocation, and nothing is deep-copied.
#![forbid(unsafe_code)]
#![doc(test(attr(deny(warnings))))]

pub mod tombstone;

pub use tombstone::{DeletedFinalStateUnknown, DeletedObject};

pub mod fifo;
pub mod lister;
pub mod store;

pub use fifo::{Delta, DeltaFifo, DeltaType, Deltas, KnownObjects};
pub use lister::{Lister, NamespaceLister};
pub use store::{Indexer, Indexers, NAMESPACE_INDEX};

pub mod informer;
pub mod labels;

pub use informer::{
    FilteringResourceEventHandler, HandlerOptions, ListenerHandle, ListenerId, Notification,
    OverflowPolicy, ProcessorError, ResourceEventHandler, ResourceEventHandlerFuncs,
    SharedProcessor,
};

pub mod reflector;

pub use reflector::{
    ApiListerWatcher, LastSyncResourceVersion, ListerWatcher, Reflector, ReflectorConfig,
    ReflectorError, ReflectorStore,
};

pub mod factory;

pub use factory::{SharedInformerFactory, SharedInformerFactoryBuilder, gvr_of};
pub use informer::{
    ErasedInformer, InformerError, InformerScope, ResourceEventHandlerRegistration,
    SharedIndexInformer, new_filtered_informer,
};
pub use reflector::TweakListParams;

pub mod dynamic;

pub use dynamic::{
    DynamicSharedInformerFactory, GenericInformer, GenericLister, GenericNamespaceLister,
    MetadataObject, MetadataSharedInformerFactory,
};

pub mod workqueue;

pub use workqueue::{DelayingQueue, RateLimitingQueue, WorkQueue};

pub mod metrics;

pub use metrics::{InformerStats, ReflectorStats};
