//! Objects that do not decode into the resource type are skipped, reported once, and the
//! reflector goes on. client-go has no counterpart: its decoder fails the whole list or
//! ends the watch, and one such object stops its informer for good (controller-runtime
//! #2591, kube-rs #774).

use crate::reflector_support::*;
use kube::core::WatchEvent;

#[tokio::test(start_paused = true)]
async fn a_list_item_that_does_not_decode_is_skipped_and_reported_once() {
    let lw = FakeListerWatcher::new()
        .list_skipping(
            page(vec![pod("a", "1"), pod("c", "3")], "10", None),
            vec![skipped("b", "2")],
        )
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, config());
    h.until("the watch", |h| h.lw.watches().len() == 1).await;
    assert_eq!(h.store.ops(), [Op::Replace(vec!["a@1".into(), "c@3".into()], "10".into())]);
    assert_eq!(h.reported(), [Reported { kind: "undecodable", code: None }]);
    assert_eq!(h.lw.lists().len(), 1, "the list succeeded: no retry, no relist");
    assert_eq!(h.lw.watches()[0].1, "10");
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_paginated_list_reports_the_items_skipped_on_all_its_pages_once() {
    let lw = FakeListerWatcher::new()
        .list_skipping(page(vec![pod("a", "1")], "10", Some("next")), vec![skipped("b", "2")])
        .list_skipping(page(vec![pod("c", "3")], "10", None), vec![skipped("d", "4")])
        .watch(WatchScript::Hang(vec![]));
    let handler_saw = std::sync::Arc::new(parking_lot::Mutex::new(Vec::new()));
    let h = Harness::start_with(lw, config(), |reflector| {
        let saw = handler_saw.clone();
        reflector.set_watch_error_handler(std::sync::Arc::new(move |err| {
            if let kube_informers_runtime::reflector::ReflectorError::Undecodable(objects) = err {
                saw.lock().push(objects.iter().map(|o| o.key.clone()).collect::<Vec<_>>());
            }
        }));
    });
    h.until("the watch", |h| h.lw.watches().len() == 1).await;
    assert_eq!(h.store.ops(), [Op::Replace(vec!["a@1".into(), "c@3".into()], "10".into())]);
    assert_eq!(*handler_saw.lock(), [vec!["default/b".to_owned(), "default/d".to_owned()]]);
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn an_undecodable_watch_event_forgets_the_object_and_the_watch_goes_on() {
    let lw = FakeListerWatcher::new()
        .list(Ok(page(vec![pod("a", "1"), pod("b", "2")], "100", None)))
        .watch(WatchScript::Hang(vec![
            Ok(WatchEvent::Added(pod("c", "101"))),
            Err(undecodable_event("MODIFIED", "a", "102")),
            Ok(WatchEvent::Modified(pod("b", "103"))),
            Ok(WatchEvent::Modified(pod("a", "104"))),
        ]));
    let h = Harness::start(lw, config());
    h.until("every event", |h| h.version.get() == "104").await;
    assert_eq!(
        h.store.ops()[1..],
        [
            Op::Add("c@101".into()),
            Op::Forget("default/a".into()),
            Op::Update("b@103".into()),
            // Decodable again: it comes back.
            Op::Update("a@104".into()),
        ]
    );
    assert_eq!(h.reported(), [Reported { kind: "undecodable", code: None }]);
    assert_eq!((h.lw.lists().len(), h.lw.watches().len()), (1, 1), "no relist, no re-watch");
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_resumed_watch_starts_after_the_skipped_event() {
    let lw = FakeListerWatcher::new()
        .list(Ok(page(vec![pod("a", "1")], "100", None)))
        .watch(WatchScript::Later(
            vec![Err(undecodable_event("ADDED", "x", "105"))],
            std::time::Duration::from_secs(30),
            Box::new(Ok(bookmark("105"))),
        ))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, config());
    h.until("the second watch", |h| h.lw.watches().len() == 2).await;
    assert_eq!(h.lw.watches()[1].1, "105", "resumes past the skipped event");
    assert_eq!(h.store.ops()[1..], [Op::Forget("default/x".into())]);
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_streaming_list_leaves_out_undecodable_initial_events_and_reports_them_once() {
    let lw = FakeListerWatcher::new().watch(WatchScript::Hang(vec![
        Ok(WatchEvent::Added(pod("a", "1"))),
        Err(undecodable_event("ADDED", "b", "2")),
        Err(undecodable_event("ADDED", "c", "3")),
        Ok(initial_events_end("5")),
    ]));
    let config =
        kube_informers_runtime::reflector::ReflectorConfig { streaming_list: true, ..config() };
    let h = Harness::start(lw, config);
    h.until("the sync", |h| h.version.get() == "5").await;
    assert_eq!(h.store.ops(), [Op::Replace(vec!["a@1".into()], "5".into())]);
    assert_eq!(h.reported(), [Reported { kind: "undecodable", code: None }]);
    assert!(h.lw.lists().is_empty(), "no fallback to a plain list");
    h.stop().await;
}
