//! [`HandlerOptions`]: how a handler is registered, including the optional bound on its
//! pending notifications and what happens when it is reached ([`OverflowPolicy`]).

use std::num::NonZeroUsize;
use std::time::Duration;

/// What happens when a bounded handler is `max_pending` notifications behind and another
/// one arrives. Either way nothing is lost silently: the handler receives every
/// notification in order, or it is disconnected and its registration says so.
///
/// client-go has no bound: a stalled handler's buffer grows until the process runs out of
/// memory. Ours is unbounded by default too; see [`HandlerOptions::max_pending`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OverflowPolicy {
    /// Back-pressure: the side that distributes notifications waits until the handler has
    /// room.
    ///
    /// While the handler is full, **every** handler of the informer stops receiving
    /// notifications and the informer stops applying deltas to its cache, so listers go
    /// stale too. The informer's list/watch keeps running into its DeltaFIFO, which grows
    /// meanwhile. A handler must therefore never wait, while it handles a notification, on
    /// its own informer (its cache catching up, another handler's progress, its own
    /// removal): that deadlocks once it is full. Removing the handler, or stopping the
    /// informer, releases the waiting side at once.
    ///
    /// An informer waits asynchronously, without blocking a runtime thread.
    /// [`SharedProcessor::distribute`](super::SharedProcessor::distribute) and adding a
    /// handler to a running informer (which hands it the cached objects) block the calling
    /// thread.
    Block,
    /// Disconnect the handler: its listener is stopped and removed, the notifications queued
    /// for it are freed, a warning naming the listener and the bound is logged, and its
    /// registration reports
    /// [`is_disconnected`](crate::informer::ResourceEventHandlerRegistration::is_disconnected).
    ///
    /// The handler receives nothing more, not even the notification that overflowed; the
    /// one it is handling completes. Other handlers and the cache carry on unaffected. To
    /// catch up, register a handler again: like any handler added to a running informer, it
    /// first receives every cached object as an add.
    #[default]
    Disconnect,
}

/// How a handler is registered: resync period, and an optional bound on the notifications
/// queued for it.
///
/// The default is what [`add_event_handler`](crate::informer::SharedIndexInformer::add_event_handler)
/// does: the informer's default resync period and an **unbounded** buffer, as in client-go.
///
/// ```
/// use std::num::NonZeroUsize;
/// use std::time::Duration;
/// use kube_informers_runtime::{HandlerOptions, OverflowPolicy};
///
/// let options = HandlerOptions::new()
///     .resync_period(Duration::from_secs(600))
///     .max_pending(NonZeroUsize::new(10_000).unwrap())
///     .overflow(OverflowPolicy::Disconnect);
/// assert_eq!(options.get_max_pending().map(NonZeroUsize::get), Some(10_000));
/// ```
///
/// # Choosing a bound
///
/// The initial list, a relist, a resync and (for a handler added to a running informer)
/// the cached objects all go through the same buffer. A bound smaller than the number of
/// objects the informer holds disconnects (or, with [`OverflowPolicy::Block`], throttles) a
/// handler that is merely slower than the informer during those bursts; pick one well above
/// the cache size, as a guard against a handler that has stalled for good.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HandlerOptions {
    resync_period: Option<Duration>,
    max_pending: Option<NonZeroUsize>,
    overflow: OverflowPolicy,
}

impl HandlerOptions {
    /// The defaults: informer's resync period, unbounded buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// How often the handler receives `on_update(x, x)` for every cached object (zero:
    /// never). Unset, an informer uses its default resync period; a bare
    /// [`SharedProcessor`](super::SharedProcessor) never resyncs.
    pub fn resync_period(mut self, period: Duration) -> Self {
        self.resync_period = Some(period);
        self
    }

    /// Bounds the handler's pending notifications (queued, plus the one being handled) at
    /// `max`; what happens beyond is the [`overflow`](Self::overflow) policy. Unset, the
    /// buffer is unbounded.
    pub fn max_pending(mut self, max: NonZeroUsize) -> Self {
        self.max_pending = Some(max);
        self
    }

    /// What happens when the bound is reached; [`OverflowPolicy::Disconnect`] unless set.
    /// Ignored without [`max_pending`](Self::max_pending).
    pub fn overflow(mut self, policy: OverflowPolicy) -> Self {
        self.overflow = policy;
        self
    }

    /// The resync period, if set.
    pub fn get_resync_period(&self) -> Option<Duration> {
        self.resync_period
    }

    /// The bound on pending notifications, if any.
    pub fn get_max_pending(&self) -> Option<NonZeroUsize> {
        self.max_pending
    }

    /// The overflow policy.
    pub fn get_overflow(&self) -> OverflowPolicy {
        self.overflow
    }

    /// The bound and its policy, as the buffer applies them.
    pub(crate) fn bound(&self) -> Option<Bound> {
        self.max_pending.map(|max| Bound { max, policy: self.overflow })
    }
}

/// A bound in force on one buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bound {
    pub(crate) max: NonZeroUsize,
    pub(crate) policy: OverflowPolicy,
}
