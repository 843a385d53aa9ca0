//! When a listener is due for a periodic resync (client-go's `processorListener`
//! `shouldResync` / `determineNextResync`).

use std::time::Duration;

use tokio::time::Instant;

/// One listener's resync period, next due time, and whether it belongs to the current
/// syncing set (the listeners that receive sync notifications).
#[derive(Debug)]
pub(crate) struct ResyncSchedule {
    period: Duration,
    next_resync: Instant,
    syncing: bool,
}

impl ResyncSchedule {
    /// A schedule first due one `period` after `now`; a zero period is never due.
    ///
    /// A new listener is not in the syncing set until a resync check finds it due. client-go
    /// puts every new listener in the set, so a handler without a resync period receives
    /// sync notifications (relist entries whose resourceVersion did not change) until the
    /// first check; here only handlers that asked for resyncs ever receive them.
    pub(crate) fn new(period: Duration, now: Instant) -> Self {
        Self { period, next_resync: now + period, syncing: false }
    }

    /// Re-evaluates the schedule at `now`: joins the syncing set and reschedules one period
    /// later if due, leaves it otherwise. Returns whether it is due.
    pub(crate) fn check(&mut self, now: Instant) -> bool {
        self.syncing = !self.period.is_zero() && now >= self.next_resync;
        if self.syncing {
            self.next_resync = now + self.period;
        }
        self.syncing
    }

    /// Whether the last check found this listener due.
    pub(crate) fn is_syncing(&self) -> bool {
        self.syncing
    }
}
