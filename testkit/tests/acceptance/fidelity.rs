//! testkit answers like kube-apiserver 1.36 on the points of issue 15 (each expectation was
//! observed on the real server first; see the README's Fidelity section).

use std::time::Duration;

use futures::StreamExt;
use kube::Client;
use kube_informers_testkit::TestApiServer;
use serde_json::{Value, json};

const CMS: &str = "/api/v1/namespaces/default/configmaps";
const METADATA: &str = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
const METADATA_LIST: &str = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
const TABLE: &str = "application/json;as=Table;g=meta.k8s.io;v=v1";

/// Sends one request and returns the status code and the JSON body.
async fn send(
    client: &Client,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = http::Request::builder().method(method).uri(path);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let bytes = body.map(|b| serde_json::to_vec(&b).expect("json")).unwrap_or_default();
    let request = request.body(kube::client::Body::from(bytes)).expect("request");
    let response = client.send(request).await.expect("send");
    let code = response.status().as_u16();
    let body = axum::body::to_bytes(axum::body::Body::new(response.into_body()), 1 << 26)
        .await
        .expect("body");
    (code, if body.is_empty() { Value::Null } else { serde_json::from_slice(&body).expect("json") })
}

async fn get(client: &Client, path: &str, accept: Option<&str>) -> (u16, Value) {
    let headers: Vec<(&str, &str)> = accept.map(|a| ("Accept", a)).into_iter().collect();
    send(client, "GET", path, &headers, None).await
}

async fn post(client: &Client, path: &str, body: Value) -> (u16, Value) {
    send(client, "POST", path, &[("Content-Type", "application/json")], Some(body)).await
}

fn cm(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}})
}

fn rv_of(object: &Value) -> u64 {
    object["metadata"]["resourceVersion"].as_str().expect("rv").parse().expect("number")
}

/// Reads watch events (one JSON object a line) for at most `wait`, or until the stream ends.
async fn watch_events(
    client: &Client,
    path: &str,
    accept: Option<&str>,
    wait: Duration,
    until: impl Fn(&[Value]) -> bool,
) -> (u16, Vec<Value>) {
    let mut request = http::Request::builder().method("GET").uri(path);
    if let Some(accept) = accept {
        request = request.header("Accept", accept);
    }
    let request = request.body(kube::client::Body::from(Vec::new())).expect("request");
    let response = client.send(request).await.expect("send");
    let code = response.status().as_u16();
    let mut stream = axum::body::Body::new(response.into_body()).into_data_stream();
    let mut buffer = Vec::new();
    let mut events = Vec::new();
    let deadline = tokio::time::sleep(wait);
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            _ = &mut deadline => break,
            chunk = stream.next() => match chunk {
                Some(Ok(chunk)) => {
                    buffer.extend_from_slice(&chunk);
                    while let Some(end) = buffer.iter().position(|b| *b == b'\n') {
                        let line: Vec<u8> = buffer.drain(..=end).collect();
                        events.push(serde_json::from_slice(&line).expect("event json"));
                    }
                    if until(&events) {
                        break;
                    }
                }
                _ => break,
            }
        }
    }
    (code, events)
}

fn types(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap_or_default()).collect()
}

async fn server() -> (TestApiServer, Client) {
    let server = TestApiServer::builder()
        .bookmark_interval(Duration::from_millis(50))
        .start()
        .await
        .expect("start");
    let client = server.client().expect("client");
    (server, client)
}

/// Point 1: kube-apiserver serves `resourceVersion=0` from its watch cache, which ignores
/// `limit` (so a reflector's first list is one page); `resourceVersion=""` paginates.
#[tokio::test]
async fn resource_version_zero_lists_ignore_limit() {
    let (server, client) = server().await;
    server.seed().config_maps("default", 5).expect("seed");
    for query in
        ["resourceVersion=0&limit=2", "resourceVersion=0&resourceVersionMatch=NotOlderThan&limit=2"]
    {
        let (code, list) = get(&client, &format!("{CMS}?{query}"), None).await;
        assert_eq!(code, 200);
        assert_eq!(list["items"].as_array().map(Vec::len), Some(5), "{query}");
        assert!(list["metadata"].get("continue").is_none(), "{query}: {}", list["metadata"]);
    }
    let (_, page) = get(&client, &format!("{CMS}?limit=2"), None).await;
    assert_eq!(page["items"].as_array().map(Vec::len), Some(2));
    assert!(page["metadata"]["continue"].is_string());
    server.shutdown().await;
}

