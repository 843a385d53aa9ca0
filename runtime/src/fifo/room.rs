//! [`DeltaFifo::poll_room`]: how a producer waits for the consumer to catch up.

use std::task::{Context, Poll};

use super::delta_fifo::DeltaFifo;

impl<K> DeltaFifo<K> {
    /// Ready when at most `bound` keys are queued or being processed, or the FIFO is
    /// closed; otherwise `cx`'s waker is woken when a pop's processing ends (or the FIFO
    /// closes), and it is worth asking again.
    ///
    /// For a producer that can wait: a reflector handing a relist over object by object
    /// ([`start_replace`](Self::start_replace)) holds its list back with it, so that the
    /// decoded objects between the list and a compact store stay about `bound`, however
    /// much faster the list arrives than the store encodes. Only the last waker registered
    /// is woken: one paced producer per FIFO. client-go has no counterpart (its reflector
    /// collects the whole list before `Replace`).
    pub fn poll_room(&self, bound: usize, cx: &mut Context<'_>) -> Poll<()> {
        if self.peek(|state| state.has_room(bound, cx.waker())) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}
