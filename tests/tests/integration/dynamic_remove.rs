//! After its CRD is deleted, `remove(&gvr)` ends that informer's task while the other
//! informers of the factory carry on (beyond client-go: kubernetes#79610, where such an
//! informer relists forever until the whole factory stops).

use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{DeleteParams, PostParams};
use kube::core::{ApiResource, DynamicObject, GroupVersionKind, GroupVersionResource};
use kube::{Api, Client};
use kube_informers_runtime::dynamic::DynamicSharedInformerFactory;
use kube_informers_testkit::TestApiServer;
use kube_informers_tests::{Event, Recorder, crd_json, init_tracing, next_event};

fn resource(kind: &str, plural: &str) -> ApiResource {
    ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk("example.com", "v1", kind), plural)
}

async fn create(client: &Client, ar: &ApiResource, name: &str) {
    Api::<DynamicObject>::namespaced_with(client.clone(), "prod", ar)
        .create(&PostParams::default(), &DynamicObject::new(name, ar).within("prod"))
        .await
        .expect("create");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn removing_a_deleted_crds_informer_leaves_the_others_running() {
    init_tracing();
    let server = TestApiServer::start().await.unwrap();
    let client = server.client().unwrap();
    let crds = Api::<CustomResourceDefinition>::all(client.clone());
    for (kind, plural) in [("Widget", "widgets"), ("Gadget", "gadgets")] {
        let crd = serde_json::from_value(crd_json("example.com", kind, plural, true)).unwrap();
        crds.create(&PostParams::default(), &crd).await.expect("create crd");
    }
    let (widget_ar, gadget_ar) = (resource("Widget", "widgets"), resource("Gadget", "gadgets"));
    create(&client, &widget_ar, "w1").await;
    create(&client, &gadget_ar, "g1").await;

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
    let after_remove = server.request_count("*", "widgets.example.com");

    // The gadget informer still receives events.
    create(&client, &gadget_ar, "g2").await;
    let event = next_event(&mut gadget_events).await;
    assert!(
        matches!(&event, Event::Add(obj, false) if obj.metadata.name.as_deref() == Some("g2")),
        "{event:?}"
    );
    assert!(gadget_informer.lister().get("prod/g2").is_some());
    assert_eq!(
        server.request_count("*", "widgets.example.com"),
        after_remove,
        "a removed informer sends no more requests"
    );
    let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(5)).await;
    assert_eq!(synced, [(gadgets, true)].into(), "a removed informer leaves the sync map");
    factory.shutdown().await;
    assert!(gadget_informer.informer().is_stopped());
    server.shutdown().await;
}
