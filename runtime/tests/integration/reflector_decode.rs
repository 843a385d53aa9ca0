//! `ApiListerWatcher` reads and decodes bodies itself: list bodies from one buffer, watch
//! bodies line by line across chunk boundaries, error responses mapped exactly as
//! `kube::Api` maps them, and `managedFields` skipped while decoding when asked.

use std::{
    collections::VecDeque,
    convert::Infallible,
    pin::Pin,
    task::{Context, Poll},
};

use bytes::Bytes;
use futures::StreamExt;
use k8s_openapi::api::core::v1::Pod;
use kube::{
    Api, Client,
    api::{ListParams, WatchParams},
    client::Body,
    core::WatchEvent,
};
use kube_informers_runtime::listwatch::{ApiListerWatcher, ListerWatcher, WireError};

/// A response body delivered in the given chunks.
struct Chunks(VecDeque<Bytes>);

impl http_body::Body for Chunks {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Infallible>>> {
        Poll::Ready(self.0.pop_front().map(|chunk| Ok(http_body::Frame::data(chunk))))
    }
}

/// A client answering every request with `status` and a body in `chunks`.
fn client(status: u16, chunks: &[&str]) -> Client {
    let chunks: Vec<Bytes> = chunks.iter().map(|c| Bytes::from(c.to_string())).collect();
    let service = tower::service_fn(move |_: http::Request<Body>| {
        let body = Chunks(chunks.clone().into());
        let response = http::Response::builder().status(status).body(body).unwrap();
        async move { Ok::<_, Infallible>(response) }
    });
    Client::new(service, "default")
}

fn pod(name: &str) -> String {
    format!(
        r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{name}","namespace":"prod","resourceVersion":"5","managedFields":[{{"manager":"kubectl","fieldsType":"FieldsV1","fieldsV1":{{"f:metadata":{{}}}}}}]}},"spec":{{"containers":[{{"name":"c","image":"nginx"}}]}}}}"#
    )
}

async fn watch_all(client: Client, skip: bool) -> Vec<Result<WatchEvent<Pod>, kube::Error>> {
    let mut lw = ApiListerWatcher::new(Api::<Pod>::all(client));
    if skip {
        lw = lw.skip_managed_fields();
    }
    lw.watch(&WatchParams::default(), "1").await.expect("watch opens").collect().await
}

