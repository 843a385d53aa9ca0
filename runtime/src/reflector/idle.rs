//! The watch idle limit (see [`ReflectorConfig::watch_idle_margin`]): a watch request
//! that gets no answer, or a watch stream that yields nothing, for longer than the
//! server could have kept it open fails with [`WireError::Stalled`], a transport error
//! the reflector retries from the last resource version.

use std::{future::Future, time::Duration};

use futures::{Stream, StreamExt};

use super::{ReflectorConfig, WireError};

impl ReflectorConfig {
    /// How long a watch may stay silent: the longest server-side timeout it could have
    /// asked for plus the margin; `None` when the margin is zero (the check is off).
    pub(crate) fn watch_idle_limit(&self) -> Option<Duration> {
        (!self.watch_idle_margin.is_zero()).then(|| {
            let longest = self.min_watch_timeout.max(self.max_watch_timeout);
            // The timeout sent is in whole seconds, rounded down.
            Duration::from_secs(longest.as_secs()) + self.watch_idle_margin
        })
    }
}

fn stalled(idle: Duration) -> kube::Error {
    kube::Error::ReadEvents(std::io::Error::new(
        std::io::ErrorKind::TimedOut,
        WireError::Stalled { idle },
    ))
}

/// Awaits the opening of a watch, failing with `Stalled` once `limit` has passed.
pub(super) async fn open_within<T>(
    limit: Option<Duration>,
    open: impl Future<Output = Result<T, kube::Error>>,
) -> Result<T, kube::Error> {
    match limit {
        None => open.await,
        Some(limit) => tokio::time::timeout(limit, open).await.unwrap_or_else(|_| {
            tracing::debug!(?limit, "watch silent; abandoning it");
            Err(stalled(limit))
        }),
    }
}

/// The next item of a watch stream, or a `Stalled` error once `limit` has passed
/// without one.
pub(super) async fn next_within<S, T>(
    limit: Option<Duration>,
    stream: &mut S,
) -> Option<Result<T, kube::Error>>
where
    S: Stream<Item = Result<T, kube::Error>> + Unpin,
{
    open_within(limit, async { stream.next().await.transpose() }).await.transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_is_the_longest_timeout_plus_the_margin() {
        let config = ReflectorConfig::default();
        assert_eq!(config.watch_idle_limit(), Some(Duration::from_secs(605)));
        let swapped = ReflectorConfig {
            min_watch_timeout: Duration::from_millis(9_500),
            max_watch_timeout: Duration::from_secs(7),
            watch_idle_margin: Duration::from_secs(1),
            ..ReflectorConfig::default()
        };
        assert_eq!(swapped.watch_idle_limit(), Some(Duration::from_secs(10)));
        let off =
            ReflectorConfig { watch_idle_margin: Duration::ZERO, ..ReflectorConfig::default() };
        assert_eq!(off.watch_idle_limit(), None);
    }

    #[test]
    fn stalled_is_a_transient_transport_error() {
        let err = stalled(Duration::from_secs(3));
        assert_eq!(
            super::super::error::classify(&err),
            super::super::error::Disposition::Transient
        );
        let kube::Error::ReadEvents(io) = &err else { panic!("{err:?}") };
        assert!(matches!(
            io.get_ref().and_then(|e| e.downcast_ref::<WireError>()),
            Some(WireError::Stalled { idle }) if *idle == Duration::from_secs(3)
        ));
    }
}