/// Point 2: a watch from an RV newer than the server's answers 200 and waits; it never
/// sends an event (or bookmark) at or below the RV it was asked for.
#[tokio::test]
async fn watch_from_a_future_resource_version_skips_everything_up_to_it() {
    let (server, client) = server().await;
    let future = server.resource_version() + 3;
    let path = format!("{CMS}?watch=true&allowWatchBookmarks=true&resourceVersion={future}");
    let watcher = {
        let client = client.clone();
        tokio::spawn(async move {
            watch_events(&client, &path, None, Duration::from_secs(10), |events| {
                events.iter().any(|e| e["type"] == "ADDED")
            })
            .await
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    for name in ["a", "b", "c", "d"] {
        assert_eq!(post(&client, CMS, cm(name)).await.0, 201);
    }
    let (code, events) = watcher.await.expect("watch task");
    assert_eq!(code, 200);
    let added: Vec<&Value> = events.iter().filter(|e| e["type"] == "ADDED").collect();
    assert_eq!(added.len(), 1, "{events:?}");
    assert_eq!(added[0]["object"]["metadata"]["name"], "d", "only the event past the RV");
    for event in &events {
        let rv = rv_of(&event["object"]);
        match event["type"].as_str() {
            Some("BOOKMARK") => assert!(rv >= future, "no bookmark below {future}: {event}"),
            _ => assert!(rv > future, "no event at or below {future}: {event}"),
        }
    }
    server.shutdown().await;
}

/// Point 3: periodic bookmarks come about once a minute by default, not every second.
#[tokio::test]
async fn default_bookmarks_are_a_minute_apart() {
    let server = TestApiServer::start().await.expect("start");
    let client = server.client().expect("client");
    let rv = server.resource_version();
    let path = format!("{CMS}?watch=true&allowWatchBookmarks=true&resourceVersion={rv}");
    let (_, events) =
        watch_events(&client, &path, None, Duration::from_millis(2_500), |_| false).await;
    assert!(events.is_empty(), "no bookmark within 2.5 s: {events:?}");
    server.shutdown().await;
}

/// Point 4: since 1.34 a plain watch from "" or "0" with bookmarks ends its synthetic
/// ADDED events with the `k8s.io/initial-events-end` bookmark at the current RV.
#[tokio::test]
async fn plain_watch_from_scratch_ends_initial_events_with_a_bookmark() {
    let (server, client) = server().await;
    server.seed().config_maps("default", 3).expect("seed");
    let current = server.resource_version();
    for rv in ["", "&resourceVersion=0"] {
        let path = format!("{CMS}?watch=true&allowWatchBookmarks=true{rv}");
        let (_, events) = watch_events(&client, &path, None, Duration::from_secs(5), |e| {
            e.iter().any(|e| e["type"] == "BOOKMARK")
        })
        .await;
        assert_eq!(types(&events), ["ADDED", "ADDED", "ADDED", "BOOKMARK"], "{rv}");
        let end = &events[3]["object"]["metadata"];
        assert_eq!(end["annotations"]["k8s.io/initial-events-end"], "true");
        assert_eq!(end["resourceVersion"], current.to_string());
    }
    // Without bookmarks: the ADDED events only.
    let (_, events) = watch_events(
        &client,
        &format!("{CMS}?watch=true"),
        None,
        Duration::from_millis(300),
        |_| false,
    )
    .await;
    assert_eq!(types(&events), ["ADDED", "ADDED", "ADDED"]);
    // sendInitialEvents (true or false) needs resourceVersionMatch=NotOlderThan.
    let (code, status) = get(
        &client,
        &format!("{CMS}?watch=true&allowWatchBookmarks=true&sendInitialEvents=false"),
        None,
    )
    .await;
    assert_eq!((code, status["reason"].as_str()), (422, Some("Invalid")));
    server.shutdown().await;
}

/// Point 5: `as=PartialObjectMetadata[List]` serves metadata only; `as=Table` a Table with
/// Name and Age; a list kind for a single object (or the reverse) is 406.
#[tokio::test]
async fn metadata_and_table_representations() {
    let (server, client) = server().await;
    server.seed().config_maps("default", 3).expect("seed");
    let (code, list) = get(&client, &format!("{CMS}?limit=2"), Some(METADATA_LIST)).await;
    assert_eq!(code, 200);
    assert_eq!(list["kind"], "PartialObjectMetadataList");
    assert_eq!(list["apiVersion"], "meta.k8s.io/v1");
    assert!(list["metadata"]["continue"].is_string());
    let item = &list["items"][0];
    assert_eq!(item["kind"], "PartialObjectMetadata");
    assert_eq!(item["apiVersion"], "meta.k8s.io/v1");
    assert_eq!(item["metadata"]["name"], "config-0");
    assert!(item.get("data").is_none(), "metadata only: {item}");

    let (code, one) = get(&client, &format!("{CMS}/config-0"), Some(METADATA)).await;
    assert_eq!((code, one["kind"].as_str()), (200, Some("PartialObjectMetadata")));
    assert!(one.get("data").is_none());
    let (code, status) = get(&client, &format!("{CMS}/config-0"), Some(METADATA_LIST)).await;
    assert_eq!((code, status["reason"].as_str()), (406, Some("NotAcceptable")));
    assert_eq!(
        status["message"],
        "you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)"
    );
    let (code, _) = get(&client, CMS, Some(METADATA)).await;
    assert_eq!(code, 406);
    let (code, _) = get(&client, CMS, Some("application/json;as=Foo;g=meta.k8s.io;v=v1")).await;
    assert_eq!(code, 406);

    let path = format!("{CMS}?watch=true&allowWatchBookmarks=true");
    let (_, events) = watch_events(&client, &path, Some(METADATA), Duration::from_secs(5), |e| {
        e.iter().any(|e| e["type"] == "BOOKMARK")
    })
    .await;
    assert_eq!(types(&events), ["ADDED", "ADDED", "ADDED", "BOOKMARK"]);
    for event in &events {
        assert_eq!(event["object"]["kind"], "PartialObjectMetadata", "{event}");
        assert!(event["object"].get("data").is_none());
    }

    let (code, table) = get(&client, &format!("{CMS}?limit=2"), Some(TABLE)).await;
    assert_eq!((code, table["kind"].as_str()), (200, Some("Table")));
    assert_eq!(table["apiVersion"], "meta.k8s.io/v1");
    let columns: Vec<&str> = table["columnDefinitions"]
        .as_array()
        .expect("columns")
        .iter()
        .map(|c| c["name"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(columns, ["Name", "Age"]);
    assert_eq!(table["rows"][0]["cells"][0], "config-0");
    assert_eq!(table["rows"][0]["object"]["kind"], "PartialObjectMetadata");
    assert!(table["metadata"]["continue"].is_string());
    let (code, table) = get(&client, &format!("{CMS}/config-1"), Some(TABLE)).await;
    assert_eq!((code, table["rows"][0]["cells"][0].as_str()), (200, Some("config-1")));
    server.shutdown().await;
}

/// Point 6: a create carrying `metadata.resourceVersion` is refused with a reasonless 500.
#[tokio::test]
async fn create_with_a_resource_version_is_refused() {
    let (server, client) = server().await;
    let mut object = cm("with-rv");
    object["metadata"]["resourceVersion"] = json!("5");
    let (code, status) = post(&client, CMS, object).await;
    assert_eq!(code, 500);
    assert_eq!(status["message"], "resourceVersion should not be set on objects to be created");
    assert!(status.get("reason").is_none(), "{status}");
    assert_eq!(server.object_count("configmaps"), 0);
    // "0" is accepted, as by kube-apiserver.
    let mut object = cm("with-rv-0");
    object["metadata"]["resourceVersion"] = json!("0");
    assert_eq!(post(&client, CMS, object).await.0, 201);
    server.shutdown().await;
}

/// Point 7: strategic merge patch is 415 on a custom resource (fine on built-ins).
#[tokio::test]
async fn strategic_merge_patch_on_a_custom_resource_is_unsupported() {
    let (server, client) = server().await;
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "foos.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "foos", "singular": "foo", "kind": "Foo", "listKind": "FooList"},
            "versions": [{"name": "v1", "served": true, "storage": true}]}
    });
    assert_eq!(
        post(&client, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd).await.0,
        201
    );
    let foos = "/apis/example.com/v1/namespaces/default/foos";
    let foo = json!({"apiVersion": "example.com/v1", "kind": "Foo", "metadata": {"name": "f"}, "spec": {"a": 1}});
    assert_eq!(post(&client, foos, foo).await.0, 201);
    let smp = [("Content-Type", "application/strategic-merge-patch+json")];
    let (code, status) =
        send(&client, "PATCH", &format!("{foos}/f"), &smp, Some(json!({"spec": {"b": 1}}))).await;
    assert_eq!((code, status["reason"].as_str()), (415, Some("UnsupportedMediaType")));
    assert_eq!(
        status["message"],
        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
    );
    let merge = [("Content-Type", "application/merge-patch+json")];
    assert_eq!(
        send(&client, "PATCH", &format!("{foos}/f"), &merge, Some(json!({"spec": {"b": 1}})))
            .await
            .0,
        200
    );
    assert_eq!(post(&client, CMS, cm("a")).await.0, 201);
    let (code, patched) =
        send(&client, "PATCH", &format!("{CMS}/a"), &smp, Some(json!({"data": {"x": "y"}}))).await;
    assert_eq!((code, patched["data"]["x"].as_str()), (200, Some("y")));
    server.shutdown().await;
}

/// Point 8: `dryRun=All` answers as the write would, and commits nothing.
#[tokio::test]
async fn dry_run_writes_commit_nothing() {
    let (server, client) = server().await;
    let (_, original) = post(&client, CMS, cm("kept")).await;
    let (_, finalized) =
        post(&client, CMS, json!({"metadata": {"name": "fin", "finalizers": ["example.com/x"]}}))
            .await;
    let rv = server.resource_version();

    let (code, created) = post(&client, &format!("{CMS}?dryRun=All"), cm("dry")).await;
    assert_eq!(code, 201);
    assert_eq!(created["metadata"]["name"], "dry");
    assert!(
        created["metadata"]["uid"].is_string()
            && created["metadata"]["creationTimestamp"].is_string()
    );
    assert!(created["metadata"].get("resourceVersion").is_none(), "{created}");
    assert_eq!(get(&client, &format!("{CMS}/dry"), None).await.0, 404);
    assert_eq!(
        post(&client, &format!("{CMS}?dryRun=All"), cm("kept")).await.0,
        409,
        "still validated"
    );

    let mut changed = original.clone();
    changed["data"]["k"] = json!("changed");
    let json_type = [("Content-Type", "application/json")];
    let (code, updated) =
        send(&client, "PUT", &format!("{CMS}/kept?dryRun=All"), &json_type, Some(changed)).await;
    assert_eq!((code, updated["data"]["k"].as_str()), (200, Some("changed")));
    assert_eq!(updated["metadata"]["resourceVersion"], original["metadata"]["resourceVersion"]);
    let merge = [("Content-Type", "application/merge-patch+json")];
    let (code, patched) = send(
        &client,
        "PATCH",
        &format!("{CMS}/kept?dryRun=All"),
        &merge,
        Some(json!({"data": {"k": "patched"}})),
    )
    .await;
    assert_eq!((code, patched["data"]["k"].as_str()), (200, Some("patched")));
    let (code, status) =
        send(&client, "DELETE", &format!("{CMS}/kept?dryRun=All"), &[], None).await;
    assert_eq!(
        (code, status["kind"].as_str(), status["status"].as_str()),
        (200, Some("Status"), Some("Success"))
    );
    let (code, terminating) =
        send(&client, "DELETE", &format!("{CMS}/fin?dryRun=All"), &[], None).await;
    assert_eq!(code, 200);
    assert!(terminating["metadata"]["deletionTimestamp"].is_string());
    assert_eq!(
        terminating["metadata"]["resourceVersion"],
        finalized["metadata"]["resourceVersion"]
    );

    let (_, kept) = get(&client, &format!("{CMS}/kept"), None).await;
    assert_eq!(kept, original, "nothing changed");
    let (_, fin) = get(&client, &format!("{CMS}/fin"), None).await;
    assert!(fin["metadata"].get("deletionTimestamp").is_none());
    assert_eq!(server.resource_version(), rv, "no resourceVersion was used");
    let (code, status) = post(&client, &format!("{CMS}?dryRun=Foo"), cm("x")).await;
    assert_eq!((code, status["reason"].as_str()), (422, Some("Invalid")));
    server.shutdown().await;
}

/// Point 9: DELETE answers a `Status` when the object is gone at once, the object when it
/// only got a deletionTimestamp (finalizers).
#[tokio::test]
async fn delete_answers_a_status_or_the_terminating_object() {
    let (server, client) = server().await;
    let (_, created) = post(&client, CMS, cm("gone")).await;
    let (code, status) = send(&client, "DELETE", &format!("{CMS}/gone"), &[], None).await;
    assert_eq!(code, 200);
    assert_eq!(
        status,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
            "details": {"name": "gone", "kind": "configmaps", "uid": created["metadata"]["uid"]}})
    );
    post(&client, CMS, json!({"metadata": {"name": "fin", "finalizers": ["example.com/x"]}})).await;
    let (code, object) = send(&client, "DELETE", &format!("{CMS}/fin"), &[], None).await;
    assert_eq!((code, object["kind"].as_str()), (200, Some("ConfigMap")));
    assert!(object["metadata"]["deletionTimestamp"].is_string());
    let deployments = "/apis/apps/v1/namespaces/default/deployments";
    post(&client, deployments, json!({"metadata": {"name": "d"}, "spec": {}})).await;
    let (_, status) = send(&client, "DELETE", &format!("{deployments}/d"), &[], None).await;
    assert_eq!(status["details"]["group"], "apps");
    server.shutdown().await;
}

