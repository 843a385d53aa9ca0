//! [`Paced`]: a list request read no faster than its store takes the objects
//! ([`ReplaceSink::room`](super::ReplaceSink::room)).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures::future::BoxFuture;
use tokio::time::Sleep;
use tracing::debug;

use super::reflector_store::Room;

/// The longest a reflector waits for room in a store before it reads the rest of the
/// list at full speed (see [`ReplaceSink::room`](super::ReplaceSink::room)).
pub const LIST_PACE_GRACE: Duration = Duration::from_secs(1);

/// A list request that is only polled while `room` is ready: while the store is behind,
/// the request's body is not read, so the connection stops reading and the API server's
/// writes wait (TCP flow control) instead of decoded objects piling up here.
pub(super) struct Paced<'a, T> {
    list: BoxFuture<'a, T>,
    room: Arc<dyn Room>,
    grace: Duration,
    /// Armed when a wait for room begins; the pacing ends if it fires first.
    waiting: Option<Pin<Box<Sleep>>>,
    off: bool,
}

impl<'a, T> Paced<'a, T> {
    /// `list` paced by `room`, giving up the pacing after a wait of `grace`.
    pub(super) fn new(list: BoxFuture<'a, T>, room: Arc<dyn Room>, grace: Duration) -> Self {
        Self { list, room, grace, waiting: None, off: false }
    }

    /// Whether a wait for room outlasted the grace, so that the list was read unpaced.
    pub(super) fn gave_up(&self) -> bool {
        self.off
    }
}

impl<T> Future for Paced<'_, T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let this = self.get_mut();
        if !this.off {
            match this.room.poll_room(cx) {
                Poll::Ready(()) => this.waiting = None,
                Poll::Pending => {
                    let grace = this.grace;
                    let timer =
                        this.waiting.get_or_insert_with(|| Box::pin(tokio::time::sleep(grace)));
                    if timer.as_mut().poll(cx).is_pending() {
                        return Poll::Pending;
                    }
                    debug!(?grace, "the store is not taking the list; reading the rest unpaced");
                    this.waiting = None;
                    this.off = true;
                }
            }
        }
        this.list.as_mut().poll(cx)
    }
}

/// How long a list may wait for room: [`LIST_PACE_GRACE`], or half the list idle limit if
/// that is shorter, so that a wait never makes the list look silent.
pub(super) fn grace(idle_limit: Option<Duration>) -> Duration {
    idle_limit.map_or(LIST_PACE_GRACE, |limit| LIST_PACE_GRACE.min(limit / 2))
}
