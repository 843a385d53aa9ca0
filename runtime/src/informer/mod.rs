//! Shared informers: event handlers, and the processor that feeds them.

mod buffer;
mod deferred;
mod filtering;
mod handler;
mod listener;
mod notification;
mod options;
mod processor;
mod resync;

pub use filtering::FilteringResourceEventHandler;
pub use handler::{ResourceEventHandler, ResourceEventHandlerFuncs};
pub use listener::{LISTENER_THREAD_NAME, ListenerHandle, ListenerId};
pub use notification::Notification;
pub use options::{HandlerOptions, OverflowPolicy};
pub use processor::{ProcessorError, SharedProcessor};

mod controller;
mod erased;
mod erased_view;
mod error;
mod fifo_sink;
mod filtered;
mod shared_informer;

pub use controller::{AfterBatchFunc, BoxError, Config, Controller, ProcessFailure, ProcessFunc};
pub use erased::ErasedInformer;
pub use error::{InformerError, Result};
pub(crate) use filtered::filtered_lister_watcher;
pub use filtered::{InformerScope, new_filtered_informer};
pub use shared_informer::{
    MINIMUM_RESYNC_PERIOD, ResourceEventHandlerRegistration, SharedIndexInformer, Transform,
    WatchErrorHandler,
};
