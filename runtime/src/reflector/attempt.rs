//! One classifier for a failed watch or streaming-list attempt (client-go's
//! `isExpiredError` and `isWatchErrorRetriable`): an expired resource version, throttling
//! and retriable transient failures are handled here, alike for both stages; anything
//! else goes back to the stage for its own outcome (a relist, a fall back to a plain list).

use kube::Resource;
use tokio_util::sync::CancellationToken;

use crate::listwatch::causes;

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
    /// Classifies a failed attempt of `phase` (a watch or a streaming list; `opening`: the
    /// request itself failed, not its stream). Throttling is always retried after a
    /// backoff; a transient failure (5xx, transport, stall) only when `retry_transient`,
    /// otherwise it is handed back as [`Failed::Other`].
    ///
    /// An expired watch leaves the last synced resource version usable, as client-go's
    /// `watch` does: the relist asks for it, without a limit, so that the API server
    /// answers from its watch cache ("at least as fresh as" that version), and only a
    /// refusal of that list turns to a consistent, paginated read from etcd. An expired
    /// streaming list restreams from `""`, as client-go's `watchList`.
    pub(super) async fn attempt_failed(
        &self,
        state: &mut RunState,
        phase: Phase,
        err: kube::Error,
        retry_transient: bool,
        opening: bool,
        cancel: &CancellationToken,
    ) -> Failed {
        let disposition = classify(&err);
        match disposition {
            Disposition::Expired => {
                if phase != Phase::Watch {
                    state.rv_unavailable = true;
                }
                self.note(&ReflectorError::Expired { phase, source: err });
                Failed::Expired
            }
            Disposition::Throttled { .. } => {
                self.back_off(state, phase, disposition, err, opening, cancel).await
            }
            Disposition::Transient if retry_transient => {
                self.back_off(state, phase, disposition, err, opening, cancel).await
            }
            _ => Failed::Other(err, disposition),
        }
    }

    /// Reports `err` as the failure of `phase`, then sleeps for the next backoff (at least
    /// the server's `Retry-After`). A watch request that failed other than by a refused
    /// connection or throttling reaches the watch-error handler, as client-go's
    /// `isWatchErrorRetriable` decides; the rest are only logged and observed.
    async fn back_off(
        &self,
        state: &mut RunState,
        phase: Phase,
        disposition: Disposition,
        err: kube::Error,
        opening: bool,
        cancel: &CancellationToken,
    ) -> Failed {
        let to_handler = phase == Phase::Watch
            && opening
            && !matches!(disposition, Disposition::Throttled { .. })
            && !is_connection_refused(&err);
        let err = match phase {
            Phase::List => ReflectorError::List(err),
            Phase::Watch => ReflectorError::Watch(err),
            Phase::StreamingList => ReflectorError::StreamingList(err),
        };
        if to_handler {
            self.report(&err);
        } else {
            self.note(&err);
        }
        let delay = state.backoff.next_delay().max(disposition.retry_after().unwrap_or_default());
        tracing::debug!(?delay, "retrying the {phase} after backoff");
        if sleep(delay, cancel).await { Failed::BackedOff } else { Failed::Cancelled }
    }
}

/// client-go's `utilnet.IsConnectionRefused`: somewhere in the error's chain is a refused
/// connection (the API server is not listening, most likely restarting).
fn is_connection_refused(err: &kube::Error) -> bool {
    causes(err).any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused)
    })
}
