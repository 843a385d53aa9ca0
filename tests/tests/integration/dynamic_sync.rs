//! A CRD created at run time gets a dynamic informer that syncs, whose lister answers
//! get / list-by-namespace / list-with-selector, and whose handlers see add, update and
//! delete; two `for_resource` calls share one watch (client-go: dynamicinformer
//! informer_test.go TestFilteredDynamicSharedInformerFactory / TestDynamicSharedInformerFactory).
//! On testkit and on the real kube-apiserver.

use std::collections::BTreeMap;
use std::time::Duration;

use kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use kube::core::{ApiResource, DynamicObject, GroupVersionKind, GroupVersionResource, Selector};
use kube::{Api, Client};
use kube_informers_runtime::dynamic::{DynamicError, DynamicSharedInformerFactory};
use kube_informers_runtime::labels;
use kube_informers_testkit::Cluster;
use kube_informers_tests::{
    CallbackModel, Event, Recorder, cache_model, crd_json, create_crd, next_event, on_both_servers,
};
use serde_json::json;

fn widget_resource() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("example.com", "v1", "Widget"),
        "widgets",
    )
}

fn widgets() -> GroupVersionResource {
    GroupVersionResource::gvr("example.com", "v1", "widgets")
}

/// The real server refuses objects in namespaces that do not exist; testkit takes any.
async fn create_namespaces(server: &Cluster, names: &[&str]) {
    if let Some(real) = server.real() {
        for name in names {
            real.create_namespace(name).await.expect("create namespace");
        }
    }
}

async fn create_widget(client: &Client, namespace: &str, name: &str, app: &str) -> DynamicObject {
    let mut widget = DynamicObject::new(name, &widget_resource())
        .within(namespace)
        .data(json!({"spec": {"size": 1}}));
    widget.metadata.labels = Some(BTreeMap::from([("app".to_owned(), app.to_owned())]));
    Api::<DynamicObject>::namespaced_with(client.clone(), namespace, &widget_resource())
        .create(&PostParams::default(), &widget)
        .await
        .expect("create widget")
}

fn keys(objects: &[std::sync::Arc<DynamicObject>]) -> Vec<String> {
    cache_model(objects).into_keys().collect()
}

on_both_servers! {
async fn crd_created_at_runtime_syncs_and_notifies(server) {
    let client = server.client().unwrap();
    create_namespaces(&server, &["prod", "dev"]).await;
    create_crd(&server, crd_json("example.com", "Widget", "widgets", true)).await;
    create_widget(&client, "prod", "a", "web").await;
    create_widget(&client, "prod", "b", "db").await;
    let c = create_widget(&client, "dev", "c", "web").await;
    let all = Api::<DynamicObject>::all_with(client.clone(), &widget_resource());
    let rv = c.metadata.resource_version.unwrap();
    server.wait_for_watch_cache(all.resource_url(), &rv).await.expect("watch cache");

    let factory = DynamicSharedInformerFactory::new(client.clone(), Duration::ZERO);
    let widget_informer = factory.for_resource(&widgets());
    let (recorder, mut events) = Recorder::new();
    widget_informer.informer().add_event_handler(recorder).unwrap();
    factory.start();
    let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await;
    assert_eq!(synced, [(widgets(), true)].into());

    let lister = widget_informer.lister();
    let a = lister.get("prod/a").expect("prod/a by key");
    assert_eq!(a.data["spec"]["size"], 1, "the whole object is cached");
    assert_eq!(a.types.as_ref().map(|t| t.kind.as_str()), Some("Widget"));
    assert!(lister.by_namespace("prod").get("b").is_some());
    assert!(lister.by_namespace("dev").get("a").is_none());
    assert_eq!(keys(&lister.by_namespace("prod").list(&Selector::default())), ["prod/a", "prod/b"]);
    let web = labels::parse("app=web").unwrap();
    assert_eq!(keys(&lister.list(&web)), ["dev/c", "prod/a"]);
    assert_eq!(keys(&lister.by_namespace("prod").list(&web)), ["prod/a"]);

    let mut model = CallbackModel::default();
    for _ in 0..3 {
        let event = next_event(&mut events).await;
        assert!(matches!(event, Event::Add(_, true)), "initial list arrives as adds: {event:?}");
        model.apply(&event);
    }

    create_widget(&client, "prod", "d", "web").await;
    let event = next_event(&mut events).await;
    assert!(
        matches!(&event, Event::Add(obj, false) if obj.metadata.name.as_deref() == Some("d")),
        "{event:?}"
    );
    model.apply(&event);

    let prod = Api::<DynamicObject>::namespaced_with(client.clone(), "prod", &widget_resource());
    prod.patch(
        "a",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"labels": {"app": "api"}}})),
    )
    .await
    .expect("patch");
    let event = next_event(&mut events).await;
    match &event {
        Event::Update(old, new) => {
            assert_eq!(old.metadata.labels.as_ref().unwrap()["app"], "web");
            assert_eq!(new.metadata.labels.as_ref().unwrap()["app"], "api");
        }
        other => panic!("expected an update, got {other:?}"),
    }
    model.apply(&event);

    Api::<DynamicObject>::namespaced_with(client.clone(), "dev", &widget_resource())
        .delete("c", &DeleteParams::default())
        .await
        .expect("delete");
    let event = next_event(&mut events).await;
    assert!(
        matches!(&event, Event::Delete(gone) if !gone.is_tombstone() && gone.object().metadata.name.as_deref() == Some("c")),
        "{event:?}"
    );
    model.apply(&event);

    assert_eq!(
        model.objects,
        cache_model(&lister.list(&Selector::default())),
        "handlers and cache agree"
    );
    assert_eq!(keys(&lister.list(&web)), ["prod/d"]);
    factory.shutdown().await;
    server.shutdown().await;
}
}

