use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{ListParams, WatchEvent, WatchParams};
use kube::client::Body;
use kube::{Api, ResourceExt};
use kube_informers_testkit::{TOUCH_ANNOTATION, TestApiServer};

use crate::server_with_cms;

fn rv(cm: &ConfigMap) -> u64 {
    cm.resource_version().and_then(|rv| rv.parse().ok()).expect("numeric rv")
}

#[tokio::test]
async fn bulk_touch_sends_one_modified_event_per_update_with_increasing_rvs() {
    let (server, api) = server_with_cms().await;
    server.seed().config_maps("default", 5).expect("seed");
    server.seed().config_maps("other", 3).expect("seed");
    let start = server.resource_version();
    let mut stream = api
        .watch(&WatchParams::default().disable_bookmarks(), &start.to_string())
        .await
        .expect("watch")
        .boxed();

    let report = server.bulk_touch("configmaps", Some("default"), 12).expect("bulk");
    assert_eq!((report.updated, report.objects), (12, 5));
    assert_eq!(report.first_resource_version, start + 1);
    assert_eq!(report.last_resource_version, start + 12);
    assert_eq!(server.resource_version(), start + 12);

    let mut previous = start;
    let mut names = Vec::new();
    for _ in 0..12 {
        match stream.next().await {
            Some(Ok(WatchEvent::Modified(cm))) => {
                assert!(rv(&cm) > previous, "resourceVersions increase");
                previous = rv(&cm);
                assert_eq!(cm.annotations()[TOUCH_ANNOTATION], previous.to_string());
                assert_eq!(cm.namespace().as_deref(), Some("default"));
                names.push(cm.name_any());
            }
            other => panic!("expected MODIFIED, got {other:?}"),
        }
    }
    assert_eq!(previous, report.last_resource_version);
    // Round-robin in key order: every object is touched, the first ones twice more.
    assert_eq!(names[..5], names[5..10]);
    assert_eq!(names[..2], names[10..]);

    // Stored state matches, and the other namespace is untouched.
    let other: Api<ConfigMap> = Api::namespaced(server.client().expect("client"), "other");
    let untouched = other.list(&ListParams::default()).await.expect("list");
    assert!(untouched.items.iter().all(|cm| !cm.annotations().contains_key(TOUCH_ANNOTATION)));
    let touched = api.list(&ListParams::default()).await.expect("list");
    assert!(touched.items.iter().all(|cm| cm.annotations().contains_key(TOUCH_ANNOTATION)));

    // All namespaces; nothing to touch; unknown resource.
    assert_eq!(server.bulk_touch("configmaps", None, 8).expect("bulk").objects, 8);
    let none = server.bulk_touch("configmaps", Some("empty"), 10).expect("bulk");
    assert_eq!((none.updated, none.objects, none.last_resource_version), (0, 0, 0));
    assert!(server.bulk_touch("widgets", None, 1).is_err());
    server.shutdown().await;
}

#[tokio::test]
async fn bulk_update_admin_route_needs_post_and_the_token() {
    let server = TestApiServer::builder().bearer_token("s3cret").start().await.expect("start");
    server.seed().config_maps("default", 4).expect("seed");
    let start = server.resource_version();
    let client = server.client().expect("client");
    let post = |uri: &str| http::Request::post(uri).body(Body::empty()).expect("request");

    let response = client
        .send(post("/testkit/bulk-update?resource=configmaps&namespace=default&count=10"))
        .await
        .expect("answer");
    assert_eq!(response.status(), 200);
    let body: serde_json::Value =
        serde_json::from_slice(&response.into_body().collect_bytes().await.expect("body"))
            .expect("json");
    assert_eq!(body["updated"], 10);
    assert_eq!(body["objects"], 4);
    assert_eq!(body["firstResourceVersion"], (start + 1).to_string());
    assert_eq!(body["lastResourceVersion"], (start + 10).to_string());
    assert_eq!(server.resource_version(), start + 10);

    let status = |uri: &'static str, method: http::Method, client: kube::Client| async move {
        let request = http::Request::builder().method(method).uri(uri).body(Body::empty());
        client.send(request.expect("request")).await.expect("answer").status().as_u16()
    };
    let uri = "/testkit/bulk-update?resource=configmaps&count=1";
    assert_eq!(status(uri, http::Method::GET, client.clone()).await, 405);
    let no_count = "/testkit/bulk-update?resource=configmaps";
    assert_eq!(status(no_count, http::Method::POST, client.clone()).await, 400);
    let unknown = "/testkit/bulk-update?resource=widgets&count=1";
    assert_eq!(status(unknown, http::Method::POST, client.clone()).await, 400);
    let anonymous = kube::Client::try_from(kube::Config::new(server.url().parse().expect("uri")))
        .expect("client");
    assert_eq!(status(uri, http::Method::POST, anonymous).await, 401);
    assert_eq!(server.resource_version(), start + 10, "refused requests change nothing");
    server.shutdown().await;
}
