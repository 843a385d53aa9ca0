//! After `factory.shutdown().await`, no task or handler thread of ours is still running
//! (client-go: informers/factory.go Shutdown, "waits for all informer goroutines"). On
//! testkit and on the real kube-apiserver.

use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube_informers_runtime::{ResourceEventHandlerFuncs, TypedInformerFactory};
use kube_informers_testkit::{SeedKind, ServerKind};
use kube_informers_tests::{
    counting_threads_alone, eventually, init_tracing, listener_threads, start_cluster,
};

mod shutdown_leaves_no_task_or_thread_behind {
    #[test]
    fn testkit() {
        super::shutdown_leaves_no_task_or_thread_behind(super::ServerKind::Testkit);
    }

    #[test]
    fn real_server() {
        super::shutdown_leaves_no_task_or_thread_behind(super::ServerKind::Real);
    }
}

fn shutdown_leaves_no_task_or_thread_behind(kind: ServerKind) {
    let _alone = counting_threads_alone();
    init_tracing();
    // The server runs on its own runtime, so the test runtime holds only our tasks.
    let server_rt = tokio::runtime::Runtime::new().unwrap();
    let server = server_rt.block_on(async {
        let server = start_cluster(kind).await;
        server.seed(SeedKind::ConfigMaps, "a", 20).await.unwrap();
        server.seed(SeedKind::Pods, "a", 5).await.unwrap();
        server
    });
    let client_config = server.config().unwrap();

    let rt =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let baseline_tasks = tokio::runtime::Handle::current().metrics().num_alive_tasks();
        let baseline_threads = listener_threads();
        {
            let client = kube::Client::try_from(client_config).unwrap();
            let factory = TypedInformerFactory::new(client, Duration::from_secs(1));
            for _ in 0..3 {
                factory
                    .informer_for::<ConfigMap>()
                    .add_event_handler(ResourceEventHandlerFuncs::new())
                    .unwrap();
            }
            factory
                .informer_for::<Pod>()
                .add_event_handler(ResourceEventHandlerFuncs::new())
                .unwrap();
            factory.start();
            assert!(factory.wait_for_cache_sync().await.values().all(|ok| *ok));
            assert_eq!(listener_threads(), baseline_threads + 4);
            assert!(tokio::runtime::Handle::current().metrics().num_alive_tasks() > baseline_tasks);
            factory.shutdown().await;
            // Our own tasks and threads are gone the moment shutdown returns.
            assert_eq!(listener_threads(), baseline_threads, "listener threads outlived shutdown");
            let informer = factory.informer_for::<ConfigMap>();
            assert!(informer.is_stopped());
            assert!(informer.add_event_handler(ResourceEventHandlerFuncs::new()).is_err());
        }
        // The HTTP client's pooled connections end once the client is dropped.
        eventually(Duration::from_secs(5), "no task left", || {
            let alive = tokio::runtime::Handle::current().metrics().num_alive_tasks();
            async move { alive == baseline_tasks }
        })
        .await;
    });
    server_rt.block_on(server.shutdown());
}
