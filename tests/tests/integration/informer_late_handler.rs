//! A handler added to a running informer under concurrent churn receives every cached
//! object exactly once as `on_add(obj, true)`, then every later event, with nothing lost or
//! doubled in between (client-go: shared_informer.go's blockDeltas;
//! shared_informer_test.go TestSharedInformerInitialEvents / TestStateSharedInformer).

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, PostParams};
use kube_informers_runtime::TypedInformerFactory;
use kube_informers_testkit::{Cluster, SeedKind, ServerKind};
use kube_informers_tests::{
    CallbackModel, Event, Recorder, cache_model, eventually, on_both_servers,
};

/// Bursts of creates (on testkit seeded straight into storage, so events arrive faster than
/// HTTP could make them) interleaved with deletes and updates over HTTP.
async fn churn(server: &Cluster, api: Api<ConfigMap>, namespace: &str, initial: &[String]) {
    for (i, name) in initial.iter().enumerate().take(24) {
        server.seed(SeedKind::ConfigMaps, namespace, 25).await.unwrap();
        if i % 2 == 0 {
            let _ = api.delete(name, &DeleteParams::default()).await;
        } else if let Ok(mut cm) = api.get(name).await {
            cm.data = Some([("i".to_string(), i.to_string())].into());
            let _ = api.replace(name, &PostParams::default(), &cm).await;
        }
        tokio::task::yield_now().await;
    }
}

on_both_servers! {
async fn late_handler_sees_each_object_once_then_every_event(server) {
    // Every create is an HTTP request on the real server: fewer rounds there.
    let rounds = if server.kind() == ServerKind::Real { 6 } else { 50 };
    let server = Arc::new(server);
    let client = server.client().unwrap();
    for round in 0..rounds {
        let namespace = format!("churn-{round}");
        server.seed(SeedKind::ConfigMaps, &namespace, 300).await.unwrap();
        let api = Api::<ConfigMap>::namespaced(client.clone(), &namespace);
        let initial: Vec<String> = api
            .list(&Default::default())
            .await
            .unwrap()
            .items
            .into_iter()
            .filter_map(|cm| cm.metadata.name)
            .collect();
        let factory =
            TypedInformerFactory::builder(client.clone()).namespace(namespace.clone()).build();
        let informer = factory.informer_for::<ConfigMap>();
        factory.start();
        assert!(
            factory
                .wait_for_cache_sync_timeout(Duration::from_secs(30))
                .await
                .values()
                .all(|ok| *ok)
        );

        let churner = {
            let (server, api, namespace) = (Arc::clone(&server), api.clone(), namespace.clone());
            tokio::spawn(async move { churn(&server, api, &namespace, &initial).await })
        };
        // Join somewhere in the middle of the churn.
        for _ in 0..(round % 7) * 3 {
            tokio::task::yield_now().await;
        }
        let (recorder, mut events) = Recorder::new();
        let registration = informer.add_event_handler(recorder).unwrap();
        churner.await.unwrap();

        let expected = cache_model(
            &api.list(&Default::default())
                .await
                .unwrap()
                .items
                .into_iter()
                .map(Arc::new)
                .collect::<Vec<_>>(),
        );
        eventually(Duration::from_secs(30), "cache converges", || {
            let cache = cache_model(&informer.get_indexer().list());
            let expected = expected.clone();
            async move { cache == expected }
        })
        .await;
        let mut model = CallbackModel::default();
        let mut initial_phase = true;
        eventually(Duration::from_secs(10), "late handler converges", || {
            while let Ok(event) = events.try_recv() {
                // Initial adds come first, then only live events.
                match &event {
                    Event::Add(_, true) => {
                        assert!(initial_phase, "round {round}: initial add after live events")
                    }
                    _ => initial_phase = false,
                }
                model.apply(&event);
            }
            let done = model.objects == expected;
            async move { done }
        })
        .await;
        assert!(registration.has_synced(), "round {round}: registration synced");
        factory.shutdown().await;
    }
    Arc::into_inner(server).expect("no other owner").shutdown().await;
}
}
