//! A list is given up once it goes silent, never for being long (issue 17): the
//! `list_page` of `ApiListerWatcher` limits the wait for the response head and then for
//! each chunk of the body after the one before, not the whole list; the default
//! `list_page` of a lister-watcher that does not read bodies itself limits the whole
//! call; the wrappers pass the limit on. The reflector reports a stalled list as a failed
//! list and relists after the backoff. client-go has no such limit: its HTTP/1 list waits
//! for ever on a half-open connection.

use std::{convert::Infallible, pin::Pin, sync::Arc, task::Context, task::Poll, time::Duration};

use bytes::Bytes;
use futures::{StreamExt, future::BoxFuture, stream::BoxStream};
use k8s_openapi::api::core::v1::Pod;
use kube::{
    Api, Client,
    api::{ListParams, WatchParams},
    client::Body,
    core::ObjectList,
};
use kube_informers_runtime::listwatch::{
    ApiListerWatcher, ListerWatcher, MetadataListerWatcher, WatchStream, WireError,
};
use kube_informers_runtime::metrics::ReflectorStats;
use tokio::time::Instant;

use crate::reflector_support::{
    FakeListerWatcher, Harness, Op, Reported, WatchScript, config, page, pod,
};

/// The idle limit of these tests.
const LIMIT: Duration = Duration::from_secs(1);

/// How the mock API server answers a list.
#[derive(Clone, Copy)]
enum Answer {
    /// The body in `chunks` pieces, each `gap` after the one before (the first too).
    Paced { chunks: usize, gap: Duration },
    /// The response head and the first piece of the body, then nothing.
    SilentMidBody,
    /// Nothing at all, not even the response head.
    Unanswered,
}

/// A response body whose chunks come from a stream.
struct Streamed(BoxStream<'static, Bytes>);

impl http_body::Body for Streamed {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Infallible>>> {
        self.0.poll_next_unpin(cx).map(|chunk| chunk.map(|c| Ok(http_body::Frame::data(c))))
    }
}

/// A list of `PODS` pods, as the API server sends it.
const PODS: usize = 200;

fn list_body() -> Bytes {
    let items: Vec<String> = (0..PODS)
        .map(|i| {
            format!(
                r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"pod-{i}","namespace":"prod","resourceVersion":"{i}"}}}}"#
            )
        })
        .collect();
    let body = format!(
        r#"{{"apiVersion":"v1","kind":"PodList","metadata":{{"resourceVersion":"900"}},"items":[{}]}}"#,
        items.join(",")
    );
    Bytes::from(body)
}

/// A client whose every list is answered as `answer` says.
fn client(answer: Answer) -> Client {
    let service = tower::service_fn(move |_: http::Request<Body>| async move {
        let body = list_body();
        let len = body.len();
        let piece = move |count: usize| len.div_ceil(count);
        let chunks: BoxStream<'static, Bytes> = match answer {
            Answer::Paced { chunks, gap } => {
                let pieces: Vec<Bytes> =
                    body.chunks(piece(chunks)).map(Bytes::copy_from_slice).collect();
                futures::stream::iter(pieces)
                    .then(move |chunk| async move {
                        tokio::time::sleep(gap).await;
                        chunk
                    })
                    .boxed()
            }
            Answer::SilentMidBody => futures::stream::once(async move { body.slice(..piece(2)) })
                .chain(futures::stream::pending())
                .boxed(),
            Answer::Unanswered => std::future::pending().await,
        };
        Ok::<_, Infallible>(http::Response::new(Streamed(chunks)))
    });
    Client::new(service, "default")
}

/// The idle time of a `Stalled` error.
fn stalled_for(err: &kube::Error) -> Option<Duration> {
    let kube::Error::ReadEvents(io) = err else { return None };
    assert_eq!(io.kind(), std::io::ErrorKind::TimedOut);
    match io.get_ref()?.downcast_ref::<WireError>()? {
        WireError::Stalled { idle } => Some(*idle),
        _ => None,
    }
}

/// Lists through `lw` with the limit; how many items came, or the error.
async fn count_listed<K: Clone + 'static>(lw: &dyn ListerWatcher<K>) -> Result<usize, kube::Error> {
    lw.list_page(&ListParams::default(), Some(LIMIT)).await.map(|page| page.list.items.len())
}

/// What one list through a lister-watcher gave, and how long it took (paused clock).
struct Listed {
    through: &'static str,
    result: Result<usize, kube::Error>,
    took: Duration,
}

