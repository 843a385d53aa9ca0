//! client-go's informer machinery for Rust: a thread-safe indexed store, the DeltaFIFO,
//! the reflector, shared informers with their processor and listeners, and listers.
//!
//! Objects are shared as `Arc<K>` from the moment they are decoded: the store, the FIFO
//! and every handler see the same allocation, and nothing is deep-copied.
#![forbid(unsafe_code)]
#![doc(test(attr(deny(warnings))))]

// The layers, each using only those listed before it (docs/architecture.md).
pub mod tombstone;

pub use tombstone::{DeletedFinalStateUnknown, DeletedObject};

pub mod labels;
pub mod store;

pub use store::{CompactConfig, Indexer, Indexers, NAMESPACE_INDEX};

pub mod fifo;
pub mod lister;

pub use fifo::{Delta, DeltaFifo, DeltaType, Deltas, KnownObjects};
pub use lister::{GenericLister, GenericNamespaceLister, Lister, NamespaceLister};

pub mod listwatch;

pub use listwatch::{ApiListerWatcher, InformerScope, ListerWatcher, TweakListParams};

pub mod reflector;

pub use reflector::{
    LastSyncResourceVersion, Reflector, ReflectorConfig, ReflectorError, ReflectorStore,
};

pub mod processor;

pub use processor::{
    FilteringResourceEventHandler, HandlerOptions, ListenerHandle, ListenerId, Notification,
    OverflowPolicy, ProcessorError, ResourceEventHandler, ResourceEventHandlerFuncs,
    SharedProcessor,
};

pub mod metrics;

pub use metrics::{InformerStats, ReflectorStats};

pub mod informer;

pub use informer::{
    InformerError, ResourceEventHandlerRegistration, SharedIndexInformer, new_filtered_informer,
};

pub mod factory;

pub use factory::{
    ErasedInformer, FactoryBuilder, GenericInformer, TypedFactoryBuilder, TypedInformerFactory,
    gvr_of,
};

pub mod dynamic;

pub use dynamic::{DynamicSharedInformerFactory, MetadataObject, MetadataSharedInformerFactory};

pub mod workqueue;

pub use workqueue::{DelayingQueue, RateLimitingQueue, WorkQueue};
