//! The controller example's reconcile against the test API server: it creates the
//! `<deployment>-info` ConfigMap, leaves a matching one alone, rewrites it when the
//! Deployment scales, and deletes it once the Deployment is gone.

#[path = "../../examples/controller/reconcile.rs"]
mod reconcile;

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, PostParams};
use kube_informers::SharedInformerFactory;
use kube_informers::store::index_func;
use kube_informers_testkit::TestApiServer;
use serde_json::json;

use reconcile::{Context, OWNER_INDEX, Outcome, owner_key, reconcile};

fn deployment(replicas: i32) -> Deployment {
    serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "prod"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}
            }
        }
    }))
    .unwrap()
}

/// Polls the caches (the informers follow the server asynchronously) until `done` holds.
async fn until(mut done: impl FnMut() -> bool) {
    tokio::time::timeout(Duration::from_secs(30), async {
        while !done() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the cache caught up");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconcile_creates_updates_and_deletes_the_info_config_map() {
    let server = TestApiServer::start().await.unwrap();
    let client = server.client().unwrap();
    let deploys: Api<Deployment> = Api::namespaced(client.clone(), "prod");
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), "prod");
    deploys.create(&PostParams::default(), &deployment(3)).await.unwrap();

    let factory = SharedInformerFactory::new(client.clone(), Duration::ZERO);
    let deployments = factory.apps().v1().deployments();
    let config_maps = factory.core().v1().config_maps();
    config_maps
        .informer()
        .add_indexers([(OWNER_INDEX.to_string(), index_func(owner_key))].into())
        .unwrap();
    // Like client-go, informers must exist (informer()/lister()) before start() to run.
    let ctx = Context {
        client,
        deployments: deployments.lister(),
        config_maps: config_maps.informer().get_indexer(),
    };
    factory.start();
    let synced = factory.wait_for_cache_sync().await;
    assert_eq!(synced.len(), 2);
    assert!(synced.values().all(|s| *s));
    let cached_replicas = |ctx: &Context| {
        ctx.config_maps
            .by_index(OWNER_INDEX, "prod/web")
            .unwrap()
            .first()
            .and_then(|cm| cm.data.clone()?.get("replicas").cloned())
    };

    assert_eq!(deployments.informer().get_indexer().list_keys(), vec!["prod/web".to_string()]);
    assert_eq!(reconcile(&ctx, "prod/web").await.unwrap(), Outcome::Created);
    let cm = cms.get("web-info").await.unwrap();
    let data = cm.data.unwrap();
    assert_eq!(data["replicas"], "3");
    assert_eq!(data["image"], "nginx:1.27");

    until(|| cached_replicas(&ctx).as_deref() == Some("3")).await;
    assert_eq!(reconcile(&ctx, "prod/web").await.unwrap(), Outcome::Unchanged);

    let mut scaled = deploys.get("web").await.unwrap();
    scaled.spec.replicas = Some(5);
    deploys.replace("web", &PostParams::default(), &scaled).await.unwrap();
    until(|| {
        ctx.deployments.deployments("prod").get("web").is_some_and(|d| d.spec.replicas == Some(5))
    })
    .await;
    assert_eq!(reconcile(&ctx, "prod/web").await.unwrap(), Outcome::Updated);
    assert_eq!(cms.get("web-info").await.unwrap().data.unwrap()["replicas"], "5");

    deploys.delete("web", &DeleteParams::default()).await.unwrap();
    until(|| ctx.deployments.deployments("prod").get("web").is_none()).await;
    assert_eq!(reconcile(&ctx, "prod/web").await.unwrap(), Outcome::Deleted(1));
    assert!(cms.get_opt("web-info").await.unwrap().is_none());

    factory.shutdown().await;
    server.shutdown().await;
}
