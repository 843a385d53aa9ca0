//! The reflector's resync timer.

use std::{
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use crate::reflector_support::*;
use kube_informers_runtime::reflector::ReflectorConfig;
use tokio::time::Instant;

fn resyncs(h: &Harness) -> usize {
    h.store.ops().iter().filter(|op| **op == Op::Resync).count()
}

#[tokio::test(start_paused = true)]
async fn resync_timer_consults_should_resync() {
    // client-go: reflector_test.go TestReflectorResync, TestReflectorResyncChan
    let lw = FakeListerWatcher::new()
        .list(Ok(page(vec![pod("a", "1")], "10", None)))
        .watch(WatchScript::Hang(vec![]));
    let asked = Arc::new(AtomicUsize::new(0));
    let config = ReflectorConfig { resync_period: Duration::from_secs(30), ..config() };
    let h = Harness::start_with(lw, config, |reflector| {
        let asked = asked.clone();
        // Agree every other time: 1st no, 2nd yes, 3rd no, 4th yes.
        reflector
            .set_should_resync(Arc::new(move || asked.fetch_add(1, Ordering::SeqCst) % 2 == 1));
    });
    h.until("the watch", |h| h.lw.watches().len() == 1).await;
    let watching_since = Instant::now();

    tokio::time::sleep(Duration::from_secs(29)).await;
    assert_eq!(asked.load(Ordering::SeqCst), 0, "no tick before the period");
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    assert_eq!(resyncs(&h), 0, "should_resync said no");

    tokio::time::sleep_until(watching_since + Duration::from_secs(121)).await;
    assert_eq!(asked.load(Ordering::SeqCst), 4);
    assert_eq!(resyncs(&h), 2);
    assert_eq!(h.lw.lists().len(), 1, "a resync is not a relist");
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn resync_without_should_resync_always_resyncs() {
    let lw = FakeListerWatcher::new()
        .list(Ok(page(vec![], "10", None)))
        .watch(WatchScript::Hang(vec![]));
    let config = ReflectorConfig { resync_period: Duration::from_secs(10), ..config() };
    let h = Harness::start(lw, config);
    h.until("three resyncs", |h| resyncs(h) == 3).await;
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn zero_resync_period_never_resyncs() {
    let lw = FakeListerWatcher::new()
        .list(Ok(page(vec![], "10", None)))
        .watch(WatchScript::Hang(vec![]));
    let asked = Arc::new(AtomicUsize::new(0));
    let h = Harness::start_with(lw, config(), |reflector| {
        let asked = asked.clone();
        reflector.set_should_resync(Arc::new(move || {
            asked.fetch_add(1, Ordering::SeqCst);
            true
        }));
    });
    h.until("the watch", |h| h.lw.watches().len() == 1).await;
    tokio::time::sleep(Duration::from_secs(24 * 3600)).await;
    assert_eq!(asked.load(Ordering::SeqCst), 0);
    assert_eq!(resyncs(&h), 0);
    h.stop().await;
}
