//! The reflector's watch stage: events, bookmarks, resumption and relists.

use std::time::Duration;

use crate::reflector_support::*;
use kube::core::WatchEvent;

fn listed() -> FakeListerWatcher {
    FakeListerWatcher::new().list(Ok(page(vec![pod("a", "1"), pod("b", "2")], "100", None)))
}

#[tokio::test(start_paused = true)]
async fn events_reach_the_store_and_advance_the_resource_version() {
    // client-go: reflector_test.go TestReflectorWatchHandler
    let lw = listed().watch(WatchScript::Hang(vec![
        Ok(WatchEvent::Added(pod("c", "101"))),
        Ok(WatchEvent::Modified(pod("a", "102"))),
        Ok(WatchEvent::Deleted(pod("b", "103"))),
    ]));
    let h = Harness::start(lw, config());
    h.until("three events", |h| h.store.ops().len() == 4).await;
    assert_eq!(
        h.store.ops()[1..],
        [Op::Add("c@101".into()), Op::Update("a@102".into()), Op::Delete("b@103".into()),]
    );
    assert_eq!(h.version.get(), "103");
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn bookmarks_advance_the_resource_version_without_store_calls() {
    // client-go: reflector_test.go TestReflectorWatchHandler (bookmark case)
    let lw = listed().watch(WatchScript::Hang(vec![Ok(bookmark("150")), Ok(bookmark("170"))]));
    let h = Harness::start(lw, config());
    h.until("the bookmarks", |h| h.version.get() == "170").await;
    assert_eq!(h.store.ops(), [Op::Replace(vec!["a@1".into(), "b@2".into()], "100".into())]);
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn closed_watch_resumes_from_the_last_version_without_relisting() {
    // client-go: reflector_test.go TestReflectorListAndWatch (watch restarts from the last RV)
    let lw = listed()
        .watch(WatchScript::Close(vec![Ok(WatchEvent::Added(pod("c", "101")))]))
        .watch(WatchScript::Close(vec![Ok(bookmark("150"))]))
        .watch(WatchScript::Hang(vec![Ok(WatchEvent::Modified(pod("c", "160")))]));
    let h = Harness::start(lw, config());
    h.until("the third watch's event", |h| h.version.get() == "160").await;
    let watches = h.lw.watches();
    let versions: Vec<&str> = watches.iter().map(|(_, rv, _)| rv.as_str()).collect();
    assert_eq!(versions, ["100", "101", "150"]);
    assert_eq!(h.lw.lists().len(), 1, "a closed watch must not relist");
    // Re-watching after a normal close is immediate (no backoff).
    assert_eq!(watches[2].2, watches[0].2);
    assert!(h.reported().is_empty());
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn quiet_watch_that_times_out_resumes_without_relisting() {
    // client-go: reflector.go handleAnyWatch (a watch that ends normally after a second or
    // more, even without events, is simply restarted)
    let lw = listed()
        .watch(WatchScript::Quiet(Duration::from_secs(300)))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, config());
    h.until("the second watch", |h| h.lw.watches().len() == 2).await;
    let watches = h.lw.watches();
    assert_eq!(watches[1].1, "100");
    assert_eq!(watches[1].2.duration_since(watches[0].2), Duration::from_secs(300));
    assert_eq!(h.lw.lists().len(), 1);
    assert!(h.reported().is_empty());
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn gone_watch_request_relists_at_the_last_resource_version_without_a_limit() {
    // client-go: reflector.go watch(), isExpiredError: "Don't set
    // LastSyncResourceVersionUnavailable - LIST call with ResourceVersion=RV already has a
    // semantic that it returns data at least as fresh as provided RV", and its pager sends
    // such a list without a limit so that the watch cache serves it, not etcd.
    let lw = listed()
        .watch(WatchScript::Fail(api_error(410, "Gone")))
        .list(Ok(page(vec![pod("a", "1")], "200", None)))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, config());
    h.until("the second watch", |h| h.lw.watches().len() == 2).await;
    let lists = h.lw.lists();
    assert_eq!(lists.len(), 2);
    assert_eq!(lists[1].0.resource_version.as_deref(), Some("100"), "at the last version");
    assert_eq!(lists[1].0.limit, None, "whole, from the watch cache");
    assert_eq!(h.lw.watches()[1].1, "200");
    assert_eq!(h.observed(), [Reported { kind: "expired", code: Some(410) }]);
    assert!(h.reported().is_empty(), "a routine expiry does not reach the handler");
    assert_eq!(h.store.ops().last(), Some(&Op::Replace(vec!["a@1".into()], "200".into())));
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn expired_error_event_relists_at_the_last_resource_version() {
    // client-go: reflector_test.go TestReflectorListAndWatchWithErrors (ERROR event, Expired),
    // with the relist at the last observed version (reflector.go watch(), isExpiredError).
    let lw = listed()
        .watch(WatchScript::Hang(vec![
            Ok(WatchEvent::Added(pod("c", "101"))),
            Ok(error_event(410, "Expired")),
        ]))
        .list(Ok(page(vec![pod("c", "101")], "300", None)))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, config());
    h.until("the second watch", |h| h.lw.watches().len() == 2).await;
    assert_eq!(h.lw.lists()[1].0.resource_version.as_deref(), Some("101"));
    assert_eq!(h.observed()[0].kind, "expired");
    assert!(h.reported().is_empty());
    assert_eq!(h.version.get(), "300");
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn refused_relist_after_a_gone_watch_falls_back_to_a_consistent_paginated_list() {
    // client-go: reflector.go list(): a list at the last version answered expired (or too
    // large) sets isLastSyncResourceVersionUnavailable and lists again at once at "",
    // a consistent read, in pages.
    let lw = listed()
        .watch(WatchScript::Fail(api_error(410, "Gone")))
        .list(Err(api_error(410, "Expired")))
        .list(Ok(page(vec![pod("a", "1")], "300", None)))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, config());
    h.until("the second watch", |h| h.lw.watches().len() == 2).await;
    let lists = h.lw.lists();
    assert_eq!(lists.len(), 3);
    assert_eq!((lists[1].0.resource_version.as_deref(), lists[1].0.limit), (Some("100"), None));
    assert_eq!((lists[2].0.resource_version.as_deref(), lists[2].0.limit), (None, Some(500)));
    assert_eq!(lists[2].1, lists[1].1, "retried without a backoff");
    assert_eq!(h.lw.watches()[1].1, "300");
    assert!(h.reported().is_empty(), "{:?}", h.reported());
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn decode_error_is_reported_then_relists_without_losing_objects() {
    // client-go: reflector_test.go TestReflectorWatchHandlerError (stream decode error -> relist)
    let lw = listed()
        .watch(WatchScript::Hang(vec![
            Ok(WatchEvent::Added(pod("c", "101"))),
            Err(decode_error()),
            Ok(WatchEvent::Deleted(pod("a", "102"))),
        ]))
        .list(Ok(page(vec![pod("a", "1"), pod("b", "2"), pod("c", "101")], "110", None)))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, config());
    h.until("the relist's watch", |h| h.lw.watches().len() == 2).await;
    assert_eq!(h.observed(), [Reported { kind: "decode", code: None }]);
    let lists = h.lw.lists();
    assert_eq!(lists.len(), 2);
    // Not an expiry: the relist asks for the last synced version.
    assert_eq!(lists[1].0.resource_version.as_deref(), Some("101"));
    // Events after the bad one are not applied, and nothing is deleted by the failure.
    let ops = h.store.ops();
    assert!(!ops.iter().any(|op| matches!(op, Op::Delete(_))), "{ops:?}");
    assert_eq!(
        ops,
        [
            Op::Replace(vec!["a@1".into(), "b@2".into()], "100".into()),
            Op::Add("c@101".into()),
            Op::Replace(vec!["a@1".into(), "b@2".into(), "c@101".into()], "110".into()),
        ]
    );
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn very_short_empty_watch_counts_as_failure() {
    // client-go: reflector.go VeryShortWatchError (watch closed at once without events)
    let lw = listed()
        .watch(WatchScript::Close(vec![]))
        .list(Ok(page(vec![], "120", None)))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, config());
    h.until("the second watch", |h| h.lw.watches().len() == 2).await;
    assert_eq!(h.observed()[0].kind, "very-short-watch");
    // client-go: handleWatch's very-short-watch error is logged by watch(), which returns nil.
    assert!(h.reported().is_empty());
    let lists = h.lw.lists();
    assert_eq!(lists.len(), 2);
    assert_eq!(
        lists[1].1.duration_since(lists[0].1),
        Duration::from_millis(800),
        "relist after the first backoff step"
    );
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn store_errors_are_reported_and_the_watch_goes_on() {
    // client-go: reflector.go handleAnyWatch ("unable to add watch event object to store")
    let lw = listed().watch(WatchScript::Hang(vec![
        Ok(WatchEvent::Added(pod("c", "101"))),
        Ok(WatchEvent::Modified(pod("a", "102"))),
    ]));
    let h = Harness::start_with(lw, config(), |_| {});
    h.store.fail_adds();
    h.until("both events", |h| h.store.ops().len() == 3).await;
    assert_eq!(h.observed(), [Reported { kind: "store", code: None }]);
    assert!(h.reported().is_empty(), "client-go: utilruntime.HandleError, not the handler");
    assert_eq!(h.version.get(), "102");
    assert_eq!(h.lw.lists().len(), 1);
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn panicking_watch_error_handler_is_contained() {
    let lw = listed()
        .watch(WatchScript::Fail(api_error(410, "Gone")))
        .list(Ok(page(vec![], "200", None)))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start_with(lw, config(), |reflector| {
        reflector.set_watch_error_handler(std::sync::Arc::new(|_| panic!("handler bug")));
    });
    h.until("the relist's watch", |h| h.lw.watches().len() == 2).await;
    assert_eq!(h.version.get(), "200");
    h.stop().await;
}

/// Watches the server closes after exactly 60 s, with the default idle margin.
fn one_minute_watches() -> kube_informers_runtime::reflector::ReflectorConfig {
    kube_informers_runtime::reflector::ReflectorConfig {
        min_watch_timeout: Duration::from_secs(60),
        max_watch_timeout: Duration::from_secs(60),
        ..config()
    }
}

#[tokio::test(start_paused = true)]
async fn silent_watch_is_abandoned_after_its_timeout_and_resumes_without_relisting() {
    // kube-runtime: watcher.rs next_with_idle_timeout (a watch silent for longer than its
    // server-side timeout plus a margin is presumed dead). client-go has no such check for
    // HTTP/1 and relies on HTTP/2 health checks.
    let lw = listed()
        .watch(WatchScript::Hang(vec![Ok(bookmark("150"))]))
        .watch(WatchScript::Hang(vec![Ok(bookmark("160"))]));
    let h = Harness::start(lw, one_minute_watches());
    h.until("the second watch", |h| h.lw.watches().len() == 2).await;
    let watches = h.lw.watches();
    assert_eq!(watches[1].1, "150", "resumes from the last bookmark");
    // 60 s timeout + 5 s margin, then the first backoff step (800 ms, no jitter).
    assert_eq!(watches[1].2.duration_since(watches[0].2), Duration::from_millis(65_800));
    assert_eq!(h.lw.lists().len(), 1, "a stalled watch must not relist");
    assert_eq!(h.observed(), [Reported { kind: "watch", code: None }]);
    assert!(h.reported().is_empty(), "a broken stream is resumed inside the cycle");
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn unanswered_watch_request_is_abandoned_after_its_timeout() {
    // kube-runtime: watcher.rs next_with_idle_timeout; here the request itself never
    // answers (kube's client has no read timeout by default).
    let lw = listed().watch(WatchScript::Unanswered).watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, one_minute_watches());
    h.until("the second watch", |h| h.lw.watches().len() == 2).await;
    let watches = h.lw.watches();
    assert_eq!(watches[1].1, "100");
    assert_eq!(watches[1].2.duration_since(watches[0].2), Duration::from_millis(65_800));
    assert_eq!(h.lw.lists().len(), 1);
    // A failed watch request, other than a refused connection or a 429: client-go's
    // handler would see it (its watch request would wait forever instead).
    assert_eq!(h.reported(), [Reported { kind: "watch", code: None }]);
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn events_keep_a_long_watch_alive() {
    // The idle limit counts from the last item, not from the start of the watch.
    let lw = listed().watch(WatchScript::Paced(
        Duration::from_secs(40),
        vec![
            Ok(WatchEvent::Added(pod("c", "150"))),
            Ok(WatchEvent::Modified(pod("c", "160"))),
            Ok(WatchEvent::Modified(pod("c", "170"))),
        ],
    ));
    let h = Harness::start(lw, one_minute_watches());
    let start = tokio::time::Instant::now();
    h.until("the third event", |h| h.version.get() == "170").await;
    assert_eq!(start.elapsed(), Duration::from_secs(120));
    assert_eq!(h.lw.watches().len(), 1);
    assert!(h.reported().is_empty(), "{:?}", h.reported());
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn zero_idle_margin_never_abandons_a_watch() {
    let lw = listed().watch(WatchScript::Hang(vec![]));
    let config = kube_informers_runtime::reflector::ReflectorConfig {
        watch_idle_margin: Duration::ZERO,
        ..one_minute_watches()
    };
    let h = Harness::start(lw, config);
    h.until("the watch", |h| h.lw.watches().len() == 1).await;
    tokio::time::sleep(Duration::from_secs(3600)).await;
    assert_eq!(h.lw.watches().len(), 1);
    assert!(h.reported().is_empty());
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_refused_watch_request_reaches_the_handler_and_relists() {
    // client-go: reflector.go watch(): a watch request error that isWatchErrorRetriable
    // rejects is returned by ListAndWatch, so Run passes it to the watch-error handler.
    let lw = listed()
        .watch(WatchScript::Fail(api_error(403, "Forbidden")))
        .list(Ok(page(vec![pod("a", "1")], "200", None)))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, config());
    h.until("the second watch", |h| h.lw.watches().len() == 2).await;
    assert_eq!(h.reported(), [Reported { kind: "watch", code: Some(403) }]);
    assert_eq!(h.lw.lists().len(), 2, "a refusal relists");
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn an_error_event_mid_stream_relists_without_reaching_the_handler() {
    // client-go: reflector.go watch(): handleWatch's error for an ERROR event is logged
    // ("watch ended with error") and watch() returns nil: the handler is not called.
    let lw = listed()
        .watch(WatchScript::Hang(vec![Ok(error_event(403, "Forbidden"))]))
        .list(Ok(page(vec![pod("a", "1")], "200", None)))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, config());
    h.until("the second watch", |h| h.lw.watches().len() == 2).await;
    assert_eq!(h.observed(), [Reported { kind: "watch", code: Some(403) }]);
    assert!(h.reported().is_empty());
    h.stop().await;
}
