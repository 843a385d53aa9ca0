//! The reflector's list stage: pagination, resource versions and the pager's fallbacks.

use crate::reflector_support::*;
use kube::api::VersionMatch;
use kube_informers_runtime::reflector::ReflectorConfig;

#[tokio::test(start_paused = true)]
async fn first_list_is_paginated_at_resource_version_zero_then_watches() {
    // client-go: reflector_test.go TestReflectorListAndWatch, TestReflectorWatchListPageSize
    let lw = FakeListerWatcher::new()
        .list(Ok(page(vec![pod("a", "10"), pod("b", "11")], "100", Some("c1"))))
        .list(Ok(page(vec![pod("c", "12")], "100", Some("c2"))))
        .list(Ok(page(vec![pod("d", "13")], "100", None)))
        .watch(WatchScript::Hang(vec![Ok(kube::core::WatchEvent::Added(pod("e", "101")))]));
    let h = Harness::start(lw, config());
    h.until("the first watch event", |h| h.store.ops().len() == 2).await;

    let lists = h.lw.lists();
    assert_eq!(lists.len(), 3);
    let first = &lists[0].0;
    assert_eq!(first.resource_version.as_deref(), Some("0"));
    assert_eq!(first.version_match, Some(VersionMatch::NotOlderThan));
    assert_eq!(first.limit, Some(500));
    assert_eq!(first.continue_token, None);
    for (params, token) in lists[1..].iter().map(|(p, _)| p).zip(["c1", "c2"]) {
        assert_eq!(params.continue_token.as_deref(), Some(token));
        assert_eq!(params.limit, Some(500));
        // The API server refuses a resource version together with `continue`.
        assert_eq!(params.resource_version, None);
        assert_eq!(params.version_match, None);
    }

    assert_eq!(
        h.store.ops(),
        [
            Op::Replace(
                vec!["a@10".into(), "b@11".into(), "c@12".into(), "d@13".into()],
                "100".into()
            ),
            Op::Add("e@101".into()),
        ]
    );
    let watches = h.lw.watches();
    assert_eq!(watches.len(), 1);
    let (params, rv, _) = &watches[0];
    assert_eq!(rv, "100");
    assert!(params.bookmarks, "allowWatchBookmarks must be set");
    assert!(!params.send_initial_events);
    let timeout = params.timeout.expect("watch timeout");
    assert!((300..=600).contains(&timeout), "timeout {timeout} outside [5, 10] min");
    assert_eq!(h.version.get(), "101");
    assert!(h.reported().is_empty());
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn unpaginated_answer_to_a_limited_list_is_accepted() {
    // client-go: reflector_test.go TestReflectorNotPaginatingNotConsistentReads
    // (the watch cache serves resourceVersion=0 whole, ignoring the limit)
    let lw = FakeListerWatcher::new()
        .list(Ok(page(vec![pod("a", "1"), pod("b", "2")], "7", None)))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, config());
    h.until("the watch", |h| h.lw.watches().len() == 1).await;
    assert_eq!(h.lw.lists().len(), 1);
    assert_eq!(h.store.ops(), [Op::Replace(vec!["a@1".into(), "b@2".into()], "7".into())]);
    assert_eq!(h.version.get(), "7");
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn page_size_zero_lists_without_limit() {
    // client-go: reflector_test.go TestReflectorWatchListPageSize (explicit page size)
    let lw = FakeListerWatcher::new()
        .list(Ok(page(vec![pod("a", "1")], "5", None)))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, ReflectorConfig { page_size: 0, ..config() });
    h.until("the watch", |h| h.lw.watches().len() == 1).await;
    assert_eq!(h.lw.lists()[0].0.limit, None);
    h.stop().await;

    let lw = FakeListerWatcher::new()
        .list(Ok(page(vec![pod("a", "1")], "5", None)))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, ReflectorConfig { page_size: 2, ..config() });
    h.until("the watch", |h| h.lw.watches().len() == 1).await;
    assert_eq!(h.lw.lists()[0].0.limit, Some(2));
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn expired_continue_token_falls_back_to_a_full_list() {
    // client-go: reflector_test.go TestReflectorFullListIfExpired (pager FullListIfExpired)
    let lw = FakeListerWatcher::new()
        .list(Ok(page(vec![pod("a", "1")], "50", Some("c1"))))
        .list(Err(api_error(410, "Expired")))
        .list(Ok(page(vec![pod("a", "1"), pod("b", "2"), pod("c", "3")], "60", None)))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, config());
    h.until("the watch", |h| h.lw.watches().len() == 1).await;

    let lists = h.lw.lists();
    assert_eq!(lists.len(), 3);
    assert_eq!(lists[1].0.continue_token.as_deref(), Some("c1"));
    let full = &lists[2].0;
    assert_eq!(full.continue_token, None);
    assert_eq!(full.limit, None, "the fallback lists whole");
    assert_eq!(full.resource_version.as_deref(), Some("0"), "at the requested version");
    assert_eq!(full.version_match, Some(VersionMatch::NotOlderThan));
    // The first page is dropped: the store gets exactly the full list.
    assert_eq!(
        h.store.ops(),
        [Op::Replace(vec!["a@1".into(), "b@2".into(), "c@3".into()], "60".into())]
    );
    assert_eq!(h.lw.watches()[0].1, "60");
    // The pager handles it silently, like client-go.
    assert!(h.reported().is_empty());
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn expired_list_is_retried_at_once_as_a_consistent_read() {
    // client-go: reflector_test.go TestReflectorExpiredExactResourceVersion,
    // TestReflectorFullListIfTooLarge (relist with resourceVersion="")
    let lw = FakeListerWatcher::new()
        .list(Err(api_error(410, "Expired")))
        .list(Ok(page(vec![pod("a", "1")], "90", None)))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, config());
    h.until("the watch", |h| h.lw.watches().len() == 1).await;

    let lists = h.lw.lists();
    assert_eq!(lists.len(), 2);
    assert_eq!(lists[1].0.resource_version, None, "consistent read");
    assert_eq!(lists[1].0.version_match, None);
    assert_eq!(lists[1].0.limit, Some(500));
    assert_eq!(lists[1].1, lists[0].1, "retried without a backoff");
    assert_eq!(h.observed(), [Reported { kind: "expired", code: Some(410) }]);
    assert!(h.reported().is_empty(), "client-go's list retries the expiry inside the cycle");
    assert_eq!(h.store.ops(), [Op::Replace(vec!["a@1".into()], "90".into())]);
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn relist_at_a_known_version_is_unpaginated_unless_the_server_pages() {
    // client-go: reflector_test.go TestReflectorResyncWithResourceVersion and
    // TestReflectorPaginatingNonConsistentReadsIfWatchCacheDisabled
    let decode_then_relist = |first_page_continues: bool| {
        let first = if first_page_continues {
            FakeListerWatcher::new()
                .list(Ok(page(vec![pod("a", "1")], "10", Some("c1"))))
                .list(Ok(page(vec![pod("b", "2")], "10", None)))
        } else {
            FakeListerWatcher::new().list(Ok(page(vec![pod("a", "1")], "10", None)))
        };
        first
            .watch(WatchScript::Hang(vec![Ok(bookmark("20")), Err(decode_error())]))
            .list(Ok(page(vec![pod("a", "1")], "30", None)))
            .watch(WatchScript::Hang(vec![]))
    };

    // The watch cache answered whole: relist at "20" without a limit.
    let h = Harness::start(decode_then_relist(false), config());
    h.until("the second watch", |h| h.lw.watches().len() == 2).await;
    let relist = h.lw.lists().last().unwrap().0.clone();
    assert_eq!(relist.resource_version.as_deref(), Some("20"));
    assert_eq!(relist.version_match, None);
    assert_eq!(relist.limit, None);
    h.stop().await;

    // The server paged a resourceVersion=0 list: keep paging.
    let h = Harness::start(decode_then_relist(true), config());
    h.until("the second watch", |h| h.lw.watches().len() == 2).await;
    let relist = h.lw.lists().last().unwrap().0.clone();
    assert_eq!(relist.resource_version.as_deref(), Some("20"));
    assert_eq!(relist.limit, Some(500));
    h.stop().await;
}
