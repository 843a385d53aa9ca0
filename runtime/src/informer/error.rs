//! Errors of the informer API.

use crate::processor::ProcessorError;
use crate::store::StoreError;

/// What an informer call can fail with.
#[derive(Debug, thiserror::Error)]
pub enum InformerError {
    /// The call is only allowed before the informer starts (client-go rejects it too).
    #[error("the informer has already started")]
    AlreadyStarted,
    /// The informer has stopped: a handler added now would never be called.
    #[error("the informer has stopped; handlers can no longer be added")]
    Stopped,
    /// The cache refused the call, e.g. an indexer name that already exists.
    #[error("cache error")]
    Store(#[from] StoreError),
    /// The handler could not be registered with the processor.
    #[error("cannot register the handler")]
    Processor(#[from] ProcessorError),
    /// The informer stopped because user code it runs panicked: a transform, an index
    /// function, a list tweak or a lister-watcher. `message` is the panic's message (the
    /// text of that code's own `panic!`); it is never logged.
    #[error("the informer stopped: a transform, index function or list tweak panicked: {message}")]
    Panicked {
        /// The panic message, if the payload was a string.
        message: String,
    },
}

/// The informer module's result.
pub type Result<T, E = InformerError> = std::result::Result<T, E>;
