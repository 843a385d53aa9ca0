//! The dynamic and metadata factories share informers per GVR, build URLs from the GVR
//! alone, start only what is new and stop one informer on `remove`: checked on the HTTP
//! requests a real `kube::Client` makes to a mock service.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use kube::Client;
use kube::client::Body;
use kube::core::{DynamicObject, GroupVersionResource};
use kube_informers_runtime::dynamic::{
    DynamicSharedInformerFactory, MetadataObject, MetadataSharedInformerFactory,
};
use kube_informers_runtime::{ResourceEventHandlerFuncs, TweakListParams};
use parking_lot::Mutex;

/// One request the mock saw: method + URI, and its Accept header.
#[derive(Debug, Clone)]
struct Seen {
    uri: String,
    accept: String,
}

/// A client whose lists return one object named after the resource, and whose watches
/// hang until cancelled (so nothing relists in a loop).
fn recording_client() -> (Client, Arc<Mutex<Vec<Seen>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let service = tower::service_fn({
        let seen = seen.clone();
        move |request: http::Request<Body>| {
            let uri = request.uri().to_string();
            let accept = request
                .headers()
                .get(http::header::ACCEPT)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned();
            seen.lock().push(Seen { uri: uri.clone(), accept });
            async move {
                if uri.contains("watch=true") {
                    futures::future::pending::<()>().await;
                }
                let body = r#"{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":"7"},"items":[{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1","namespace":"prod","resourceVersion":"5"}}]}"#;
                Ok::<_, Infallible>(http::Response::new(Body::from(body.as_bytes().to_vec())))
            }
        }
    });
    (Client::new(service, "default"), seen)
}

fn widgets() -> GroupVersionResource {
    GroupVersionResource::gvr("example.com", "v1", "widgets")
}

fn lists_of(seen: &Mutex<Vec<Seen>>, path: &str) -> usize {
    seen.lock().iter().filter(|s| s.uri.starts_with(path) && !s.uri.contains("watch=true")).count()
}

#[tokio::test]
async fn for_resource_shares_one_informer_per_gvr() {
    // client-go: dynamicinformer/informer.go ForResource returns the cached informer
    let (client, seen) = recording_client();
    let factory = DynamicSharedInformerFactory::new(client, Duration::ZERO);
    let first = factory.for_resource(&widgets());
    let second = factory.for_resource(&widgets());
    // A GVR deserialized without its derived apiVersion is the same resource.
    let from_json: GroupVersionResource = serde_json::from_value(
        serde_json::json!({"group": "example.com", "version": "v1", "resource": "widgets"}),
    )
    .expect("gvr");
    let third = factory.for_resource(&from_json);
    first
        .informer()
        .add_event_handler(ResourceEventHandlerFuncs::<DynamicObject>::new())
        .expect("handler");
    assert_eq!(second.informer().handler_count(), 1, "both calls return the same informer");
    assert_eq!(third.informer().handler_count(), 1);
    let gadgets = factory.for_resource(&GroupVersionResource::gvr("example.com", "v1", "gadgets"));
    assert_eq!(gadgets.informer().handler_count(), 0, "another GVR gets its own informer");
    assert_eq!(
        factory.resources(),
        vec![widgets(), GroupVersionResource::gvr("example.com", "v1", "gadgets")]
    );
    assert!(factory.get(&widgets()).is_some());

    factory.start();
    factory.start();
    let synced = factory.wait_for_cache_sync().await;
    assert_eq!(synced.len(), 2);
    assert!(synced.values().all(|ok| *ok));
    assert_eq!(
        lists_of(&seen, "/apis/example.com/v1/widgets"),
        1,
        "one list for two for_resource calls and two starts"
    );
    assert_eq!(
        first.lister().by_namespace("prod").get("w1").map(|w| w.metadata.resource_version.clone()),
        Some(Some("5".into()))
    );
    factory.shutdown().await;
    assert!(first.informer().is_stopped() && gadgets.informer().is_stopped());
}

#[tokio::test]
async fn urls_come_from_the_gvr_and_the_factory_namespace() {
    // client-go: dynamicinformer NewFilteredDynamicInformer lists through
    // client.Resource(gvr).Namespace(namespace) with the tweak applied
    let (client, seen) = recording_client();
    let tweak: TweakListParams = Arc::new(|lp| lp.label_selector = Some("team=a".into()));
    let factory = DynamicSharedInformerFactory::filtered(
        client,
        Duration::ZERO,
        Some("prod".into()),
        Some(tweak),
    );
    assert_eq!(factory.namespace(), Some("prod"));
    let informer = factory.for_resource(&widgets());
    assert_eq!(informer.api_resource().api_version, "example.com/v1");
    assert_eq!(informer.api_resource().plural, "widgets");
    assert!(informer.api_resource().kind.is_empty(), "no discovery, no kind");
    factory.for_resource(&GroupVersionResource::gvr("", "v1", "configmaps"));
    factory.start();
    factory.wait_for_cache_sync().await;
    let uris: Vec<String> = seen.lock().iter().map(|s| s.uri.clone()).collect();
    let widget_list = uris
        .iter()
        .find(|u| u.starts_with("/apis/example.com/v1/namespaces/prod/widgets?"))
        .expect("namespaced widget list");
    assert!(widget_list.contains("labelSelector=team%3Da"), "{widget_list}");
    assert!(
        uris.iter().any(|u| u.starts_with("/api/v1/namespaces/prod/configmaps?")),
        "core group URL: {uris:?}"
    );
    factory.shutdown().await;
}

