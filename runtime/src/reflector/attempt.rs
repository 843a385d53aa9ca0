//! One classifier for a failed watch or streaming-list attempt (client-go's
//! `isExpiredError` and `isWatchErrorRetriable`): an expired resource version, throttling
//! and retriable transient failures are handled here, alike for both stages; anything
//! else goes back to the stage for its own outcome (a relist, a fall back to a plain list).

use kube::Resource;
use tokio_util::sync::CancellationToken;

use super::{
    Phase, Reflector, ReflectorError,
    error::{Disposition, classify},
    state::{RunState, sleep},
};

/// What became of a failed watch or streaming-list attempt.
pub(super) enum Failed {
    /// The resource version expired: reported, and the next (re)list, watch or streaming
    /// list asks for `""`, a consistent read.
    Expired,
    /// Throttled, or a transient failure the stage retries: reported, and the backoff (at
    /// least the server's `Retry-After`) slept. Try the same request again.
    BackedOff,
    /// Cancelled during the backoff.
    Cancelled,
    /// Anything else, not reported yet: the stage reports it and decides what follows.
    Other(kube::Error, Disposition),
}

impl<K> Reflector<K>
where
    K: Resource + Clone + Send + Sync + 'static,
{
    /// Classifies a failed attempt of `phase` (a watch or a streaming list). Throttling is
    /// always retried after a backoff; a transient failure (5xx, transport, stall) only
    /// when `retry_transient`, otherwise it is handed back as [`Failed::Other`].
    pub(super) async fn attempt_failed(
        &self,
        state: &mut RunState,
        phase: Phase,
        err: kube::Error,
        retry_transient: bool,
        cancel: &CancellationToken,
    ) -> Failed {
        let disposition = classify(&err);
        match disposition {
            Disposition::Expired => {
                state.rv_unavailable = true;
                self.report(&ReflectorError::Expired { phase, source: err });
                Failed::Expired
            }
            Disposition::Throttled { .. } => {
                self.back_off(state, phase, disposition, err, cancel).await
            }
            Disposition::Transient if retry_transient => {
                self.back_off(state, phase, disposition, err, cancel).await
            }
            _ => Failed::Other(err, disposition),
        }
    }

    /// Reports `err` as the failure of `phase`, then sleeps for the next backoff (at least
    /// the server's `Retry-After`).
    async fn back_off(
        &self,
        state: &mut RunState,
        phase: Phase,
        disposition: Disposition,
        err: kube::Error,
        cancel: &CancellationToken,
    ) -> Failed {
        self.report(&match phase {
            Phase::List => ReflectorError::List(err),
            Phase::Watch => ReflectorError::Watch(err),
            Phase::StreamingList => ReflectorError::StreamingList(err),
        });
        let delay = state.backoff.next_delay().max(disposition.retry_after().unwrap_or_default());
        tracing::debug!(?delay, "retrying the {phase} after backoff");
        if sleep(delay, cancel).await { Failed::BackedOff } else { Failed::Cancelled }
    }
}
