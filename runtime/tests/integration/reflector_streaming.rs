//! The reflector's opt-in streaming-list mode (client-go's WatchListClient feature).

use crate::reflector_support::*;
use kube::core::WatchEvent;
use kube_informers_runtime::reflector::ReflectorConfig;

fn streaming() -> ReflectorConfig {
    ReflectorConfig { streaming_list: true, ..config() }
}

#[tokio::test(start_paused = true)]
async fn streaming_list_syncs_from_initial_events_and_keeps_the_stream() {
    // client-go: reflector_watchlist_test.go TestWatchList "prove that the reflector is
    // synced after receiving a bookmark event" and "check if Updates and Deletes events
    // are propagated during streaming (until the bookmark is received)"
    let lw = FakeListerWatcher::new().watch(WatchScript::Hang(vec![
        Ok(WatchEvent::Added(pod("a", "1"))),
        Ok(WatchEvent::Added(pod("b", "2"))),
        Ok(WatchEvent::Added(pod("c", "3"))),
        Ok(WatchEvent::Modified(pod("b", "4"))),
        Ok(WatchEvent::Deleted(pod("c", "5"))),
        Ok(bookmark("6")),
        Ok(initial_events_end("7")),
        // Live events on the same stream.
        Ok(WatchEvent::Modified(pod("a", "8"))),
    ]));
    let h = Harness::start(lw, streaming());
    h.until("the live event", |h| h.version.get() == "8").await;

    assert!(h.lw.lists().is_empty(), "no list in streaming mode");
    let watches = h.lw.watches();
    assert_eq!(watches.len(), 1, "the initial stream carries on as the watch");
    let (params, rv, _) = &watches[0];
    assert_eq!(rv, "", "the first streaming list is a consistent read");
    assert!(params.send_initial_events);
    assert!(params.bookmarks);
    assert_eq!(
        h.store.ops(),
        [Op::Replace(vec!["a@1".into(), "b@4".into()], "7".into()), Op::Update("a@8".into()),]
    );
    assert!(h.reported().is_empty());
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn refused_streaming_list_falls_back_to_a_list_and_streams_again_at_the_next_relist() {
    // client-go: reflector.go ListAndWatchWithContext sets `fallbackToList` for one call
    // only ("Data couldn't be fetched in watchlist mode. Falling back to regular list"),
    // and reflector_watchlist_test.go TestWatchList "the reflector can fall back to old
    // LIST/WATCH semantics when a server doesn't support streaming".
    let lw = FakeListerWatcher::new()
        .watch(WatchScript::Fail(api_error(422, "Invalid")))
        .list(Ok(page(vec![pod("a", "1")], "10", None)))
        .watch(WatchScript::Fail(api_error(410, "Expired")))
        .watch(WatchScript::Hang(vec![Ok(initial_events_end("20"))]));
    let h = Harness::start(lw, streaming());
    h.until("the second sync", |h| h.version.get() == "20").await;

    let watches = h.lw.watches();
    assert_eq!(watches.len(), 3);
    assert!(watches[0].0.send_initial_events);
    assert!(!watches[1].0.send_initial_events);
    assert_eq!(watches[1].1, "10");
    // The relist after the 410 is a streaming list again, from the last synced version
    // (client-go: a watch's expiry leaves the last resource version usable).
    assert!(watches[2].0.send_initial_events);
    assert_eq!(watches[2].1, "10");
    let lists = h.lw.lists();
    assert_eq!(lists.len(), 1);
    assert_eq!(lists[0].0.resource_version.as_deref(), Some("0"));
    let kinds: Vec<_> = h.observed().iter().map(|r| r.kind).collect();
    assert_eq!(kinds, ["streaming-list-refused", "expired"]);
    assert!(h.reported().is_empty(), "a fallback and an expiry end no cycle");
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn error_event_during_a_streaming_list_falls_back_to_a_list() {
    // client-go: reflector.go watchList returns the ERROR event's status
    // (apierrors.FromObject) unless it is expired or 429, and ListAndWatchWithContext then
    // falls back to a plain LIST. kube-apiserver on an etcd without watch progress answers
    // every streaming list this way: "a watch stream was requested by the client but the
    // required storage feature RequestWatchProgress is disabled".
    let lw = FakeListerWatcher::new()
        .watch(WatchScript::Hang(vec![Ok(error_event(500, "InternalError"))]))
        .list(Ok(page(vec![pod("a", "1")], "10", None)))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, streaming());
    h.until("the plain watch", |h| h.lw.watches().len() == 2).await;
    assert_eq!(h.store.ops(), [Op::Replace(vec!["a@1".into()], "10".into())]);
    let watches = h.lw.watches();
    assert!(!watches[1].0.send_initial_events);
    assert_eq!(watches[1].1, "10");
    assert_eq!(h.lw.lists().len(), 1);
    assert_eq!(h.observed(), [Reported { kind: "streaming-list", code: Some(500) }]);
    assert!(h.reported().is_empty(), "client-go logs the fallback, its handler is not called");
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn server_error_opening_a_streaming_list_falls_back_to_a_list() {
    // client-go: reflector.go isWatchErrorRetriable retries only "connection refused" and
    // 429; any other error of the watch-list request falls back to a plain LIST.
    let lw = FakeListerWatcher::new()
        .watch(WatchScript::Fail(api_error(503, "ServiceUnavailable")))
        .list(Ok(page(vec![pod("a", "1")], "10", None)))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, streaming());
    h.until("the plain watch", |h| h.lw.watches().len() == 2).await;
    assert_eq!(h.lw.lists().len(), 1);
    assert!(!h.lw.watches()[1].0.send_initial_events);
    assert_eq!(h.observed(), [Reported { kind: "streaming-list", code: Some(503) }]);
    assert!(h.reported().is_empty());
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn stream_without_end_bookmark_falls_back_to_a_list() {
    // A server that ignores sendInitialEvents sends the objects but never the bookmark.
    let lw = FakeListerWatcher::new()
        .watch(WatchScript::Close(vec![Ok(WatchEvent::Added(pod("a", "1")))]))
        .list(Ok(page(vec![pod("a", "1")], "10", None)))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, streaming());
    h.until("the plain watch", |h| h.lw.watches().len() == 2).await;
    assert_eq!(h.observed()[0].kind, "streaming-list-incomplete");
    assert_eq!(h.lw.lists().len(), 1);
    // Nothing from the incomplete stream reached the store.
    assert_eq!(h.store.ops(), [Op::Replace(vec!["a@1".into()], "10".into())]);
    assert!(!h.lw.watches()[1].0.send_initial_events);
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn throttled_streaming_list_is_retried_with_backoff() {
    // client-go: reflector_watchlist_test.go TestWatchList "checks if the reflector retries 429"
    let lw = FakeListerWatcher::new()
        .watch(WatchScript::Fail(api_error(429, "TooManyRequests")))
        .watch(WatchScript::Hang(vec![
            Ok(WatchEvent::Added(pod("a", "1"))),
            Ok(initial_events_end("5")),
        ]));
    let h = Harness::start(lw, streaming());
    h.until("the sync", |h| !h.store.ops().is_empty()).await;
    let watches = h.lw.watches();
    assert_eq!(watches.len(), 2);
    assert!(watches.iter().all(|(p, _, _)| p.send_initial_events));
    assert_eq!(gaps_ms(&[watches[0].2, watches[1].2]), [800]);
    assert!(h.lw.lists().is_empty());
    assert_eq!(h.store.ops(), [Op::Replace(vec!["a@1".into()], "5".into())]);
    assert_eq!(h.version.get(), "5");
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn expired_live_stream_restreams_from_the_last_resource_version() {
    // client-go: reflector_watchlist_test.go TestWatchList "expiring an established
    // watcher results in returning an error from the reflector"; the expiry of the live
    // stream is a watch's, which leaves the last version usable (reflector.go watch(),
    // isExpiredError), and watchList restreams from rewatchResourceVersion().
    let lw = FakeListerWatcher::new()
        .watch(WatchScript::Hang(vec![
            Ok(WatchEvent::Added(pod("a", "1"))),
            Ok(initial_events_end("5")),
            Ok(bookmark("9")),
            Ok(error_event(410, "Expired")),
        ]))
        .watch(WatchScript::Hang(vec![Ok(initial_events_end("20"))]));
    let h = Harness::start(lw, streaming());
    h.until("the second sync", |h| h.store.ops().len() == 2).await;
    let watches = h.lw.watches();
    assert_eq!(watches[1].1, "9", "after a 410 the stream restarts from the last version");
    assert!(watches[1].0.send_initial_events);
    assert_eq!(h.store.ops()[1], Op::Replace(vec![], "20".into()));
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn stalled_initial_events_fall_back_to_a_list() {
    // kube-runtime: watcher.rs next_with_idle_timeout, applied to the initial events; like
    // any other failure of the attempt (client-go's fallbackToList), a stalled streaming
    // list is followed by a plain LIST, not by another stream that may stall the same way.
    let lw = FakeListerWatcher::new()
        .watch(WatchScript::Hang(vec![Ok(WatchEvent::Added(pod("a", "1")))]))
        .list(Ok(page(vec![pod("a", "1")], "5", None)))
        .watch(WatchScript::Hang(vec![]));
    let config = ReflectorConfig {
        min_watch_timeout: std::time::Duration::from_secs(60),
        max_watch_timeout: std::time::Duration::from_secs(60),
        ..streaming()
    };
    let h = Harness::start(lw, config);
    h.until("the plain watch", |h| h.lw.watches().len() == 2).await;
    let watches = h.lw.watches();
    assert!(!watches[1].0.send_initial_events);
    let lists = h.lw.lists();
    assert_eq!(lists.len(), 1);
    assert_eq!(lists[0].1.duration_since(watches[0].2), std::time::Duration::from_millis(65_000));
    assert_eq!(h.store.ops(), [Op::Replace(vec!["a@1".into()], "5".into())]);
    assert_eq!(h.observed(), [Reported { kind: "streaming-list", code: None }]);
    assert!(h.reported().is_empty());
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn initial_events_without_end_bookmark_are_abandoned_at_the_idle_limit() {
    // A proxy that keeps the stream open and forwards bookmarks but drops the
    // initial-events-end one (k9s #4186): the stream is never silent, so the idle limit alone
    // would not end it. The initial events have the same limit in total.
    let ticks: Vec<_> = (0..200).map(|i| Ok(bookmark(&i.to_string()))).collect();
    let lw = FakeListerWatcher::new()
        .watch(WatchScript::Paced(std::time::Duration::from_secs(1), ticks))
        .list(Ok(page(vec![pod("a", "1")], "5", None)))
        .watch(WatchScript::Hang(vec![]));
    let config = ReflectorConfig {
        min_watch_timeout: std::time::Duration::from_secs(60),
        max_watch_timeout: std::time::Duration::from_secs(60),
        ..streaming()
    };
    let h = Harness::start(lw, config);
    h.until("the plain watch", |h| h.lw.watches().len() == 2).await;
    let lists = h.lw.lists();
    assert_eq!(lists.len(), 1);
    assert_eq!(
        lists[0].1.duration_since(h.lw.watches()[0].2),
        std::time::Duration::from_millis(65_000)
    );
    assert_eq!(h.observed()[0].kind, "streaming-list-incomplete");
    h.stop().await;
}