#[tokio::test]
async fn start_runs_only_informers_created_since_the_last_start() {
    // client-go: dynamicinformer/informer.go Start tracks startedInformers
    let (client, seen) = recording_client();
    let factory = DynamicSharedInformerFactory::new(client, Duration::ZERO);
    let widgets_informer = factory.for_resource(&widgets());
    factory.start();
    assert!(factory.wait_for_cache_sync().await[&widgets()]);
    let late = factory.for_resource(&GroupVersionResource::gvr("example.com", "v1", "gadgets"));
    assert!(!late.informer().is_started(), "created after start: waits for the next start");
    assert_eq!(
        factory.wait_for_cache_sync().await.len(),
        1,
        "only started informers are waited for"
    );
    factory.start();
    assert_eq!(factory.wait_for_cache_sync().await.len(), 2);
    assert_eq!(lists_of(&seen, "/apis/example.com/v1/widgets"), 1);
    assert_eq!(lists_of(&seen, "/apis/example.com/v1/gadgets"), 1);
    assert!(widgets_informer.informer().is_started());
    factory.shutdown().await;
    factory.start();
    let after = factory.for_resource(&GroupVersionResource::gvr("example.com", "v1", "gizmos"));
    factory.start();
    assert!(!after.informer().is_started(), "nothing starts after shutdown");
}

#[tokio::test]
async fn remove_stops_one_informer_and_keeps_the_others() {
    let (client, _seen) = recording_client();
    let factory = DynamicSharedInformerFactory::new(client, Duration::ZERO);
    let removed = factory.for_resource(&widgets());
    let kept = factory.for_resource(&GroupVersionResource::gvr("example.com", "v1", "gadgets"));
    factory.start();
    factory.wait_for_cache_sync().await;
    assert!(factory.remove(&widgets()).await);
    assert!(removed.informer().is_stopped(), "remove returns once the informer has stopped");
    assert!(!kept.informer().is_stopped());
    assert!(!factory.remove(&widgets()).await, "nothing left to remove");
    assert_eq!(
        factory.resources(),
        vec![GroupVersionResource::gvr("example.com", "v1", "gadgets")]
    );
    let synced = factory.wait_for_cache_sync().await;
    assert_eq!(
        synced.keys().collect::<Vec<_>>(),
        vec![&GroupVersionResource::gvr("example.com", "v1", "gadgets")]
    );
    // A later for_resource makes a fresh informer.
    let fresh = factory.for_resource(&widgets());
    assert!(!fresh.informer().is_started());
    factory.start();
    assert!(fresh.informer().wait_for_sync().await);
    factory.shutdown().await;
    assert!(kept.informer().is_stopped() && fresh.informer().is_stopped());
}

#[tokio::test]
async fn transform_runs_before_objects_are_stored() {
    // client-go: SharedIndexInformer.SetTransform, applied to every informer of the factory
    let (client, _seen) = recording_client();
    let factory = DynamicSharedInformerFactory::builder(client)
        .transform(|obj: &mut DynamicObject| {
            obj.metadata
                .labels
                .get_or_insert_with(Default::default)
                .insert("seen".into(), "1".into());
        })
        .transform(|obj: &mut DynamicObject| {
            obj.metadata
                .annotations
                .get_or_insert_with(Default::default)
                .insert("second".into(), "yes".into());
        })
        .build();
    let informer = factory.for_resource(&widgets());
    factory.start();
    factory.wait_for_cache_sync().await;
    let stored = informer.lister().get("prod/w1").expect("stored");
    assert_eq!(
        stored.metadata.labels.as_ref().and_then(|l| l.get("seen")).map(String::as_str),
        Some("1")
    );
    assert_eq!(
        stored.metadata.annotations.as_ref().and_then(|a| a.get("second")).map(String::as_str),
        Some("yes")
    );
    factory.shutdown().await;
}

#[tokio::test]
async fn metadata_factory_asks_for_partial_object_metadata() {
    // client-go: metadatainformer/informer.go lists through the metadata client
    let (client, seen) = recording_client();
    let tweak: TweakListParams = Arc::new(|lp| lp.field_selector = Some("metadata.name=w1".into()));
    let factory =
        MetadataSharedInformerFactory::filtered(client, Duration::ZERO, None, Some(tweak));
    let informer = factory.for_resource(&widgets());
    factory.start();
    assert!(factory.wait_for_cache_sync().await[&widgets()]);
    let stored: Arc<MetadataObject> = informer.lister().get("prod/w1").expect("stored");
    assert_eq!(stored.metadata.resource_version.as_deref(), Some("5"));
    let requests = seen.lock().clone();
    assert!(!requests.is_empty());
    for request in &requests {
        assert!(request.uri.starts_with("/apis/example.com/v1/widgets?"), "{request:?}");
        assert!(
            request.uri.contains("fieldSelector=metadata.name%3Dw1"),
            "tweak applies to list and watch: {request:?}"
        );
        assert!(
            request.accept.contains("as=PartialObjectMetadata"),
            "metadata Accept header: {request:?}"
        );
    }
    factory.shutdown().await;
}
