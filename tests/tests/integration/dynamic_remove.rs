//! After its CRD is deleted, `remove(&gvr)` ends that informer's task while the other
//! informers of the factory carry on (beyond client-go: kubernetes#79610, where such an
//! informer relists forever until the whole factory stops). On testkit and on the real
//! kube-apiserver, where deleting the CRD sets its deletionTimestamp, the apiextensions
//! finalizer deletes the remaining custom resources, and then the CRD itself goes away.

use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Api;
use kube::api::{DeleteParams, ListParams, PostParams};
use kube::core::{ApiResource, DynamicObject, GroupVersionKind, GroupVersionResource};
use kube_informers_runtime::dynamic::DynamicSharedInformerFactory;
use kube_informers_testkit::Cluster;
use kube_informers_tests::{
    Event, Recorder, crd_json, create_crd, eventually, next_event, on_both_servers,
};

fn resource(kind: &str, plural: &str) -> ApiResource {
    ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk("example.com", "v1", kind), plural)
}

/// Creates `name` in `prod` and waits until the watch cache (an informer's first list) has it.
async fn create(server: &Cluster, ar: &ApiResource, name: &str) {
    let api = Api::<DynamicObject>::namespaced_with(server.client().unwrap(), "prod", ar);
    let created = api
        .create(&PostParams::default(), &DynamicObject::new(name, ar).within("prod"))
        .await
        .expect("create");
    let rv = created.metadata.resource_version.unwrap();
    server.wait_for_watch_cache(api.resource_url(), &rv).await.expect("watch cache");
}

on_both_servers! {
async fn removing_a_deleted_crds_informer_leaves_the_others_running(server) {
    let client = server.client().unwrap();
    if let Some(real) = server.real() {
        real.create_namespace("prod").await.expect("create namespace");
    }
    let crds = Api::<CustomResourceDefinition>::all(client.clone());
    for (kind, plural) in [("Widget", "widgets"), ("Gadget", "gadgets")] {
        create_crd(&server, crd_json("example.com", kind, plural, true)).await;
    }
    let (widget_ar, gadget_ar) = (resource("Widget", "widgets"), resource("Gadget", "gadgets"));
    create(&server, &widget_ar, "w1").await;
    create(&server, &gadget_ar, "g1").await;

    let widgets = GroupVersionResource::gvr("example.com", "v1", "widgets");
    let gadgets = GroupVersionResource::gvr("example.com", "v1", "gadgets");
    let factory = DynamicSharedInformerFactory::new(client.clone(), Duration::ZERO);
    let widget_informer = factory.for_resource(&widgets);
    let gadget_informer = factory.for_resource(&gadgets);
    let (recorder, mut gadget_events) = Recorder::new();
    gadget_informer.informer().add_event_handler(recorder).unwrap();
    factory.start();
    let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await;
    assert_eq!(synced, [(widgets.clone(), true), (gadgets.clone(), true)].into());
    assert!(matches!(next_event(&mut gadget_events).await, Event::Add(_, true)));

    crds.delete("widgets.example.com", &DeleteParams::default()).await.expect("delete crd");
    assert!(factory.remove(&widgets).await, "the factory had a widget informer");
    assert!(widget_informer.informer().is_stopped(), "remove returns after the task ended");
    assert!(!gadget_informer.informer().is_stopped());
    assert_eq!(factory.resources(), vec![gadgets.clone()]);
    let after_remove = server.testkit().map(|t| t.request_count("*", "widgets.example.com"));

    // The gadget informer still receives events.
    create(&server, &gadget_ar, "g2").await;
    let event = next_event(&mut gadget_events).await;
    assert!(
        matches!(&event, Event::Add(obj, false) if obj.metadata.name.as_deref() == Some("g2")),
        "{event:?}"
    );
    assert!(gadget_informer.lister().get("prod/g2").is_some());
    assert!(gadget_informer.lister().get("prod/g1").is_some());
    if let Some(testkit) = server.testkit() {
        assert_eq!(
            Some(testkit.request_count("*", "widgets.example.com")),
            after_remove,
            "a removed informer sends no more requests"
        );
    }
    // The CRD is really gone (on the real server once its finalizer has run), and its
    // resource with it.
    eventually(Duration::from_secs(30), "the widget CRD is gone", || {
        let crds = crds.clone();
        async move { crds.get_opt("widgets.example.com").await.expect("get crd").is_none() }
    })
    .await;
    let widget_api = Api::<DynamicObject>::namespaced_with(client.clone(), "prod", &widget_ar);
    eventually(Duration::from_secs(30), "widgets are no longer served", || {
        let widget_api = widget_api.clone();
        async move {
            matches!(
                widget_api.list(&ListParams::default()).await,
                Err(kube::Error::Api(status)) if status.code == 404
            )
        }
    })
    .await;
    let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(5)).await;
    assert_eq!(synced, [(gadgets, true)].into(), "a removed informer leaves the sync map");
    factory.shutdown().await;
    assert!(gadget_informer.informer().is_stopped());
    server.shutdown().await;
}
}
