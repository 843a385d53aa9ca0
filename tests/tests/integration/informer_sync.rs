//! A factory informer syncs thousands of Pods, its lister answers correctly, and its handlers
//! see the initial list and then live adds, updates and deletes (client-go:
//! shared_informer_test.go TestSharedInformerInitialEvents / informer lifecycle). On testkit
//! and on the real kube-apiserver.

use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, DeleteParams, PostParams};
use kube_informers_runtime::labels;
use kube_informers_runtime::lister::Lister;
use kube_informers_runtime::{TypedInformerFactory, store::NAMESPACE_INDEX};
use kube_informers_testkit::SeedKind;
use kube_informers_tests::{
    CallbackModel, Event, Recorder, cache_model, next_event, on_both_servers,
};

const NAMESPACES: [&str; 5] = ["ns-a", "ns-b", "ns-c", "ns-d", "ns-e"];
const PER_NAMESPACE: usize = 1000;

on_both_servers! {
async fn syncs_5000_pods_then_follows_live_changes(server) {
    for ns in NAMESPACES {
        server.seed(SeedKind::Pods, ns, PER_NAMESPACE).await.unwrap();
    }
    let client = server.client().unwrap();
    let factory = TypedInformerFactory::new(client.clone(), Duration::ZERO);
    let informer = factory.informer_for::<Pod>();
    let (recorder, mut events) = Recorder::new();
    let registration = informer.add_event_handler(recorder).unwrap();
    factory.start();
    let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(60)).await;
    assert_eq!(synced.len(), 1);
    assert!(synced.values().all(|ok| *ok), "not synced: {synced:?}");

    let total = NAMESPACES.len() * PER_NAMESPACE;
    let mut model = CallbackModel::default();
    for _ in 0..total {
        let event = next_event(&mut events).await;
        assert!(matches!(event, Event::Add(_, true)), "expected an initial add, got {event:?}");
        model.apply(&event);
    }
    kube_informers_tests::eventually(Duration::from_secs(10), "registration synced", || {
        let synced = registration.has_synced();
        async move { synced }
    })
    .await;

    // The lister agrees with the server, through every query shape.
    let indexer = informer.get_indexer();
    let lister = Lister::new(indexer.clone());
    let everything = lister.list(&Default::default());
    assert_eq!(everything.len(), total);
    assert_eq!(cache_model(&everything), model.objects);
    let server_pods = Api::<Pod>::all(client.clone()).list(&Default::default()).await.unwrap();
    assert_eq!(server_pods.items.len(), total);
    for pod in &server_pods.items {
        let ns = pod.metadata.namespace.as_deref().unwrap();
        let name = pod.metadata.name.as_deref().unwrap();
        let cached = lister.namespaced(ns).get(name).expect("every server pod is cached");
        assert_eq!(cached.metadata.resource_version, pod.metadata.resource_version);
        assert!(lister.namespaced("elsewhere").get(name).is_none());
    }
    for ns in NAMESPACES {
        let in_ns = lister.namespaced(ns).list(&Default::default());
        assert_eq!(in_ns.len(), PER_NAMESPACE);
        assert!(in_ns.iter().all(|p| p.metadata.namespace.as_deref() == Some(ns)));
        assert_eq!(indexer.by_index(NAMESPACE_INDEX, ns).unwrap().len(), PER_NAMESPACE);
    }
    // Seeded pods carry app=app-{index % 10}.
    let app3 = labels::parse("app=app-3").unwrap();
    let picked = lister.list(&app3);
    assert_eq!(picked.len(), total / 10);
    assert!(picked.iter().all(|p| p.metadata.labels.as_ref().unwrap()["app"] == "app-3"));
    let in_a_not_3 =
        lister.namespaced("ns-a").list(&labels::parse("app in (app-1,app-2),app!=app-3").unwrap());
    assert_eq!(in_a_not_3.len(), PER_NAMESPACE / 5);

    // Live changes reach the handler with the right objects.
    let pods = Api::<Pod>::namespaced(client.clone(), "ns-a");
    let mut pod = kube_informers_tests::valid_pod("live");
    pod.metadata.labels = Some([("app".to_string(), "live".to_string())].into());
    let created = pods.create(&PostParams::default(), &pod).await.unwrap();
    match next_event(&mut events).await {
        Event::Add(obj, false) => {
            assert_eq!(obj.metadata.name.as_deref(), Some("live"));
            assert_eq!(obj.metadata.resource_version, created.metadata.resource_version);
        }
        other => panic!("expected a live add, got {other:?}"),
    }
    let mut changed = created.clone();
    changed.metadata.labels = Some([("app".to_string(), "changed".to_string())].into());
    let updated = pods.replace("live", &PostParams::default(), &changed).await.unwrap();
    match next_event(&mut events).await {
        Event::Update(old, new) => {
            assert_eq!(old.metadata.resource_version, created.metadata.resource_version);
            assert_eq!(new.metadata.resource_version, updated.metadata.resource_version);
            assert_eq!(new.metadata.labels.as_ref().unwrap()["app"], "changed");
        }
        other => panic!("expected an update, got {other:?}"),
    }
    assert_eq!(lister.list(&labels::parse("app=changed").unwrap()).len(), 1);
    pods.delete("live", &DeleteParams::default()).await.unwrap();
    // The real apiserver first sets deletionTimestamp (an update), then removes the Pod.
    let mut event = next_event(&mut events).await;
    while let Event::Update(_, new) = &event
        && new.metadata.deletion_timestamp.is_some()
    {
        event = next_event(&mut events).await;
    }
    match event {
        Event::Delete(gone) => {
            assert!(!gone.is_tombstone());
            assert_eq!(gone.object().metadata.name.as_deref(), Some("live"));
        }
        other => panic!("expected a delete, got {other:?}"),
    }
    assert!(lister.namespaced("ns-a").get("live").is_none());
    factory.shutdown().await;
    server.shutdown().await;
}
}
