//! Load: 100 live informers against one server (one per label selector, all sharing one
//! client) all sync and see their own objects, and after they stop every task of theirs
//! and every listener thread is gone (a leak check, as informer_shutdown.rs).

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::Api;
use kube_informers_runtime::listwatch::ApiListerWatcher;
use kube_informers_runtime::{Indexers, ResourceEventHandlerFuncs, SharedIndexInformer};
use kube_informers_testkit::TestApiServer;
use kube_informers_tests::{counting_threads_alone, eventually, init_tracing, listener_threads};
use tokio_util::sync::CancellationToken;

const INFORMERS: usize = 100;

#[test]
fn a_hundred_informers_sync_and_leave_nothing_behind() {
    let _alone = counting_threads_alone();
    init_tracing();
    // The server runs on its own runtime, so the test runtime holds only our tasks.
    let server_rt = tokio::runtime::Runtime::new().unwrap();
    let server = server_rt.block_on(TestApiServer::start()).unwrap();
    let objects: Vec<serde_json::Value> = (0..INFORMERS * 3)
        .map(|i| {
            serde_json::json!({
                "apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": format!("cm-{i}"), "namespace": "load",
                             "labels": {"shard": (i % INFORMERS).to_string()}},
            })
        })
        .collect();
    server.seed().values("configmaps", objects).unwrap();
    let client_config = server.config().unwrap();

    let rt =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let baseline_tasks = tokio::runtime::Handle::current().metrics().num_alive_tasks();
        let baseline_threads = listener_threads();
        {
            let client = kube::Client::try_from(client_config).unwrap();
            let cancel = CancellationToken::new();
            let mut informers = Vec::new();
            let mut runs = Vec::new();
            for shard in 0..INFORMERS {
                let selector = format!("shard={shard}");
                let tweak: kube_informers_runtime::listwatch::TweakListParams =
                    Arc::new(move |lp| lp.label_selector = Some(selector.clone()));
                let lw =
                    ApiListerWatcher::new(Api::<ConfigMap>::all(client.clone())).with_tweak(tweak);
                let informer =
                    SharedIndexInformer::new(Arc::new(lw), Duration::ZERO, Indexers::default());
                informer.add_event_handler(ResourceEventHandlerFuncs::new()).unwrap();
                let run = informer.clone();
                let token = cancel.clone();
                runs.push(tokio::spawn(async move { run.run(token).await }));
                informers.push(informer);
            }
            for (shard, informer) in informers.iter().enumerate() {
                let synced =
                    tokio::time::timeout(Duration::from_secs(60), informer.wait_for_sync()).await;
                assert_eq!(synced, Ok(true), "informer {shard} did not sync");
                let mut names: Vec<String> = informer
                    .get_indexer()
                    .list()
                    .iter()
                    .filter_map(|cm| cm.metadata.name.clone())
                    .collect();
                names.sort();
                let mut expected: Vec<String> =
                    (0..3).map(|k| format!("cm-{}", shard + k * INFORMERS)).collect();
                expected.sort();
                assert_eq!(names, expected, "informer {shard} holds exactly its shard");
            }
            assert_eq!(listener_threads(), baseline_threads + INFORMERS);
            cancel.cancel();
            for run in runs {
                run.await.unwrap();
            }
            assert_eq!(
                listener_threads(),
                baseline_threads,
                "listener threads outlived the informers"
            );
            assert!(informers.iter().all(SharedIndexInformer::is_stopped));
        }
        eventually(Duration::from_secs(10), "no task left", || {
            let alive = tokio::runtime::Handle::current().metrics().num_alive_tasks();
            async move { alive == baseline_tasks }
        })
        .await;
    });
    server_rt.block_on(server.shutdown());
}
