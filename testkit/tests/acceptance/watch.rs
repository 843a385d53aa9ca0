use std::time::Duration;

use futures::{Stream, StreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{DeleteParams, Patch, PatchParams, WatchEvent, WatchParams};
use kube::{Api, ResourceExt};
use serde_json::json;

use crate::{create_cm, server_with_cms};

/// A compact view of an event for assertions.
fn describe(event: &WatchEvent<ConfigMap>) -> String {
    match event {
        WatchEvent::Added(o) => format!("ADDED {}", o.name_any()),
        WatchEvent::Modified(o) => format!("MODIFIED {}", o.name_any()),
        WatchEvent::Deleted(o) => format!("DELETED {}", o.name_any()),
        WatchEvent::Bookmark(b) => format!("BOOKMARK {}", b.metadata.resource_version),
        WatchEvent::Error(s) => format!("ERROR {}", s.code),
    }
}

/// The next `n` non-bookmark events.
async fn next_events<S>(stream: &mut S, n: usize) -> Vec<String>
where
    S: Stream<Item = kube::Result<WatchEvent<ConfigMap>>> + Unpin,
{
    let mut out = Vec::new();
    while out.len() < n {
        let event = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("event in time")
            .expect("stream open")
            .expect("valid event");
        if !matches!(event, WatchEvent::Bookmark(_)) {
            out.push(describe(&event));
        }
    }
    out
}

fn no_bookmarks() -> WatchParams {
    WatchParams::default().disable_bookmarks()
}

#[tokio::test]
async fn watch_resumes_after_a_resource_version() {
    let (server, api) = server_with_cms().await;
    create_cm(&api, "a", &[]).await;
    let b = create_cm(&api, "b", &[]).await;
    let resume_at = b.resource_version().expect("rv");
    create_cm(&api, "c", &[]).await;
    api.patch("a", &PatchParams::default(), &Patch::Merge(json!({"data": {"k": "v"}})))
        .await
        .expect("patch");
    api.delete("b", &DeleteParams::default()).await.expect("delete");

    let mut stream = api.watch(&no_bookmarks(), &resume_at).await.expect("watch").boxed();
    assert_eq!(next_events(&mut stream, 3).await, ["ADDED c", "MODIFIED a", "DELETED b"]);
    create_cm(&api, "d", &[]).await;
    assert_eq!(next_events(&mut stream, 1).await, ["ADDED d"]);
    server.shutdown().await;
}

#[tokio::test]
async fn watch_from_zero_replays_current_state_then_follows() {
    let (server, api) = server_with_cms().await;
    create_cm(&api, "a", &[]).await;
    create_cm(&api, "b", &[]).await;
    api.delete("a", &DeleteParams::default()).await.expect("delete");
    let mut stream = api.watch(&no_bookmarks(), "0").await.expect("watch").boxed();
    assert_eq!(next_events(&mut stream, 1).await, ["ADDED b"]);
    create_cm(&api, "c", &[]).await;
    assert_eq!(next_events(&mut stream, 1).await, ["ADDED c"]);
    server.shutdown().await;
}

#[tokio::test]
async fn bookmarks_arrive_periodically_and_are_current() {
    let (server, api) = server_with_cms().await;
    let created = create_cm(&api, "a", &[]).await;
    let rv: u64 = created.resource_version().expect("rv").parse().expect("numeric");
    let mut stream =
        api.watch(&WatchParams::default(), &rv.to_string()).await.expect("watch").boxed();
    let mut bookmarks = Vec::new();
    while bookmarks.len() < 2 {
        match stream.next().await.expect("open").expect("event") {
            WatchEvent::Bookmark(b) => {
                bookmarks.push(b.metadata.resource_version.parse::<u64>().expect("numeric"))
            }
            other => panic!("unexpected {}", describe(&other)),
        }
    }
    assert!(bookmarks.iter().all(|b| *b >= rv));
    server.shutdown().await;
}

#[tokio::test]
async fn timeout_ends_the_watch_and_no_bookmarks_unless_asked() {
    let (server, api) = server_with_cms().await;
    create_cm(&api, "a", &[]).await;
    let events: Vec<String> = api
        .watch(&no_bookmarks().timeout(1), "0")
        .await
        .expect("watch")
        .map(|e| describe(&e.expect("event")))
        .collect()
        .await;
    assert_eq!(events, ["ADDED a"], "the stream ends after timeoutSeconds, without bookmarks");
    server.shutdown().await;
}

#[tokio::test]
async fn watch_from_a_compacted_version_gets_410() {
    let (server, api) = server_with_cms().await;
    let old = create_cm(&api, "a", &[]).await.resource_version().expect("rv");
    create_cm(&api, "b", &[]).await;
    server.compact();
    let mut stream = api.watch(&no_bookmarks(), &old).await.expect("watch").boxed();
    let first = stream.next().await.expect("one event").expect("decodes");
    match first {
        WatchEvent::Error(status) => {
            assert_eq!(status.code, 410);
            assert_eq!(status.reason, "Expired");
        }
        other => panic!("expected ERROR, got {}", describe(&other)),
    }
    assert!(stream.next().await.is_none(), "the watch ends after the ERROR");
    server.shutdown().await;
}

#[tokio::test]
async fn history_length_bounds_resumable_versions() {
    let server = kube_informers_testkit::TestApiServer::builder()
        .history_len(3)
        .start()
        .await
        .expect("start");
    let api: Api<ConfigMap> = Api::namespaced(server.client().expect("client"), "default");
    let first = create_cm(&api, "a", &[]).await.resource_version().expect("rv");
    for name in ["b", "c", "d", "e"] {
        create_cm(&api, name, &[]).await;
    }
    let mut stream = api.watch(&no_bookmarks(), &first).await.expect("watch").boxed();
    assert_eq!(next_events(&mut stream, 1).await, ["ERROR 410"]);
    server.shutdown().await;
}

#[tokio::test]
async fn streaming_list_ends_with_initial_events_end_bookmark() {
    let (server, api) = server_with_cms().await;
    for name in ["a", "b", "c"] {
        create_cm(&api, name, &[]).await;
    }
    let current = server.resource_version();
    let mut stream =
        api.watch(&WatchParams::default().initial_events(), "").await.expect("watch").boxed();
    let mut added = Vec::new();
    loop {
        match stream.next().await.expect("open").expect("event") {
            WatchEvent::Added(o) => added.push(o.name_any()),
            WatchEvent::Bookmark(b) => {
                assert_eq!(
                    b.metadata.annotations.get("k8s.io/initial-events-end").map(String::as_str),
                    Some("true")
                );
                assert_eq!(b.metadata.resource_version, current.to_string());
                break;
            }
            other => panic!("unexpected {}", describe(&other)),
        }
    }
    assert_eq!(added, ["a", "b", "c"]);
    create_cm(&api, "d", &[]).await;
    assert_eq!(next_events(&mut stream, 1).await, ["ADDED d"]);
    server.shutdown().await;
}

#[tokio::test]
async fn selectors_apply_to_watches_with_enter_and_leave_events() {
    let (server, api) = server_with_cms().await;
    create_cm(&api, "a", &[("app", "web")]).await;
    create_cm(&api, "other", &[("app", "db")]).await;
    let params = no_bookmarks().labels("app=web");
    let mut stream = api.watch(&params, "0").await.expect("watch").boxed();
    assert_eq!(next_events(&mut stream, 1).await, ["ADDED a"]);
    let relabel = |app: &str| Patch::Merge(json!({"metadata": {"labels": {"app": app}}}));
    api.patch("a", &PatchParams::default(), &relabel("db")).await.expect("leave");
    api.patch("other", &PatchParams::default(), &relabel("web")).await.expect("enter");
    api.patch("other", &PatchParams::default(), &Patch::Merge(json!({"data": {"x": "1"}})))
        .await
        .expect("modify");
    create_cm(&api, "unrelated", &[("app", "db")]).await;
    create_cm(&api, "b", &[("app", "web")]).await;
    assert_eq!(
        next_events(&mut stream, 4).await,
        ["DELETED a", "ADDED other", "MODIFIED other", "ADDED b"]
    );

    let by_name = no_bookmarks().fields("metadata.name=b");
    let mut named = api.watch(&by_name, "0").await.expect("watch").boxed();
    assert_eq!(next_events(&mut named, 1).await, ["ADDED b"]);
    server.shutdown().await;
}

#[tokio::test]
async fn namespaced_watch_sees_only_its_namespace() {
    let (server, api) = server_with_cms().await;
    let client = server.client().expect("client");
    let system: Api<ConfigMap> = Api::namespaced(client.clone(), "kube-system");
    let all: Api<ConfigMap> = Api::all(client);
    let mut default_stream = api.watch(&no_bookmarks(), "0").await.expect("watch").boxed();
    let mut all_stream = all.watch(&no_bookmarks(), "0").await.expect("watch").boxed();
    create_cm(&system, "sys", &[]).await;
    create_cm(&api, "mine", &[]).await;
    assert_eq!(next_events(&mut default_stream, 1).await, ["ADDED mine"]);
    assert_eq!(next_events(&mut all_stream, 2).await, ["ADDED sys", "ADDED mine"]);
    server.shutdown().await;
}
