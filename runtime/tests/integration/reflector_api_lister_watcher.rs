//! `ApiListerWatcher` sends the requests client-go's `NewFilteredListWatchFromClient`
//! would: checked on the HTTP requests a real `kube::Client` makes to a mock service.

use std::{convert::Infallible, sync::Arc};

use futures::StreamExt;
use k8s_openapi::api::core::v1::Pod;
use kube::{
    Api, Client,
    api::{ApiResource, DynamicObject, GroupVersionKind, ListParams, WatchParams},
    client::Body,
    core::WatchEvent,
};
use kube_informers_runtime::listwatch::{ApiListerWatcher, ListerWatcher, TweakListParams};
use parking_lot::Mutex;

/// A client whose every request is recorded (path and query) and answered with a
/// one-pod list, or a watch stream with one `ADDED` event and a bookmark.
fn recording_client() -> (Client, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let service = tower::service_fn({
        let seen = seen.clone();
        move |request: http::Request<Body>| {
            let uri = request.uri().to_string();
            seen.lock().push(uri.clone());
            let pod = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-1","namespace":"prod","resourceVersion":"41"}}"#;
            let body = if uri.contains("watch=true") {
                format!(
                    "{{\"type\":\"ADDED\",\"object\":{pod}}}\n\
                     {{\"type\":\"BOOKMARK\",\"object\":{{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{{\"resourceVersion\":\"42\"}}}}}}\n"
                )
            } else {
                format!(
                    r#"{{"apiVersion":"v1","kind":"PodList","metadata":{{"resourceVersion":"40","continue":"next"}},"items":[{pod}]}}"#
                )
            };
            async move { Ok::<_, Infallible>(http::Response::new(Body::from(body.into_bytes()))) }
        }
    });
    (Client::new(service, "default"), seen)
}

fn selectors() -> TweakListParams {
    Arc::new(|lp: &mut ListParams| {
        lp.label_selector = Some("app=web".into());
        lp.field_selector = Some("spec.nodeName=n1".into());
    })
}

fn query(uri: &str) -> Vec<String> {
    let mut pairs: Vec<String> = uri
        .split_once('?')
        .map(|(_, q)| q.split('&').filter(|pair| !pair.is_empty()).map(str::to_owned).collect())
        .unwrap_or_default();
    pairs.sort();
    pairs
}

#[tokio::test]
async fn tweak_applies_to_list_and_watch() {
    // client-go: tools/cache/listwatch.go NewFilteredListWatchFromClient
    let (client, seen) = recording_client();
    let lw = ApiListerWatcher::new(Api::<Pod>::namespaced(client, "prod")).with_tweak(selectors());

    // First list page: resourceVersion=0, limit dropped so the watch cache serves it.
    let list = lw.list(&ListParams::default().match_any().limit(500)).await.expect("list");
    assert_eq!(list.items[0].metadata.name.as_deref(), Some("web-1"));
    assert_eq!(list.metadata.continue_.as_deref(), Some("next"));
    // A consistent paginated list and a continue page keep the limit.
    lw.list(&ListParams::default().limit(500)).await.expect("list");
    lw.list(&ListParams::default().limit(500).continue_token("next")).await.expect("list");

    let watch = WatchParams { timeout: Some(300), ..WatchParams::default() };
    let events: Vec<_> = lw.watch(&watch, "40").await.expect("watch").collect().await;
    assert!(
        matches!(&events[0], Ok(WatchEvent::Added(p)) if p.metadata.name.as_deref() == Some("web-1"))
    );
    assert!(
        matches!(&events[1], Ok(WatchEvent::Bookmark(b)) if b.metadata.resource_version == "42")
    );
    let _stream = lw.watch(&WatchParams::streaming_lists(), "").await.expect("streaming watch");

    let seen = seen.lock().clone();
    assert_eq!(seen.len(), 5);
    for uri in &seen {
        assert!(uri.starts_with("/api/v1/namespaces/prod/pods?"), "{uri}");
    }
    let selectors = ["fieldSelector=spec.nodeName%3Dn1", "labelSelector=app%3Dweb"];
    let expect = |extra: &[&str]| {
        let mut all: Vec<String> = selectors.iter().chain(extra).map(|s| s.to_string()).collect();
        all.sort();
        all
    };
    assert_eq!(
        query(&seen[0]),
        expect(&["resourceVersion=0", "resourceVersionMatch=NotOlderThan"])
    );
    assert_eq!(query(&seen[1]), expect(&["limit=500"]));
    assert_eq!(query(&seen[2]), expect(&["limit=500", "continue=next"]));
    assert_eq!(
        query(&seen[3]),
        expect(&[
            "watch=true",
            "timeoutSeconds=300",
            "allowWatchBookmarks=true",
            "resourceVersion=40"
        ])
    );
    assert_eq!(
        query(&seen[4]),
        expect(&[
            "watch=true",
            "timeoutSeconds=290",
            "allowWatchBookmarks=true",
            "sendInitialEvents=true",
            "resourceVersionMatch=NotOlderThan",
            "resourceVersion="
        ])
    );
}

#[tokio::test]
async fn without_tweak_requests_are_unfiltered() {
    let (client, seen) = recording_client();
    let lw = ApiListerWatcher::new(Api::<Pod>::all(client));
    lw.list(&ListParams::default().at("40")).await.expect("list");
    let watch = WatchParams::default().labels("kept=yes");
    let _stream = lw.watch(&watch, "40").await.expect("watch");
    let seen = seen.lock().clone();
    assert_eq!(query(&seen[0]), ["resourceVersion=40"]);
    assert!(seen[0].starts_with("/api/v1/pods?"));
    // The reflector's own watch selectors are kept when there is no tweak.
    assert!(query(&seen[1]).contains(&"labelSelector=kept%3Dyes".to_owned()));
}

#[tokio::test]
async fn tweak_selectors_override_watch_selectors() {
    let (client, _) = recording_client();
    let lw = ApiListerWatcher::new(Api::<Pod>::all(client)).with_tweak(selectors());
    let watch = lw.watch_params(&WatchParams::default().labels("ignored=1").timeout(7));
    assert_eq!(watch.label_selector.as_deref(), Some("app=web"));
    assert_eq!(watch.field_selector.as_deref(), Some("spec.nodeName=n1"));
    assert_eq!(watch.timeout, Some(7));
    assert!(watch.bookmarks);
    let list = lw.list_params(&ListParams::default().match_any().limit(500).continue_token("c"));
    assert_eq!(list.limit, Some(500), "continue pages keep their limit");
}

#[tokio::test]
async fn works_for_dynamic_objects() {
    let (client, seen) = recording_client();
    let resource = ApiResource::from_gvk(&GroupVersionKind::gvk("", "v1", "Pod"));
    let api = Api::<DynamicObject>::namespaced_with(client, "prod", &resource);
    let lw: Arc<dyn ListerWatcher<DynamicObject>> =
        Arc::new(ApiListerWatcher::new(api).with_tweak(selectors()));
    let list = lw.list(&ListParams::default()).await.expect("list");
    assert_eq!(list.items[0].metadata.name.as_deref(), Some("web-1"));
    let events: Vec<_> =
        lw.watch(&WatchParams::default(), "40").await.expect("watch").collect().await;
    assert!(
        matches!(&events[0], Ok(WatchEvent::Added(o)) if o.metadata.resource_version.as_deref() == Some("41"))
    );
    let seen = seen.lock().clone();
    assert!(seen[1].contains("labelSelector=app%3Dweb"), "{}", seen[1]);
}
