use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::api::{
    DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams, WatchEvent,
    WatchParams,
};
use kube::client::Body;
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

/// Reads a raw watch body until it ends; returns the bytes and whether it ended with an
/// error (an aborted connection) rather than cleanly.
async fn read_raw_watch(server: &TestApiServer, path: &str) -> (Vec<u8>, bool) {
    use futures::AsyncReadExt;
    let request = http::Request::get(path).body(Vec::new()).expect("request");
    let mut body = server.client().expect("client").request_stream(request).await.expect("watch");
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match tokio::time::timeout(Duration::from_secs(10), body.read(&mut chunk))
            .await
            .expect("the watch ends in time")
        {
            Ok(0) => return (bytes, false),
            Ok(n) => bytes.extend_from_slice(&chunk[..n]),
            Err(_) => return (bytes, true),
        }
    }
}

#[tokio::test]
async fn truncate_next_watch_event_cuts_a_line_then_aborts_the_connection() {
    let (server, api) = server_with_cms().await;
    create_cm(&api, "a", &[]).await;
    server.faults().truncate_next_watch_event("configmaps");
    assert_eq!(server.faults().pending_truncations(), 1);
    let (bytes, aborted) =
        read_raw_watch(&server, "/api/v1/namespaces/default/configmaps?watch=true").await;
    assert_eq!(server.faults().pending_truncations(), 0);
    assert!(aborted, "the connection is aborted, not ended cleanly");
    assert!(!bytes.is_empty(), "half an event went out");
    assert!(!bytes.contains(&b'\n'), "no complete line: {:?}", String::from_utf8_lossy(&bytes));
    assert!(bytes.starts_with(b"{\"type\":\"ADDED\""));
    let err = serde_json::from_slice::<serde_json::Value>(&bytes).expect_err("partial JSON");
    assert!(err.is_eof(), "the JSON stops in the middle: {err}");

    // One-shot: the next watch gets the whole event. kube's decoder ends a cut stream
    // without an error (it drops the partial line).
    let wp = WatchParams::default().disable_bookmarks().timeout(1);
    let events: Vec<_> = api.watch(&wp, "0").await.expect("watch").collect().await;
    assert_eq!(events.len(), 1);
    assert!(matches!(&events[0], Ok(WatchEvent::Added(cm)) if cm.name_any() == "a"));

    // Through kube: the stream just ends, without an error and without the cut event
    // (its decoder treats an aborted chunked body as a resumable end of stream).
    server.faults().truncate_next_watch_event("configmaps");
    let mut stream = api.watch(&wp, "0").await.expect("watch").boxed();
    assert!(stream.next().await.is_none(), "the cut event is not delivered");
    server.shutdown().await;
}

#[tokio::test]
async fn truncation_waits_for_an_object_event_of_its_resource() {
    let (server, api) = server_with_cms().await;
    let pods: Api<Pod> = Api::namespaced(server.client().expect("client"), "default");
    server.faults().truncate_next_watch_event("configmaps");
    // Events of another resource are untouched.
    let mut pod_watch = pods.watch(&WatchParams::default(), "0").await.expect("watch").boxed();
    let mut pod = Pod::default();
    pod.metadata.name = Some("p".into());
    pods.create(&PostParams::default(), &pod).await.expect("create pod");
    loop {
        match pod_watch.next().await {
            Some(Ok(WatchEvent::Bookmark(_))) => continue,
            Some(Ok(WatchEvent::Added(p))) => break assert_eq!(p.name_any(), "p"),
            other => panic!("the pod event arrives whole: {other:?}"),
        }
    }
    // So are bookmarks of the resource.
    let rv = api.list(&ListParams::default()).await.expect("list").metadata.resource_version;
    let wp = WatchParams::default().timeout(1);
    let events: Vec<_> = api.watch(&wp, &rv.expect("rv")).await.expect("watch").collect().await;
    assert!(!events.is_empty());
    assert!(events.iter().all(|e| matches!(e, Ok(WatchEvent::Bookmark(_)))), "{events:?}");
    // The pending cut hits the first configmap event.
    create_cm(&api, "b", &[]).await;
    let (bytes, aborted) =
        read_raw_watch(&server, "/api/v1/namespaces/default/configmaps?watch=true").await;
    assert!(aborted);
    assert!(bytes.starts_with(b"{\"type\":\"ADDED\"") && !bytes.contains(&b'\n'));
    server.shutdown().await;
}