/// Point 10: after a restart the watch cache is fresh: a watch resumed from an older RV
/// gets an ERROR event with 410 Expired, while lists at that RV still work.
#[tokio::test]
async fn restart_expires_watch_resumes_but_not_lists() {
    let (server, client) = server().await;
    let (_, first) = post(&client, CMS, cm("a")).await;
    let old = rv_of(&first);
    post(&client, CMS, cm("b")).await;
    let latest = server.resource_version();
    server.restart().await.expect("restart");
    for rv in [old, latest - 1] {
        let path = format!("{CMS}?watch=true&resourceVersion={rv}");
        let (code, events) =
            watch_events(&client, &path, None, Duration::from_secs(5), |e| !e.is_empty()).await;
        assert_eq!((code, types(&events)), (200, vec!["ERROR"]), "from {rv}");
        assert_eq!(events[0]["object"]["code"], 410);
        assert_eq!(
            events[0]["object"]["message"],
            format!("too old resource version: {rv} ({latest})")
        );
    }
    let path = format!("{CMS}?watch=true&resourceVersion={latest}");
    let watcher = {
        let client = client.clone();
        tokio::spawn(async move {
            watch_events(&client, &path, None, Duration::from_secs(5), |e| !e.is_empty()).await
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    post(&client, CMS, cm("c")).await;
    assert_eq!(types(&watcher.await.expect("watch").1), ["ADDED"], "a watch from now works");
    let (code, list) =
        get(&client, &format!("{CMS}?resourceVersion={old}&resourceVersionMatch=Exact"), None)
            .await;
    assert_eq!((code, list["items"].as_array().map(Vec::len)), (200, Some(1)));
    server.shutdown().await;
}
