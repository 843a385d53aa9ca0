//! The reflector's backoff: failed lists and watches are retried with exponential
//! delays (800 ms doubling to 30 s), measured on the paused clock.

use std::time::Duration;

use crate::reflector_support::*;
use kube::core::WatchEvent;
use tokio::time::Instant;

fn list_instants(h: &Harness) -> Vec<Instant> {
    h.lw.lists().into_iter().map(|(_, at)| at).collect()
}

fn watch_instants(h: &Harness) -> Vec<Instant> {
    h.lw.watches().into_iter().map(|(_, _, at)| at).collect()
}

#[tokio::test(start_paused = true)]
async fn failing_lists_back_off_exponentially_up_to_the_cap() {
    // client-go: reflector_test.go TestReflectorListAndWatchInitConnBackoff,
    // TestNewReflectorWithCustomBackoff
    let mut lw = FakeListerWatcher::new();
    for _ in 0..8 {
        lw = lw.list(Err(api_error(500, "InternalError")));
    }
    let lw = lw.list(Ok(page(vec![pod("a", "1")], "10", None))).watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, config());
    h.until("the watch", |h| h.lw.watches().len() == 1).await;
    assert_eq!(gaps_ms(&list_instants(&h)), [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
    assert_eq!(h.reported().len(), 8);
    assert!(h.reported().iter().all(|r| r.kind == "list" && r.code == Some(500)));
    assert_eq!(h.store.ops(), [Op::Replace(vec!["a@1".into()], "10".into())]);
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn forbidden_list_does_not_hot_loop() {
    // client-go: reflector_test.go TestReflectorListAndWatchWithErrors (list errors back off)
    let mut lw = FakeListerWatcher::new();
    for _ in 0..4 {
        lw = lw.list(Err(api_error(403, "Forbidden")));
    }
    let h = Harness::start(lw, config());
    // Four refusals, then the fifth list waits for an answer that never comes.
    h.until("five lists", |h| h.lw.lists().len() == 5).await;
    assert_eq!(gaps_ms(&list_instants(&h)), [800, 1600, 3200, 6400]);
    assert_eq!(h.reported(), vec![Reported { kind: "list", code: Some(403) }; 4]);
    assert!(h.store.ops().is_empty());
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn failing_watch_requests_back_off_and_rewatch_without_relisting() {
    // client-go: reflector_test.go TestRetryInternalError, TestNoRelistOnTooManyRequests
    let lw = FakeListerWatcher::new()
        .list(Ok(page(vec![pod("a", "1")], "10", None)))
        .watch(WatchScript::Fail(api_error(500, "InternalError")))
        .watch(WatchScript::Fail(api_error(503, "ServiceUnavailable")))
        .watch(WatchScript::Fail(kube::Error::ReadEvents(std::io::Error::new(
            std::io::ErrorKind::ConnectionRefused,
            "connection refused",
        ))))
        .watch(WatchScript::Fail(api_error(429, "TooManyRequests")))
        .watch(WatchScript::Hang(vec![Ok(WatchEvent::Added(pod("b", "11")))]));
    let h = Harness::start(lw, config());
    h.until("the event", |h| h.version.get() == "11").await;
    assert_eq!(gaps_ms(&watch_instants(&h)), [800, 1600, 3200, 6400]);
    assert!(h.lw.watches().iter().all(|(_, rv, _)| rv == "10"));
    assert_eq!(h.lw.lists().len(), 1, "retriable watch errors must not relist");
    let codes: Vec<_> = h.observed().iter().map(|r| (r.kind, r.code)).collect();
    assert_eq!(
        codes,
        [("watch", Some(500)), ("watch", Some(503)), ("watch", None), ("watch", Some(429))]
    );
    // client-go: reflector.go isWatchErrorRetriable: a refused connection and a 429 are
    // retried inside the cycle; any other failed watch request ends it, for the handler.
    let codes: Vec<_> = h.reported().iter().map(|r| (r.kind, r.code)).collect();
    assert_eq!(codes, [("watch", Some(500)), ("watch", Some(503))]);
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn retry_after_is_a_minimum_delay() {
    // client-go: reflector_test.go TestBackoffOnTooManyRequests
    let lw = FakeListerWatcher::new()
        .list(Err(too_many_requests(10)))
        .list(Ok(page(vec![], "10", None)))
        .watch(WatchScript::Fail(too_many_requests(5)))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, config());
    h.until("the second watch", |h| h.lw.watches().len() == 2).await;
    assert_eq!(gaps_ms(&list_instants(&h)), [10_000], "Retry-After beats 800 ms");
    assert_eq!(gaps_ms(&watch_instants(&h)), [5_000], "Retry-After beats 1.6 s");
    h.stop().await;
}

/// Three failed watches, then a watch that is healthy for `healthy`, then fails.
/// Returns the delay before the re-watch that follows that last failure.
async fn delay_after_healthy_watch(healthy: Duration) -> Duration {
    let lw = FakeListerWatcher::new()
        .list(Ok(page(vec![], "10", None)))
        .watch(WatchScript::Fail(api_error(500, "InternalError")))
        .watch(WatchScript::Fail(api_error(500, "InternalError")))
        .watch(WatchScript::Fail(api_error(500, "InternalError")))
        .watch(WatchScript::Later(
            vec![Ok(bookmark("11"))],
            healthy,
            Box::new(Err(api_error(500, "InternalError"))),
        ))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, config());
    h.until("the fifth watch", |h| h.lw.watches().len() == 5).await;
    let instants = watch_instants(&h);
    assert_eq!(gaps_ms(&instants[..4]), [800, 1600, 3200]);
    let failed_at = instants[3] + healthy;
    h.stop().await;
    instants[4].duration_since(failed_at)
}

#[tokio::test(start_paused = true)]
async fn backoff_starts_over_after_two_quiet_minutes() {
    // client-go: wait.NewExponentialBackoffManager(800ms, 30s, 2m, 2.0, 1.0): the delay
    // resets once no backoff was needed for the reset duration.
    assert_eq!(
        delay_after_healthy_watch(Duration::from_secs(60)).await,
        Duration::from_millis(6400),
        "one quiet minute keeps growing the backoff"
    );
    assert_eq!(
        delay_after_healthy_watch(Duration::from_secs(150)).await,
        Duration::from_millis(800),
        "2.5 quiet minutes start over"
    );
}
