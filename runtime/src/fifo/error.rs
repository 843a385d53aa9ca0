//! Errors of the DeltaFIFO.

use crate::store::KeyError;

/// Errors of [`DeltaFifo`](super::DeltaFifo) producer operations.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FifoError {
    /// The object's key could not be computed; nothing was queued.
    #[error("cannot compute the key of an object to queue")]
    Key(#[from] KeyError),
    /// A relist handed over object by object was superseded by a later one
    /// ([`DeltaFifo::start_replace`](super::DeltaFifo::start_replace) or
    /// [`DeltaFifo::replace`](super::DeltaFifo::replace)); nothing was queued for it.
    #[error("a later relist superseded this one")]
    Superseded,
}

/// Result of [`DeltaFifo`](super::DeltaFifo) producer operations.
pub type Result<T, E = FifoError> = std::result::Result<T, E>;

/// Why [`DeltaFifo::pop`](super::DeltaFifo::pop) returned without success.
#[derive(Debug, thiserror::Error)]
pub enum PopError<E> {
    /// The FIFO was closed and has nothing left to pop (client-go `ErrFIFOClosed`).
    #[error("DeltaFIFO: manipulating with closed queue")]
    Closed,
    /// The process function failed on the popped deltas. They are gone from the FIFO; to
    /// retry, hand them back with [`DeltaFifo::add_if_not_present`](super::DeltaFifo::add_if_not_present).
    #[error("processing popped deltas failed")]
    Process(#[source] E),
}

impl<E> PopError<E> {
    /// Whether this is [`PopError::Closed`].
    pub fn is_closed(&self) -> bool {
        matches!(self, Self::Closed)
    }
}
