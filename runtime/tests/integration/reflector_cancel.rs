//! `Reflector::run` returns promptly when cancelled, whatever it is waiting for.

use std::{sync::Arc, time::Duration};

use crate::reflector_support::*;
use k8s_openapi::api::core::v1::Pod;
use kube_informers_runtime::reflector::{BoxError, Reflector, ReflectorStore};
use tokio_util::sync::CancellationToken;

#[tokio::test(start_paused = true)]
async fn cancel_while_listing() {
    // client-go: reflector_test.go TestRunUntil
    let h = Harness::start(FakeListerWatcher::new(), config());
    h.until("the list", |h| h.lw.lists().len() == 1).await;
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn cancel_while_watching() {
    // client-go: reflector_test.go TestReflectorStopWatch
    let lw = FakeListerWatcher::new().list(Ok(page(vec![], "1", None)));
    let h = Harness::start(lw, config());
    h.until("the watch", |h| h.lw.watches().len() == 1).await;
    h.stop().await;
}

#[tokio::test(start_paused = true)]
async fn cancel_during_backoff() {
    // client-go: reflector_test.go TestReflectorWatchStoppedBefore
    let lw = FakeListerWatcher::new().list(Err(api_error(500, "InternalError")));
    let h = Harness::start(lw, config());
    h.until("the failure", |h| h.reported().len() == 1).await;
    let lw = h.lw.clone();
    h.stop().await;
    tokio::time::sleep(Duration::from_secs(60)).await;
    assert_eq!(lw.lists().len(), 1, "no request after cancel");
}

#[tokio::test(start_paused = true)]
async fn cancelled_before_start_makes_no_request() {
    let lw = Arc::new(FakeListerWatcher::new());
    let reflector = Reflector::new(lw.clone(), Arc::new(NullStore), config());
    let cancel = CancellationToken::new();
    cancel.cancel();
    reflector.run(cancel).await;
    assert!(lw.calls().is_empty());
}

struct NullStore;

impl ReflectorStore<Pod> for NullStore {
    fn replace(&self, _: Vec<Arc<Pod>>, _: String) -> Result<(), BoxError> {
        Ok(())
    }
    fn add(&self, _: Arc<Pod>) -> Result<(), BoxError> {
        Ok(())
    }
    fn update(&self, _: Arc<Pod>) -> Result<(), BoxError> {
        Ok(())
    }
    fn delete(&self, _: Arc<Pod>) -> Result<(), BoxError> {
        Ok(())
    }
    fn resync(&self) -> Result<(), BoxError> {
        Ok(())
    }
}
