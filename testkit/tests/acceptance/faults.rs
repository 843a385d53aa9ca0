use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::api::{
    DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams, WatchEvent,
    WatchParams,
};
use kube::core::{ApiResource, GroupVersionKind};
use kube::{Api, ResourceExt};
use kube_informers_testkit::{InjectedFailure, Malformed, TestApiServer};
use serde_json::json;

use crate::{api_code, create_cm, server_with_cms};

fn no_retry_api(server: &TestApiServer) -> Api<ConfigMap> {
    Api::namespaced(server.client_without_retry().expect("client"), "default")
}

#[tokio::test]
async fn drop_watches_now_ends_every_stream() {
    let (server, api) = server_with_cms().await;
    create_cm(&api, "a", &[]).await;
    let wp = WatchParams::default().disable_bookmarks();
    let mut first = api.watch(&wp, "0").await.expect("watch").boxed();
    let mut second = api.watch(&wp, "0").await.expect("watch").boxed();
    assert!(matches!(first.next().await, Some(Ok(WatchEvent::Added(_)))));
    assert!(matches!(second.next().await, Some(Ok(WatchEvent::Added(_)))));
    server.faults().drop_watches();
    assert!(first.next().await.is_none());
    assert!(second.next().await.is_none());
    // New watches work again.
    let mut third = api.watch(&wp, "0").await.expect("watch").boxed();
    assert!(matches!(third.next().await, Some(Ok(WatchEvent::Added(_)))));
    server.shutdown().await;
}

#[tokio::test]
async fn drop_watches_after_n_events() {
    let (server, api) = server_with_cms().await;
    for name in ["a", "b", "c", "d"] {
        create_cm(&api, name, &[]).await;
    }
    server.faults().drop_watches_after(2);
    let wp = WatchParams::default().disable_bookmarks();
    let events: Vec<_> = api.watch(&wp, "0").await.expect("watch").collect().await;
    assert_eq!(events.len(), 2, "the watch ends after two events");
    let events: Vec<_> = api.watch(&wp.timeout(1), "0").await.expect("watch").collect().await;
    assert_eq!(events.len(), 4, "the drop is one-shot");
    server.shutdown().await;
}

#[tokio::test]
async fn fail_next_answers_matching_requests_then_recovers() {
    let (server, api) = server_with_cms().await;
    let api_no_retry = no_retry_api(&server);
    server.fail_next("list", "configmaps", 2, 500);
    server.fail_next("get", "pods", 1, InjectedFailure::forbidden());
    assert_eq!(
        api_code(api_no_retry.list(&ListParams::default()).await),
        (500, "InternalError".into())
    );
    assert_eq!(api_code(api.list(&ListParams::default()).await).0, 500, "kube does not retry 500");
    assert!(api.list(&ListParams::default()).await.is_ok());
    assert_eq!(server.request_count("list", "configmaps"), 3);

    let pods: Api<Pod> = Api::namespaced(server.client().expect("client"), "default");
    assert_eq!(api_code(pods.get("x").await), (403, "Forbidden".into()));
    assert_eq!(api_code(pods.get("x").await).0, 404);
    server.shutdown().await;
}

#[tokio::test]
async fn too_many_requests_carries_retry_after() {
    let (server, api) = server_with_cms().await;
    server.fail_next(
        "create",
        "configmaps",
        1,
        InjectedFailure::too_many_requests(Duration::from_secs(1)),
    );
    let result =
        no_retry_api(&server).create(&PostParams::default(), &crate::config_map("a", &[])).await;
    match result {
        Err(kube::Error::Api(status)) => {
            assert_eq!(status.code, 429);
            assert_eq!(status.details.as_ref().map(|d| d.retry_after_seconds), Some(1));
        }
        other => panic!("expected 429, got {other:?}"),
    }
    // kube's default client honours Retry-After and retries by itself.
    server.fail_next("create", "configmaps", 1, 429);
    create_cm(&api, "b", &[]).await;
    assert_eq!(server.request_count("create", "configmaps"), 3);
    server.shutdown().await;
}

#[tokio::test]
async fn deny_list_forbids_a_resource_until_allowed() {
    let (server, api) = server_with_cms().await;
    server.deny("configmaps");
    let (code, reason) = api_code(api.list(&ListParams::default()).await);
    assert_eq!((code, reason.as_str()), (403, "Forbidden"));
    assert_eq!(api_code(api.watch(&WatchParams::default(), "0").await.map(|_| ())).0, 403);
    let pods: Api<Pod> = Api::namespaced(server.client().expect("client"), "default");
    assert!(pods.list(&ListParams::default()).await.is_ok(), "other resources are unaffected");
    server.allow("configmaps");
    assert!(api.list(&ListParams::default()).await.is_ok());
    server.shutdown().await;
}

#[tokio::test]
async fn latency_delays_requests() {
    let (server, api) = server_with_cms().await;
    server.faults().set_latency(Some(Duration::from_secs(30)));
    let slow =
        tokio::time::timeout(Duration::from_millis(100), api.list(&ListParams::default())).await;
    assert!(slow.is_err(), "a 30 s latency cannot answer within 100 ms");
    server.faults().set_latency(None);
    assert!(api.list(&ListParams::default()).await.is_ok());
    server.shutdown().await;
}