#[tokio::test]
async fn nameless_objects_in_lists_and_watches() {
    let (server, api) = server_with_cms().await;
    create_cm(&api, "named", &[]).await;
    server.faults().nameless_in_next_list("configmaps");
    let all: Api<ConfigMap> = Api::all(server.client().expect("client"));
    let listed = all.list(&ListParams::default()).await.expect("a nameless object decodes");
    let names: Vec<Option<String>> =
        listed.items.iter().map(|cm| cm.metadata.name.clone()).collect();
    assert_eq!(names, [Some("named".to_string()), None]);
    let nameless = &listed.items[1];
    assert_eq!(nameless.metadata.namespace.as_deref(), Some("default"));
    assert!(nameless.metadata.resource_version.is_some());
    assert_eq!(all.list(&ListParams::default()).await.expect("one-shot").items.len(), 1);

    let mut stream =
        api.watch(&WatchParams::default().disable_bookmarks(), "0").await.expect("watch").boxed();
    assert!(matches!(stream.next().await, Some(Ok(WatchEvent::Added(_)))));
    assert_eq!(server.faults().nameless_in_watch("configmaps"), 1);
    match stream.next().await {
        Some(Ok(WatchEvent::Added(cm))) => {
            assert_eq!(cm.metadata.name, None);
            assert_eq!(cm.metadata.namespace.as_deref(), Some("default"));
        }
        other => panic!("expected a nameless ADDED, got {other:?}"),
    }
    assert_eq!(server.object_count("configmaps"), 1, "nothing nameless is stored");
    server.shutdown().await;
}

#[tokio::test]
async fn fail_next_with_body_answers_a_non_status_body() {
    let (server, api) = server_with_cms().await;
    let html = "<html><body><h1>502 Bad Gateway</h1></body></html>";
    server.faults().fail_next_with_body("list", "configmaps", 1, 502, "text/html", html);
    let request =
        http::Request::get("/api/v1/namespaces/default/configmaps").body(Body::empty()).unwrap();
    let response = server.client().expect("client").send(request).await.expect("an answer");
    assert_eq!(response.status(), 502);
    assert_eq!(response.headers()[http::header::CONTENT_TYPE], "text/html");
    let body = response.into_body().collect_bytes().await.expect("body");
    assert_eq!(body, html.as_bytes());
    assert!(api.list(&ListParams::default()).await.is_ok(), "one-shot");

    // kube keeps the HTTP code of a body that is not JSON ...
    server.faults().fail_next_with_body("list", "configmaps", 1, 502, "text/html", html);
    match no_retry_api(&server).list(&ListParams::default()).await {
        Err(kube::Error::Api(status)) => {
            assert_eq!(status.code, 502);
            assert!(status.message.contains("502 Bad Gateway"), "{status:?}");
        }
        other => panic!("expected an API error, got {other:?}"),
    }
    server.faults().fail_next_with_body(
        "watch",
        "configmaps",
        1,
        503,
        "text/plain",
        "no healthy upstream",
    );
    match no_retry_api(&server).watch(&WatchParams::default(), "0").await.map(|_| ()) {
        Err(kube::Error::Api(status)) => {
            assert_eq!(status.code, 503);
            assert_eq!(status.message, "no healthy upstream");
        }
        other => panic!("expected an API error, got {other:?}"),
    }
    // ... but parses any JSON object as a Status with every field defaulted, so a 500 with
    // a JSON body that is not a Status reaches the caller as a Status with code 0.
    server.faults().fail_next_with_body(
        "list",
        "configmaps",
        1,
        500,
        "application/json",
        r#"{"error":"boom"}"#,
    );
    match api.list(&ListParams::default()).await {
        Err(kube::Error::Api(status)) => {
            assert_eq!((status.code, status.message.as_str()), (0, ""))
        }
        other => panic!("expected an API error, got {other:?}"),
    }
    assert_eq!(server.request_count("list", "configmaps"), 4);
    server.shutdown().await;
}

#[tokio::test]
async fn hang_next_leaves_requests_unanswered_until_a_restart() {
    let (server, api) = server_with_cms().await;
    create_cm(&api, "a", &[]).await;
    server.faults().hang_next("list", "configmaps", 1);
    let hung = tokio::spawn({
        let api = api.clone();
        async move { api.list(&ListParams::default()).await }
    });
    // No answer, no error, no end while the server runs...
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!hung.is_finished(), "the hung request got an answer");
    // ...while the next request (on another connection) is served.
    assert_eq!(api.list(&ListParams::default()).await.expect("list").items.len(), 1);
    assert_eq!(server.request_count("list", "configmaps"), 2);
    // A restart drops the connection, and the hung request fails.
    server.restart().await.expect("restart");
    let outcome = tokio::time::timeout(Duration::from_secs(5), hung).await.expect("ended");
    assert!(outcome.expect("join").is_err(), "a dropped connection is an error");
    server.shutdown().await;
}

