//! The list stage into a store that takes relists object by object
//! (`ReflectorStore::start_replace`): the same lists as client-go's reflector sends, with
//! each decoded object handed over at once instead of after the whole list.

use std::sync::Arc;

use kube_informers_runtime::reflector::{LIST_PACE_GRACE, ReflectorConfig};
use tokio::time::Instant;

use crate::reflector_support::*;

/// The ops of a relist handed over whole: started, each of `names` pushed, finished at
/// `resource_version`.
fn relist(names: &[&str], resource_version: &str) -> Vec<Op> {
    let mut ops = vec![Op::StartReplace];
    ops.extend(names.iter().map(|n| Op::Pushed((*n).into())));
    ops.push(Op::FinishReplace(resource_version.into()));
    ops
}

#[tokio::test(start_paused = true)]
async fn paginated_list_is_pushed_as_it_is_read_then_finished_at_its_version() {
    // client-go: reflector_test.go TestReflectorListAndWatch (paginated first list at "0",
    // then a watch from the list's version).
    let lw = FakeListerWatcher::new()
        .list(Ok(page(vec![pod("a", "1"), pod("b", "2")], "50", Some("c1"))))
        .list(Ok(page(vec![pod("c", "3")], "51", None)))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start_streamed(lw, config());
    h.until("the watch", |h| h.lw.watches().len() == 1).await;

    assert_eq!(
        h.store.ops(),
        relist(&["a@1", "b@2", "c@3"], "50"),
        "the first page's version is the list's"
    );
    assert_eq!(h.lw.watches()[0].1, "50");
    assert_eq!(h.version.get(), "50");
    assert!(h.reported().is_empty());
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn expired_continue_token_gives_up_the_pushed_pages_and_lists_whole() {
    // client-go: reflector_test.go TestReflectorFullListIfExpired (pager FullListIfExpired):
    // the first page was handed over already, so the relist it began is given up and the
    // full list is handed over as a new one.
    let lw = FakeListerWatcher::new()
        .list(Ok(page(vec![pod("a", "1")], "50", Some("c1"))))
        .list(Err(api_error(410, "Expired")))
        .list(Ok(page(vec![pod("a", "1"), pod("b", "2"), pod("c", "3")], "60", None)))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start_streamed(lw, config());
    h.until("the watch", |h| h.lw.watches().len() == 1).await;

    assert_eq!(h.lw.lists()[2].0.limit, None, "the fallback lists whole");
    let mut expected = vec![Op::StartReplace, Op::Pushed("a@1".into()), Op::AbortReplace];
    expected.extend(relist(&["a@1", "b@2", "c@3"], "60"));
    assert_eq!(h.store.ops(), expected);
    assert_eq!(h.lw.watches()[0].1, "60");
    assert!(h.reported().is_empty(), "the pager handles it silently, like client-go");
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn list_failing_part_way_gives_up_the_relist_and_lists_again_after_the_backoff() {
    // client-go: reflector_test.go TestReflectorListAndWatchWithErrors (a failed list is
    // reported and retried after the backoff), with the list failing on its second page.
    let lw = FakeListerWatcher::new()
        .list(Ok(page(vec![pod("a", "1")], "50", Some("c1"))))
        .list(Err(api_error(500, "InternalError")))
        .list(Ok(page(vec![pod("a", "2")], "70", None)))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start_streamed(lw, config());
    h.until("the watch", |h| h.lw.watches().len() == 1).await;

    let lists = h.lw.lists();
    assert_eq!(lists.len(), 3);
    assert!(lists[2].1 > lists[1].1, "relisted after a backoff");
    assert_eq!(
        h.store.ops(),
        [
            Op::StartReplace,
            Op::Pushed("a@1".into()),
            Op::AbortReplace,
            Op::StartReplace,
            Op::Pushed("a@2".into()),
            Op::FinishReplace("70".into()),
        ]
    );
    assert_eq!(h.reported(), [Reported { kind: "list", code: Some(500) }]);
    assert_eq!(h.lw.watches()[0].1, "70");
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_store_without_room_holds_the_list_back_until_it_has_room() {
    // No client-go counterpart (its reflector reads the whole list before `Replace`): a
    // store that takes the list object by object paces it (`ReplaceSink::room`).
    let lw = FakeListerWatcher::new()
        .list(Ok(page(vec![pod("a", "1"), pod("b", "2")], "50", Some("c1"))))
        .list(Ok(page(vec![pod("c", "3")], "51", None)))
        .watch(WatchScript::Hang(vec![]));
    let gate = Arc::new(Gate::default());
    let h = Harness::start_paced(lw, config(), gate.clone());
    h.until("the relist to begin", |h| h.store.ops() == [Op::StartReplace]).await;
    tokio::time::sleep(LIST_PACE_GRACE / 2).await;
    assert!(h.lw.lists().is_empty(), "no list is read while the store has no room");

    let opened = Instant::now();
    gate.open();
    h.until("the watch", |h| h.lw.watches().len() == 1).await;
    assert_eq!(h.store.ops(), relist(&["a@1", "b@2", "c@3"], "50"), "the same relist, only later");
    assert!(h.lw.lists().iter().all(|(_, at)| *at == opened), "read at once when room is made");
    assert!(h.reported().is_empty());
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_store_that_never_makes_room_gets_the_list_after_the_grace() {
    // A consumer held up by something else must not make the API server time the list
    // out: after one wait of `LIST_PACE_GRACE` the rest of the list is read unpaced.
    let lw = FakeListerWatcher::new()
        .list(Ok(page(vec![pod("a", "1")], "50", Some("c1"))))
        .list(Ok(page(vec![pod("b", "2")], "51", None)))
        .watch(WatchScript::Hang(vec![]));
    let started = Instant::now();
    let h = Harness::start_paced(lw, config(), Arc::new(Gate::default()));
    h.until("the watch", |h| h.lw.watches().len() == 1).await;

    let lists: Vec<Instant> = h.lw.lists().into_iter().map(|(_, at)| at).collect();
    assert_eq!(lists.len(), 2);
    assert_eq!(lists[0] - started, LIST_PACE_GRACE, "the first page waited the grace");
    assert_eq!(lists[1], lists[0], "the second page did not wait again");
    assert_eq!(h.store.ops(), relist(&["a@1", "b@2"], "50"));
    assert!(h.reported().is_empty());
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_short_list_idle_timeout_shortens_the_wait_for_room_to_half_of_it() {
    // A wait for room must never make the list look silent to its own idle limit.
    let lw = FakeListerWatcher::new()
        .list(Ok(page(vec![pod("a", "1")], "50", None)))
        .watch(WatchScript::Hang(vec![]));
    let config = ReflectorConfig { list_idle_timeout: LIST_PACE_GRACE / 4, ..config() };
    let started = Instant::now();
    let h = Harness::start_paced(lw, config, Arc::new(Gate::default()));
    h.until("the watch", |h| h.lw.watches().len() == 1).await;

    assert_eq!(h.lw.lists()[0].1 - started, LIST_PACE_GRACE / 8);
    assert!(h.observed().is_empty(), "the list was not cut as silent");
    h.stop().await;
}