#[tokio::test]
async fn watch_lines_split_across_chunks_decode_in_order() {
    let added = format!(r#"{{"type":"ADDED","object":{}}}"#, pod("a"));
    let (head, tail) = added.split_at(20);
    let bookmark = r#"{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"9"}}}"#;
    let (b1, b2) = bookmark.split_at(31);
    let chunks = [head, tail, "\n", "\n", b1, b2, "\n", "  \n"];
    let events = watch_all(client(200, &chunks), false).await;
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(matches!(&events[0], Ok(WatchEvent::Added(p))
        if p.metadata.name.as_deref() == Some("a") && p.metadata.managed_fields.is_some()));
    assert!(
        matches!(&events[1], Ok(WatchEvent::Bookmark(b)) if b.metadata.resource_version == "9")
    );
}

#[tokio::test]
async fn a_final_partial_line_is_a_typed_truncation_error() {
    let added = format!("{{\"type\":\"ADDED\",\"object\":{}}}\n", pod("a"));
    let partial = r#"{"type":"MODIFIED","obj"#;
    let events = watch_all(client(200, &[&added, partial]), false).await;
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(events[0].is_ok());
    let Err(kube::Error::ReadEvents(io)) = &events[1] else {
        panic!("expected a read error, got {:?}", events[1]);
    };
    assert_eq!(io.kind(), std::io::ErrorKind::UnexpectedEof);
    let inner = io.get_ref().and_then(|e| e.downcast_ref::<WireError>());
    assert!(
        matches!(inner, Some(WireError::TruncatedEvent { bytes }) if *bytes == partial.len()),
        "{io:?}"
    );
}

#[tokio::test]
async fn a_wrongly_typed_event_is_an_undecodable_object_not_an_empty_status() {
    let wrong = r#"{"type":"ADDED","object":{"metadata":{"name":"x","namespace":"ns","resourceVersion":"8","labels":"flat"}}}"#;
    let next = format!("{{\"type\":\"ADDED\",\"object\":{}}}\n", pod("b"));
    let invalid = r#"{"type":"ADDED","object":{"metadata":{]}}"#;
    let events = watch_all(client(200, &[wrong, "\n", &next, invalid, "\n"]), false).await;
    let Err(err) = &events[0] else { panic!("{:?}", events[0]) };
    let Some(WireError::UndecodableObject { event, object }) = WireError::find_in(err) else {
        panic!("{err:?}")
    };
    assert_eq!((event.as_str(), object.key.as_str()), ("ADDED", "ns/x"));
    assert_eq!(object.resource_version.as_deref(), Some("8"));
    // The stream itself goes on; the reflector skips the object.
    assert!(matches!(&events[1], Ok(WatchEvent::Added(_))));
    // Invalid JSON is not an object of the wrong shape: it stays a decode error.
    assert!(matches!(&events[2], Err(kube::Error::SerdeError(_))), "{:?}", events[2]);
}

#[tokio::test]
async fn skip_managed_fields_applies_to_lists_and_watch_events() {
    let list = format!(
        r#"{{"kind":"PodList","apiVersion":"v1","metadata":{{"resourceVersion":"7"}},"items":[{},{}]}}"#,
        pod("a"),
        pod("b")
    );
    let lw = ApiListerWatcher::new(Api::<Pod>::all(client(200, &[&list[..100], &list[100..]])));
    let plain = lw.list(&ListParams::default()).await.unwrap();
    assert!(plain.items.iter().all(|p| p.metadata.managed_fields.is_some()));
    let skipped = lw.clone().skip_managed_fields().list(&ListParams::default()).await.unwrap();
    assert_eq!(skipped.metadata.resource_version.as_deref(), Some("7"));
    assert_eq!(skipped.items.len(), 2);
    for (skipped, plain) in skipped.items.iter().zip(&plain.items) {
        let mut expected = plain.clone();
        expected.metadata.managed_fields = None;
        assert_eq!(skipped, &expected);
    }

    let event = format!("{{\"type\":\"MODIFIED\",\"object\":{}}}\n", pod("a"));
    let events = watch_all(client(200, &[&event]), true).await;
    assert!(matches!(&events[0], Ok(WatchEvent::Modified(p))
        if p.metadata.managed_fields.is_none() && p.spec.is_some()));
}

/// The `Status` of an API error, for comparing ours with kube's.
fn status_of(result: Result<impl std::fmt::Debug, kube::Error>) -> (u16, String, String) {
    match result {
        Err(kube::Error::Api(status)) => (status.code, status.reason, status.message),
        other => panic!("expected an API error, got {other:?}"),
    }
}

#[tokio::test]
async fn error_responses_map_exactly_as_kube_maps_them() {
    let gone = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410}"#;
    for (code, body) in [(410, gone), (500, "upstream connect error\n"), (403, "")] {
        let ours = ApiListerWatcher::new(Api::<Pod>::all(client(code, &[body])));
        let kube = Api::<Pod>::all(client(code, &[body]));
        let expected = status_of(kube.list(&ListParams::default()).await);
        assert_eq!(expected.0, code);
        assert_eq!(status_of(ours.list(&ListParams::default()).await), expected, "list {code}");
        let watch = ours.watch(&WatchParams::default(), "1").await.map(|_| ());
        assert_eq!(status_of(watch), expected, "watch {code}");
    }
}

#[tokio::test]
async fn a_wrongly_typed_list_item_is_a_serde_error() {
    let list = r#"{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"x","labels":"flat"}}]}"#;
    let lw = ApiListerWatcher::new(Api::<Pod>::all(client(200, &[list])));
    let err = lw.list(&ListParams::default()).await.unwrap_err();
    assert!(matches!(err, kube::Error::SerdeError(_)), "{err:?}");
}

#[tokio::test]
async fn list_page_skips_a_wrongly_typed_item_and_keeps_the_others() {
    let list = format!(
        r#"{{"kind":"PodList","apiVersion":"v1","metadata":{{"resourceVersion":"7"}},"items":[{},{{"metadata":{{"name":"x","labels":"flat"}}}},{}]}}"#,
        pod("a"),
        pod("b")
    );
    let lw = ApiListerWatcher::new(Api::<Pod>::all(client(200, &[&list])));
    let page = lw.list_page(&ListParams::default(), None).await.unwrap();
    let names: Vec<_> = page.list.items.iter().map(|p| p.metadata.name.clone().unwrap()).collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(page.skipped.len(), 1);
    assert_eq!(page.skipped[0].key, "x");
}
