//! A 403 on list does not hot-loop: the reflector backs off, reports every failed list to the
//! watch-error handler, `wait_for_cache_sync` with a timeout reports the informer as not
//! synced, and the informer recovers once access is granted (client-go:
//! reflector_test.go TestReflectorListAndWatchWithErrors / backoff manager behaviour). On
//! testkit and on the real kube-apiserver (RBAC).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube_informers_runtime::{TypedInformerFactory, store::NAMESPACE_INDEX};
use kube_informers_testkit::SeedKind;
use kube_informers_tests::on_both_servers;

on_both_servers! {
async fn forbidden_list_backs_off_reports_and_recovers(server) {
    server.seed(SeedKind::ConfigMaps, "locked", 30).await.unwrap();
    server.set_read_access("configmaps", false).await.unwrap();
    let factory = TypedInformerFactory::new(server.restricted_client().unwrap(), Duration::ZERO);
    let informer = factory.informer_for::<ConfigMap>();
    let errors = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&errors);
    informer
        .set_watch_error_handler(move |err| {
            assert_eq!(err.status_code(), Some(403), "unexpected error: {err}");
            seen.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
    factory.start();

    let window = Duration::from_secs(3);
    let synced = factory.wait_for_cache_sync_timeout(window).await;
    assert_eq!(synced.len(), 1);
    assert!(synced.values().all(|ok| !ok), "a denied informer must not report synced");
    assert!(!informer.has_synced());
    // Backoff 0.8 s, 1.6 s, 3.2 s (each jittered up to 2x): at most 4 attempts fit in 3 s.
    // A hot loop would make thousands.
    let reported = errors.load(Ordering::SeqCst) as u64;
    assert!((1..=4).contains(&reported), "{reported} list failures in {window:?}");
    if let Some(testkit) = server.testkit() {
        let lists = testkit.request_count("list", "configmaps");
        assert_eq!(reported, lists, "every failure reaches the handler");
    }

    server.set_read_access("configmaps", true).await.unwrap();
    let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await;
    assert!(synced.values().all(|ok| *ok), "the informer recovers once access is granted");
    // The real server keeps a ConfigMap of its own in kube-system.
    let locked = informer.get_indexer().by_index(NAMESPACE_INDEX, "locked").unwrap();
    assert_eq!(locked.len(), 30);
    factory.shutdown().await;
    server.shutdown().await;
}
}
