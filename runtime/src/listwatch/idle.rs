//! A time limit on a silent request: a request that gets no answer, or a stream (of watch
//! events, of the chunks of a list's body) that yields nothing, within the limit fails
//! with [`WireError::Stalled`], a transport error (`kube::Error::ReadEvents`). The caller
//! picks the limit: for a watch, the reflector's longest server-side watch timeout plus its
//! idle margin; for a list, its `list_idle_timeout`.

use std::{future::Future, pin::Pin, time::Duration};

use futures::{Stream, StreamExt};
use tokio::time::{Instant, Sleep};

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

/// The silence limit of a stream (a list body's chunks, a watch's events):
/// [`next`](Self::next) returns the next item, or a `Stalled` error once a wait for one has
/// lasted `limit`. Only the waits count, not the caller's work between them (decoding a
/// chunk, applying an event).
///
/// One timer serves every wait: it is moved to the current wait's deadline only when it
/// fires, so a stream of thousands of chunks registers a timer about once per `limit`, not
/// once per chunk (a `tokio::time::timeout` per chunk cost 5-9 % of a list's CPU in timer
/// registrations and wake-ups, measured on a 10,000-Pod list).
pub(crate) struct IdleLimit {
    limit: Option<Duration>,
    timer: Option<Pin<Box<Sleep>>>,
}

impl IdleLimit {
    /// No limit with `None`.
    pub(crate) fn new(limit: Option<Duration>) -> Self {
        Self { limit, timer: None }
    }

    /// The next item of `stream`, or `Stalled` once this wait has lasted the limit.
    pub(crate) async fn next<S, T>(&mut self, stream: &mut S) -> Option<Result<T, kube::Error>>
    where
        S: Stream<Item = Result<T, kube::Error>> + Unpin,
    {
        let Some(limit) = self.limit else { return stream.next().await };
        let deadline = Instant::now() + limit;
        // Deadlines only grow, so the timer, once armed, fires at or before this one.
        let timer = self.timer.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        loop {
            tokio::select! {
                biased;
                item = stream.next() => return item,
                () = timer.as_mut() => {
                    if Instant::now() >= deadline {
                        tracing::debug!(?limit, "stream silent; abandoning it");
                        return Some(Err(stalled(limit)));
                    }
                    timer.as_mut().reset(deadline);
                }
            }
        }
    }
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
        assert!(matches!(IdleLimit::new(limit).next(&mut silent).await, Some(Err(_))));
        let mut ended = futures::stream::empty::<Result<(), kube::Error>>();
        assert!(IdleLimit::new(limit).next(&mut ended).await.is_none());
        assert!(open_within(None, async { Ok(()) }).await.is_ok());
    }

    /// One chunk every 0.6 s, with 0.8 s of the caller's work after each: 1.4 s from chunk
    /// to chunk under a 1 s limit, but no wait lasts 1 s, so nothing stalls; then silence
    /// stalls exactly 1 s after the last wait began.
    #[tokio::test(start_paused = true)]
    async fn only_the_waits_count_and_a_silence_stalls_at_the_limit() {
        let chunk = Duration::from_millis(600);
        let mut chunks = Box::pin(
            futures::stream::iter(0..20)
                .then(|i| async move {
                    tokio::time::sleep(chunk).await;
                    Ok::<_, kube::Error>(i)
                })
                .chain(futures::stream::pending()),
        );
        let mut idle = IdleLimit::new(Some(Duration::from_secs(1)));
        for expected in 0..20 {
            assert_eq!(idle.next(&mut chunks).await.unwrap().unwrap(), expected);
            tokio::time::sleep(Duration::from_millis(800)).await;
        }
        let began = Instant::now();
        assert!(matches!(idle.next(&mut chunks).await, Some(Err(_))));
        assert_eq!(began.elapsed(), Duration::from_secs(1));

        let mut unlimited = IdleLimit::new(None);
        let mut late = Box::pin(futures::stream::once(async {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            Ok::<_, kube::Error>(())
        }));
        assert!(matches!(unlimited.next(&mut late).await, Some(Ok(()))));
    }
}
