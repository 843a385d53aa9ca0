//! A time limit on a silent request: a request that gets no answer, or a stream (of watch
//! events, of the chunks of a list's body) that yields nothing, within the limit fails
//! with [`WireError::Stalled`], a transport error (`kube::Error::ReadEvents`). The caller
//! picks the limit: for a watch, the reflector's longest server-side watch timeout plus its
//! idle margin; for a list, its `list_idle_timeout`.

use std::{future::Future, time::Duration};

use futures::{Stream, StreamExt};

use super::wire::WireError;

/// The error of a request silent for `idle`.
fn stalled(idle: Duration) -> kube::Error {
    kube::Error::ReadEvents(std::io::Error::new(
        std::io::ErrorKind::TimedOut,
        WireError::Stalled { idle },
    ))
}

/// Awaits `open` (the answer to a request: a watch's response, a list's response head or
/// a whole list), failing with `Stalled` once `limit` has passed.
pub(crate) async fn open_within<T>(
    limit: Option<Duration>,
    open: impl Future<Output = Result<T, kube::Error>>,
) -> Result<T, kube::Error> {
    match limit {
        None => open.await,
        Some(limit) => tokio::time::timeout(limit, open).await.unwrap_or_else(|_| {
            tracing::debug!(?limit, "request silent; abandoning it");
            Err(stalled(limit))
        }),
    }
}

/// The next item of a stream (a watch's events, a list body's chunks), or a `Stalled`
/// error once `limit` has passed without one.
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
    async fn a_silent_request_fails_as_stalled_once_the_limit_passes() {
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