on_both_servers! {
/// Both callers get the same events; on testkit, one list and one watch serve them both.
async fn two_for_resource_calls_make_one_watch(server) {
    let client = server.client().unwrap();
    create_namespaces(&server, &["prod"]).await;
    server.register_crd(&crd_json("example.com", "Widget", "widgets", true)).await.unwrap();
    let factory = DynamicSharedInformerFactory::new(client.clone(), Duration::ZERO);
    let first = factory.for_resource(&widgets());
    let second = factory.for_resource(&widgets());
    let (one, mut first_events) = Recorder::new();
    let (two, mut second_events) = Recorder::new();
    first.informer().add_event_handler(one).unwrap();
    second.informer().add_event_handler(two).unwrap();
    factory.start();
    factory.start();
    assert!(factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await[&widgets()]);

    // Once an event has come through, the watch is open.
    create_widget(&client, "prod", "w", "web").await;
    assert!(matches!(next_event(&mut first_events).await, Event::Add(_, false)));
    assert!(matches!(next_event(&mut second_events).await, Event::Add(_, false)));
    assert!(first.lister().get("prod/w").is_some());
    assert!(second.lister().get("prod/w").is_some());
    if let Some(testkit) = server.testkit() {
        assert_eq!(
            testkit.request_count("watch", "widgets.example.com"),
            1,
            "one watch for both callers"
        );
        assert_eq!(
            testkit.request_count("list", "widgets.example.com"),
            1,
            "one list for both callers"
        );
    }
    factory.shutdown().await;
    server.shutdown().await;
}
}

on_both_servers! {
async fn discovery_fills_kind_and_scope(server) {
    let client = server.client().unwrap();
    create_crd(&server, crd_json("tools.example.com", "Gizmo", "gizmos", false)).await;
    let gizmo = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("tools.example.com", "v1", "Gizmo"),
        "gizmos",
    );
    Api::<DynamicObject>::all_with(client.clone(), &gizmo)
        .create(&PostParams::default(), &DynamicObject::new("g1", &gizmo))
        .await
        .expect("create gizmo");
    // A namespaced factory: without discovery the URL would carry the namespace, which a
    // cluster-scoped resource does not have.
    let factory = DynamicSharedInformerFactory::filtered(
        client.clone(),
        Duration::ZERO,
        Some("prod".into()),
        None,
    );
    let gvr = GroupVersionResource::gvr("tools.example.com", "v1", "gizmos");
    let gizmos = factory.for_resource_discovered(&gvr).await.expect("discovered");
    assert_eq!(gizmos.api_resource().kind, "Gizmo");
    let again = factory.for_resource(&gvr);
    assert_eq!(again.api_resource().kind, "Gizmo", "for_resource returns the discovered informer");
    factory.start();
    assert!(factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await[&gvr]);
    assert!(gizmos.lister().get("g1").is_some(), "cluster-scoped objects are keyed by name");

    let missing = GroupVersionResource::gvr("tools.example.com", "v1", "doohickeys");
    match factory.for_resource_discovered(&missing).await {
        Err(DynamicError::NotServed { resource, .. }) => assert_eq!(resource, "doohickeys"),
        other => panic!("expected NotServed, got {other:?}"),
    }
    match factory
        .for_resource_discovered(&GroupVersionResource::gvr("nowhere.example.com", "v1", "things"))
        .await
    {
        Err(DynamicError::Discovery { group, .. }) => assert_eq!(group, "nowhere.example.com"),
        other => panic!("expected a discovery error, got {other:?}"),
    }
    assert_eq!(factory.resources(), vec![gvr], "failed lookups create no informer");
    factory.shutdown().await;
    server.shutdown().await;
}
}