#[tokio::test]
async fn hang_next_mid_body_sends_the_head_and_half_the_body_then_nothing() {
    use http_body_util::BodyExt;
    let (server, api) = server_with_cms().await;
    for name in ["a", "b", "c"] {
        create_cm(&api, name, &[]).await;
    }
    let list =
        || http::Request::get("/api/v1/namespaces/default/configmaps").body(Body::empty()).unwrap();
    let client = server.client().expect("client");
    let whole = client.send(list()).await.expect("list").into_body().collect_bytes().await;
    let whole = whole.expect("the whole list");

    server.faults().hang_next_mid_body("list", "configmaps", 1);
    let response = client.send(list()).await.expect("the head arrives");
    assert_eq!(response.status(), 200);
    let mut body = response.into_body();
    let mut received = Vec::new();
    // The first half arrives, then nothing: no more data, no error, no end.
    while let Ok(frame) = tokio::time::timeout(Duration::from_millis(300), body.frame()).await {
        let frame = frame.expect("the body goes on").expect("no error");
        received.extend_from_slice(&frame.into_data().expect("data"));
    }
    assert_eq!(received, whole[..whole.len().div_ceil(2)], "half the list, cut among its items");
    assert_eq!(api.list(&ListParams::default()).await.expect("list").items.len(), 3, "one-shot");
    assert_eq!(server.request_count("list", "configmaps"), 3);
    // A restart drops the connection: the rest of the body never comes.
    server.restart().await.expect("restart");
    let end = tokio::time::timeout(Duration::from_secs(5), body.frame()).await.expect("ended");
    assert!(!matches!(end, Some(Ok(_))), "no more data after the cut: {end:?}");
    server.shutdown().await;
}

#[tokio::test]
async fn error_event_in_watch_reaches_every_open_watch_mid_stream() {
    let (server, api) = server_with_cms().await;
    create_cm(&api, "a", &[]).await;
    let wp = WatchParams::default().disable_bookmarks();
    let mut stream = api.watch(&wp, "0").await.expect("watch").boxed();
    assert!(matches!(stream.next().await, Some(Ok(WatchEvent::Added(_)))));
    let sent =
        server.faults().error_event_in_watch("configmaps", InjectedFailure::internal_error());
    assert_eq!(sent, 1);
    match stream.next().await {
        Some(Ok(WatchEvent::Error(status))) => assert_eq!(status.code, 500),
        other => panic!("expected an ERROR event, got {other:?}"),
    }
    // The stream stays open: the next change still arrives on it.
    create_cm(&api, "b", &[]).await;
    assert!(matches!(stream.next().await, Some(Ok(WatchEvent::Added(cm))) if cm.name_any() == "b"));
    assert_eq!(
        server.faults().error_event_in_watch("nosuchthings", InjectedFailure::forbidden()),
        0
    );
    server.shutdown().await;
}

#[tokio::test]
async fn drop_next_initial_events_end_leaves_one_streaming_list_without_its_bookmark() {
    let (server, api) = server_with_cms().await;
    create_cm(&api, "a", &[]).await;
    let streaming = WatchParams::streaming_lists().timeout(1);
    let is_end = |event: &WatchEvent<ConfigMap>| {
        matches!(event, WatchEvent::Bookmark(b)
            if b.metadata.annotations.get("k8s.io/initial-events-end").is_some_and(|v| v == "true"))
    };
    server.faults().drop_next_initial_events_end("configmaps");
    let events: Vec<_> = api.watch(&streaming, "").await.expect("watch").collect().await;
    assert!(events.iter().any(|e| matches!(e, Ok(WatchEvent::Added(_)))), "{events:?}");
    assert!(!events.iter().any(|e| e.as_ref().is_ok_and(is_end)), "{events:?}");
    // One-shot: the next streaming list ends its initial events again.
    let events: Vec<_> = api.watch(&streaming, "").await.expect("watch").collect().await;
    assert!(events.iter().any(|e| e.as_ref().is_ok_and(is_end)), "{events:?}");
    server.shutdown().await;
}