#[tokio::test]
async fn malformed_objects_in_lists() {
    let (server, api) = server_with_cms().await;
    create_cm(&api, "good", &[]).await;
    server.faults().malformed_in_next_list("configmaps", Malformed::WrongType);
    let err = api.list(&ListParams::default()).await.expect_err("typed decode fails");
    assert!(matches!(err, kube::Error::SerdeError(_)), "{err:?}");
    assert_eq!(api.list(&ListParams::default()).await.expect("one-shot").items.len(), 1);

    let ar = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("", "v1", "ConfigMap"),
        "configmaps",
    );
    let dynamic: Api<DynamicObject> =
        Api::namespaced_with(server.client().expect("client"), "default", &ar);
    server.faults().malformed_in_next_list("configmaps", Malformed::WrongType);
    assert!(matches!(dynamic.list(&ListParams::default()).await, Err(kube::Error::SerdeError(_))));

    server.faults().malformed_in_next_list("configmaps", Malformed::InvalidJson);
    assert!(api.list(&ListParams::default()).await.is_err());
    assert!(api.list(&ListParams::default()).await.is_ok());
    server.shutdown().await;
}

#[tokio::test]
async fn malformed_objects_in_watches() {
    let (server, api) = server_with_cms().await;
    let mut stream =
        api.watch(&WatchParams::default().disable_bookmarks(), "0").await.expect("watch").boxed();
    // Make sure the watch is registered before injecting.
    create_cm(&api, "first", &[]).await;
    assert!(matches!(stream.next().await, Some(Ok(WatchEvent::Added(_)))));
    assert_eq!(server.faults().malformed_in_watch("configmaps", Malformed::WrongType), 1);
    let bad = stream.next().await.expect("an item");
    assert!(bad.is_err(), "the malformed event fails to decode");
    create_cm(&api, "after", &[]).await;
    match stream.next().await {
        Some(Ok(WatchEvent::Added(cm))) => assert_eq!(cm.name_any(), "after"),
        other => panic!("stream continues after a bad event: {other:?}"),
    }
    assert_eq!(server.faults().malformed_in_watch("configmaps", Malformed::InvalidJson), 1);
    assert!(stream.next().await.expect("an item").is_err());
    server.shutdown().await;
}

#[tokio::test]
async fn restart_drops_connections_and_keeps_state() {
    let (server, api) = server_with_cms().await;
    let before = create_cm(&api, "kept", &[]).await;
    let mut stream =
        api.watch(&WatchParams::default().disable_bookmarks(), "0").await.expect("watch").boxed();
    assert!(matches!(stream.next().await, Some(Ok(WatchEvent::Added(_)))));
    let addr = server.addr();
    server.restart().await.expect("restart");
    assert_eq!(server.addr(), addr);
    assert!(stream.next().await.is_none(), "open watches are cut");
    let kept = api.get("kept").await.expect("state survives, same port");
    assert_eq!(kept.metadata.uid, before.metadata.uid);
    let after = create_cm(&api, "new", &[]).await;
    let rv =
        |cm: &ConfigMap| cm.resource_version().and_then(|r| r.parse::<u64>().ok()).expect("rv");
    assert!(rv(&after) > rv(&before), "the resourceVersion continues");
    server.shutdown().await;
}

#[tokio::test]
async fn request_counts_by_verb_and_resource() {
    let (server, api) = server_with_cms().await;
    create_cm(&api, "a", &[]).await;
    api.get("a").await.expect("get");
    api.replace("a", &PostParams::default(), &api.get("a").await.expect("get"))
        .await
        .expect("update");
    api.patch("a", &PatchParams::default(), &Patch::Merge(json!({"data": {"x": "y"}})))
        .await
        .expect("patch");
    let _ = api.watch(&WatchParams::default().timeout(1), "0").await.expect("watch");
    api.list(&ListParams::default()).await.expect("list");
    api.delete("a", &DeleteParams::default()).await.expect("delete");
    for (verb, n) in [
        ("create", 1),
        ("get", 2),
        ("update", 1),
        ("patch", 1),
        ("watch", 1),
        ("list", 1),
        ("delete", 1),
    ] {
        assert_eq!(server.request_count(verb, "configmaps"), n, "{verb}");
    }
    assert_eq!(server.request_count("list", "pods"), 0);
    assert_eq!(server.request_count("*", "configmaps"), 8);
    server.faults().reset_request_counts();
    assert_eq!(server.request_count("get", "configmaps"), 0);
    server.shutdown().await;
}

#[tokio::test]
async fn bearer_token_is_required_when_configured() {
    let server = TestApiServer::builder().bearer_token("s3cret").start().await.expect("start");
    let api: Api<ConfigMap> = Api::namespaced(server.client().expect("client"), "default");
    assert!(api.list(&ListParams::default()).await.is_ok());
    let anonymous = kube::Client::try_from(kube::Config::new(server.url().parse().expect("uri")))
        .expect("client");
    let anonymous: Api<ConfigMap> = Api::namespaced(anonymous, "default");
    assert_eq!(api_code(anonymous.list(&ListParams::default()).await).0, 401);
    server.shutdown().await;
}
