//! A time limit on a silent watch: a watch request that gets no answer, or a watch
//! stream that yields nothing, within the limit fails with [`WireError::Stalled`], a
//! transport error (`kube::Error::ReadEvents`). The caller picks the limit (the
//! reflector's is its longest server-side watch timeout plus its idle margin).

use std::{future::Future, time::Duration};

use futures::{Stream, StreamExt};

use super::wire::WireError;

/// The error of a watch silent for `idle`.
fn stalled(idle: Duration) -> kube::Error {
    kube::Error::ReadEvents(std::io::Error::new(
        std::io::ErrorKind::TimedOut,
        WireError::Stalled { idle },
    ))
}

/// Awaits the opening of a watch, failing with `Stalled` once `limit` has passed.
pub(crate) async fn open_within<T>(
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
pub(crate) async fn next_within<S, T>(
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

    #[tokio::test(start_paused = true)]
    async fn a_silent_watch_fails_as_stalled_once_the_limit_passes() {
        let limit = Some(Duration::from_secs(3));
        let err = open_within(limit, std::future::pending::<Result<(), kube::Error>>())
            .await
            .unwrap_err();
        let kube::Error::ReadEvents(io) = &err else { panic!("{err:?}") };
        assert_eq!(io.kind(), std::io::ErrorKind::TimedOut);
        assert!(matches!(
            io.get_ref().and_then(|e| e.downcast_ref::<WireError>()),
            Some(WireError::Stalled { idle }) if *idle == Duration::from_secs(3)
        ));
        let mut silent = futures::stream::pending::<Result<(), kube::Error>>();
        assert!(matches!(next_within(limit, &mut silent).await, Some(Err(_))));
        let mut ended = futures::stream::empty::<Result<(), kube::Error>>();
        assert!(next_within(limit, &mut ended).await.is_none());
        assert!(open_within(None, async { Ok(()) }).await.is_ok());
    }
}