/// Lists once through each lister-watcher of ours over a client answering as `answer`:
/// an `ApiListerWatcher`, a `MetadataListerWatcher`, and an `ApiListerWatcher` counted
/// into `stats`.
async fn list_through_each(answer: Answer, stats: &ReflectorStats) -> Vec<Listed> {
    let api = ApiListerWatcher::new(Api::<Pod>::all(client(answer)));
    let metadata = MetadataListerWatcher::new(Api::<Pod>::all(client(answer)));
    let counted: Arc<dyn ListerWatcher<Pod>> =
        Arc::new(ApiListerWatcher::new(Api::<Pod>::all(client(answer))));
    let counted = stats.instrument_lister_watcher(counted);
    let mut listed = Vec::new();
    let started = Instant::now();
    let result = count_listed(&api).await;
    listed.push(Listed { through: "ApiListerWatcher", result, took: started.elapsed() });
    let started = Instant::now();
    let result = count_listed(&metadata).await;
    listed.push(Listed { through: "MetadataListerWatcher", result, took: started.elapsed() });
    let started = Instant::now();
    let result = count_listed(counted.as_ref()).await;
    listed.push(Listed { through: "counted ApiListerWatcher", result, took: started.elapsed() });
    listed
}

#[tokio::test(start_paused = true)]
async fn a_list_that_keeps_sending_is_never_cut_however_long_it_takes() {
    // 40 chunks 0.9 s apart: every wait is within the 1 s limit, the whole list is not.
    let answer = Answer::Paced { chunks: 40, gap: Duration::from_millis(900) };
    let stats = ReflectorStats::new();
    for Listed { through, result, took } in list_through_each(answer, &stats).await {
        assert_eq!(result.ok(), Some(PODS), "{through} cut a list that kept sending");
        assert!(took >= LIMIT * 30, "{through}: the list took {took:?}, far past the limit");
    }
    let counts = stats.counts();
    assert_eq!((counts.list_requests, counts.list_failures), (1, 0));
}

#[tokio::test(start_paused = true)]
async fn a_list_whose_body_goes_silent_fails_as_stalled() {
    let stats = ReflectorStats::new();
    for Listed { through, result, .. } in list_through_each(Answer::SilentMidBody, &stats).await {
        let err = result.expect_err(through);
        assert_eq!(stalled_for(&err), Some(LIMIT), "{through}: {err:?}");
    }
    let counts = stats.counts();
    assert_eq!((counts.list_requests, counts.list_failures), (1, 1), "a failed list");
}

#[tokio::test(start_paused = true)]
async fn a_list_whose_response_never_comes_fails_as_stalled() {
    let stats = ReflectorStats::new();
    for Listed { through, result, .. } in list_through_each(Answer::Unanswered, &stats).await {
        let err = result.expect_err(through);
        assert_eq!(stalled_for(&err), Some(LIMIT), "{through}: {err:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn without_a_limit_a_silent_list_waits_as_plain_list_does() {
    let lw = ApiListerWatcher::new(Api::<Pod>::all(client(Answer::SilentMidBody)));
    let params = ListParams::default();
    let hour = Duration::from_secs(3600);
    assert!(tokio::time::timeout(hour, lw.list_page(&params, None)).await.is_err());
    assert!(tokio::time::timeout(hour, lw.list(&params)).await.is_err());
}

/// A lister-watcher that answers every list, whole, after `delay`: it does not read bodies
/// itself, so it keeps the default `list_page`.
struct Slow {
    delay: Duration,
}

impl ListerWatcher<Pod> for Slow {
    fn list<'a>(
        &'a self,
        _: &'a ListParams,
    ) -> BoxFuture<'a, Result<ObjectList<Pod>, kube::Error>> {
        Box::pin(async move {
            tokio::time::sleep(self.delay).await;
            Ok(page(vec![pod("a", "1")], "1", None))
        })
    }

    fn watch<'a>(
        &'a self,
        _: &'a WatchParams,
        _: &'a str,
    ) -> BoxFuture<'a, Result<WatchStream<Pod>, kube::Error>> {
        Box::pin(async { Ok(futures::stream::pending().boxed()) })
    }
}

#[tokio::test(start_paused = true)]
async fn the_default_list_page_limits_the_whole_call() {
    let slow = Slow { delay: LIMIT * 2 };
    let err = count_listed(&slow).await.expect_err("slower than the limit");
    assert_eq!(stalled_for(&err), Some(LIMIT));
    assert_eq!(count_listed(&Slow { delay: LIMIT / 2 }).await.ok(), Some(1));
}

#[tokio::test(start_paused = true)]
async fn a_stalled_list_is_reported_as_a_failed_list_and_relisted_after_the_backoff() {
    let lw = FakeListerWatcher::new()
        .unanswered_list()
        .list(Ok(page(vec![pod("a", "1")], "10", None)))
        .watch(WatchScript::Hang(vec![]));
    let h = Harness::start(lw, config());
    h.until("the watch", |h| h.lw.watches().len() == 1).await;

    assert_eq!(h.reported(), [Reported { kind: "list", code: None }], "one failed list");
    let lists = h.lw.lists();
    assert_eq!(lists.len(), 2);
    // Given up after the default 60 s of silence, then relisted after the 800 ms backoff.
    assert_eq!(lists[1].1 - lists[0].1, Duration::from_millis(60_800));
    assert_eq!(lists[1].0.resource_version, lists[0].0.resource_version, "the same list again");
    assert_eq!(h.store.ops(), [Op::Replace(vec!["a@1".into()], "10".into())]);
    h.stop().await;
}
