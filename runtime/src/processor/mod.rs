//! The processor: event handlers, the listeners that call them and the notifications they
//! receive (client-go's `sharedProcessor` and `processorListener` in
//! `tools/cache/shared_informer.go`, and `ResourceEventHandler` in `controller.go`).
//!
//! A [`SharedProcessor`] fans every notification of one informer out to one listener per
//! handler; each listener has its own buffer (unbounded, or bounded with an
//! [`OverflowPolicy`]) and its own thread, so a slow handler delays only itself. This layer
//! knows nothing of lists, watches or caches: the informer above it decides what to
//! distribute.

mod buffer;
mod deferred;
mod filtering_handler;
mod handler;
mod listener;
mod notification;
mod options;
mod resync;
mod runtime;
mod shared_processor;

pub use buffer::{RELEASE_HELD_MAX, RELEASE_IDLE};
pub(crate) use deferred::Deferred;
pub use filtering_handler::FilteringResourceEventHandler;
pub use handler::{ResourceEventHandler, ResourceEventHandlerFuncs};
pub use listener::{LISTENER_THREAD_NAME, ListenerHandle, ListenerId};
pub use notification::Notification;
pub use options::{HandlerOptions, OverflowPolicy};
pub use shared_processor::{ProcessorError, SharedProcessor};
