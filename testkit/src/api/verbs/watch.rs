//! The watch verb: newline-delimited JSON events (initial state, changes, bookmarks),
//! filtered the way the watch cache filters them, until the watch ends.

use std::collections::{HashMap, VecDeque};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use serde_json::json;
use tokio::sync::mpsc;
use tokio::time::{Instant, Interval, MissedTickBehavior, Sleep};
use tokio_util::sync::CancellationToken;

use crate::api::state::Shared;
use crate::api::target::Target;
use crate::api::verbs::list::{Filter, parse_rv};
use crate::media::Representation;
use crate::object::StoredObject;
use crate::resources::ResourceInfo;
use crate::status::{ApiError, ApiResult};
use crate::store::{EventType, WatchMsg, WatchStart};
use crate::table::IncludeObject;

/// The annotation marking the end of a streaming list's initial events.
const INITIAL_EVENTS_END: &str = "k8s.io/initial-events-end";

/// Something queued for output.
enum Out {
    Msg(WatchMsg),
    Bookmark { rv: u64, initial_end: bool },
}

/// What a watch request opened.
pub(crate) enum Watched {
    /// No event: the stream ends at once (a list representation fits no event).
    Nothing,
    /// One ERROR event line, then the end (the resourceVersion is too old).
    Line(Bytes),
    /// A watch whose events follow until it ends.
    Open(Box<WatchStream>),
}

/// The watch verb: the events of the target's objects from the resourceVersion the
/// query asks for, rendered in `representation`; the watch ends when `token` is
/// cancelled, the query's timeout passes or the store closes it.
pub(crate) fn watch(
    shared: &Arc<Shared>,
    target: &Target,
    query: &HashMap<String, String>,
    representation: &Representation,
    token: CancellationToken,
) -> ApiResult<Watched> {
    let info = target.info.clone();
    let include = IncludeObject::from_query(query)?;
    let filter = Filter::from_query(query)?;
    let bookmarks = query.get("allowWatchBookmarks").is_some_and(|v| v == "true" || v == "1");
    let send_initial = query.get("sendInitialEvents").map(String::as_str);
    let rv = query.get("resourceVersion").map_or("", String::as_str);
    let rv_match = query.get("resourceVersionMatch").map_or("", String::as_str);
    let timeout = match query.get("timeoutSeconds").map(String::as_str) {
        None | Some("") | Some("0") => None,
        Some(t) => Some(Duration::from_secs(
            t.parse()
                .map_err(|_| ApiError::bad_request(format!("invalid timeoutSeconds {t:?}")))?,
        )),
    };
    if send_initial.is_some() && rv_match != "NotOlderThan" {
        return Err(ApiError::new(
            422,
            "Invalid",
            "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
        ));
    }
    let streaming = match send_initial {
        Some("true") => {
            if !bookmarks {
                return Err(ApiError::new(
                    422,
                    "Invalid",
                    "sendInitialEvents: Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true",
                ));
            }
            true
        }
        Some("false") | None => false,
        Some(other) => {
            return Err(ApiError::bad_request(format!("invalid sendInitialEvents {other:?}")));
        }
    };
    let start = match rv {
        _ if streaming => WatchStart::CurrentState,
        "" | "0" => WatchStart::CurrentState,
        rv => WatchStart::After(parse_rv(rv)?),
    };
    // Like the watch cache's watchers, no event at or below the requested RV is sent: a
    // watch from an RV newer than the store's waits silently until events pass it.
    let min_rv = match start {
        WatchStart::After(rv) => rv,
        WatchStart::CurrentState => 0,
    };
    let mut queue = VecDeque::new();
    let registered = {
        let mut store = shared.store.lock();
        let current = store.current_rv();
        if streaming && !rv.is_empty() && parse_rv(rv)? > current {
            return Err(ApiError::too_large_rv());
        }
        store.watch(&info.group_resource(), target.namespace.as_deref(), start).map(
            |(initial, rx)| {
                queue.extend(initial.into_iter().map(Out::Msg));
                // Since 1.34 the watch cache ends the initial ADDED events of a watch from
                // ""/"0" with the same bookmark as a streaming list, when bookmarks are on.
                let endless = streaming && shared.faults.take_endless_initial_events(&info);
                if (streaming || (bookmarks && start == WatchStart::CurrentState)) && !endless {
                    queue.push_back(Out::Bookmark { rv: current, initial_end: true });
                }
                rx
            },
        )
    };
    if matches!(representation, Representation::MetadataList { .. }) {
        // kube-apiserver answers 200 and ends the stream at once: a list type fits no event.
        return Ok(Watched::Nothing);
    }
    let rx = match registered {
        Ok(rx) => rx,
        Err(err) => {
            // The apiserver answers a too-old watch with 200 and one ERROR event.
            let line =
                event_line("ERROR", &serde_json::to_vec(&err.to_status()).unwrap_or_default());
            shared.faults.on_watch_event();
            return Ok(Watched::Line(line));
        }
    };
    let id = NEXT_WATCH_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    tracing::debug!(
        watch = id,
        resource = %info.plural,
        resource_version = rv,
        selector = query.get("labelSelector").map_or("", String::as_str),
        "watch opened"
    );
    let interval = shared.bookmark_interval;
    let mut ticker = tokio::time::interval_at(Instant::now() + interval, interval);
    ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let state = WatchStream {
        shared: shared.clone(),
        info,
        namespace: target.namespace.clone(),
        filter,
        queue,
        rx,
        ticker: bookmarks.then_some(ticker),
        representation: representation.clone(),
        include,
        min_rv,
        deadline: timeout.map(|t| Box::pin(tokio::time::sleep(t))),
        token,
        cut: false,
        id,
        written: 0,
    };
    Ok(Watched::Open(Box::new(state)))
}

/// One watch event as a line: `{"type":kind,"object":object}` and a newline.
pub(crate) fn event_line(kind: &str, object: &[u8]) -> Bytes {
    let mut line = Vec::with_capacity(object.len() + 32);
    line.extend_from_slice(b"{\"type\":\"");
    line.extend_from_slice(kind.as_bytes());
    line.extend_from_slice(b"\",\"object\":");
    line.extend_from_slice(object);
    line.extend_from_slice(b"}\n");
    Bytes::from(line)
}

/// Why a watch woke up.
enum Wake {
    Stop,
    Msg(WatchMsg),
    Bookmark,
}

/// One open watch.
pub(crate) struct WatchStream {
    shared: Arc<Shared>,
    info: Arc<ResourceInfo>,
    namespace: Option<String>,
    filter: Filter,
    queue: VecDeque<Out>,
    rx: mpsc::UnboundedReceiver<WatchMsg>,
    ticker: Option<Interval>,
    /// How objects are written (full, metadata only, Table).
    representation: Representation,
    /// `includeObject` for Table rows.
    include: IncludeObject,
    /// The watch's start RV: events at or below it and bookmarks below it are not sent.
    min_rv: u64,
    deadline: Option<Pin<Box<Sleep>>>,
    token: CancellationToken,
    /// The last chunk was a truncated event: the next poll aborts the connection.
    cut: bool,
    /// For debug logs.
    id: u64,
    /// Lines written so far.
    written: u64,
}

/// Numbers watches in debug logs.
static NEXT_WATCH_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Drop for WatchStream {
    fn drop(&mut self) {
        tracing::debug!(watch = self.id, lines = self.written, "watch ended");
    }
}

impl WatchStream {
    /// The watch's output, one chunk per event line. After a truncated event comes an
    /// error: the watch is cut there, and its connection must end without a final chunk.
    pub(crate) fn into_chunks(
        self,
    ) -> impl futures::Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static {
        futures::stream::unfold(self, |mut state| async move {
            if state.cut {
                // Half an event was written: nothing follows it.
                state.cut = false;
                state.queue.clear();
                state.token = CancellationToken::new();
                state.token.cancel();
                let err = std::io::Error::new(
                    std::io::ErrorKind::ConnectionAborted,
                    "watch cut in the middle of an event by testkit",
                );
                return Some((Err(err), state));
            }
            let chunk = state.next_chunk().await?;
            state.written += 1;
            state.shared.faults.on_watch_event();
            Some((Ok(chunk), state))
        })
    }

    async fn next_chunk(&mut self) -> Option<Bytes> {
        loop {
            if self.token.is_cancelled() {
                return None;
            }
            if let Some(out) = self.queue.pop_front() {
                let is_object_event =
                    matches!(out, Out::Msg(WatchMsg::Initial(_) | WatchMsg::Event(_)));
                match self.render(out) {
                    Some(line)
                        if is_object_event && self.shared.faults.take_truncation(&self.info) =>
                    {
                        self.cut = true;
                        return Some(line.slice(..line.len() / 2));
                    }
                    Some(line) => return Some(line),
                    None => continue,
                }
            }
            let Self { rx, ticker, deadline, token, .. } = self;
            let deadline = async {
                match deadline.as_mut() {
                    Some(d) => d.as_mut().await,
                    None => std::future::pending().await,
                }
            };
            let tick = async {
                match ticker.as_mut() {
                    Some(t) => {
                        t.tick().await;
                    }
                    None => std::future::pending().await,
                }
            };
            let wake = tokio::select! {
                biased;
                _ = token.cancelled() => Wake::Stop,
                _ = deadline => Wake::Stop,
                msg = rx.recv() => msg.map_or(Wake::Stop, Wake::Msg),
                _ = tick => Wake::Bookmark,
            };
            match wake {
                Wake::Stop => return None,
                Wake::Msg(msg) => self.queue.push_back(Out::Msg(msg)),
                Wake::Bookmark => {
                    // Every event at or below the current RV is already in the channel, so
                    // draining it first keeps the bookmark after the events it covers.
                    let store = self.shared.store.lock();
                    let rv = store.current_rv();
                    while let Ok(msg) = self.rx.try_recv() {
                        self.queue.push_back(Out::Msg(msg));
                    }
                    drop(store);
                    self.queue.push_back(Out::Bookmark { rv, initial_end: false });
                }
            }
        }
    }

    fn in_scope(&self, object: &StoredObject) -> bool {
        self.namespace.as_deref().is_none_or(|ns| object.meta.namespace == ns)
    }

    /// Renders one queued item, applying namespace and selector filters the way the
    /// watch cache does: an object that starts or stops matching is ADDED or DELETED.
    fn render(&self, out: Out) -> Option<Bytes> {
        // The watch cache sends events newer than the watch's RV, and bookmarks not older.
        let too_old = match &out {
            Out::Bookmark { rv, .. } => *rv < self.min_rv,
            Out::Msg(WatchMsg::Event(event)) => event.rv <= self.min_rv,
            Out::Msg(_) => false,
        };
        if too_old {
            return None;
        }
        match out {
            Out::Bookmark { rv, initial_end } => {
                let mut metadata =
                    json!({"resourceVersion": rv.to_string(), "creationTimestamp": null});
                if initial_end {
                    metadata["annotations"] = json!({INITIAL_EVENTS_END: "true"});
                }
                let (kind, api_version) = match &self.representation {
                    Representation::Metadata { version } => {
                        ("PartialObjectMetadata".to_string(), format!("meta.k8s.io/{version}"))
                    }
                    _ => (self.info.kind.clone(), self.info.api_version()),
                };
                let object = json!({"kind": kind, "apiVersion": api_version, "metadata": metadata});
                Some(event_line("BOOKMARK", &serde_json::to_vec(&object).unwrap_or_default()))
            }
            Out::Msg(WatchMsg::Raw(line)) => Some(line),
            Out::Msg(WatchMsg::Initial(object)) => (self.in_scope(&object)
                && self.filter.matches(&object))
            .then(|| event_line("ADDED", &self.object_json(&object))),
            Out::Msg(WatchMsg::Event(event)) => {
                if !self.in_scope(&event.object) {
                    return None;
                }
                let now = self.filter.matches(&event.object);
                let kind = match event.kind {
                    EventType::Modified if !self.filter.is_empty() => {
                        let before = event.prev.as_ref().is_some_and(|p| self.filter.matches(p));
                        match (before, now) {
                            (true, true) => EventType::Modified,
                            (false, true) => EventType::Added,
                            (true, false) => EventType::Deleted,
                            (false, false) => return None,
                        }
                    }
                    kind if now => kind,
                    _ => return None,
                };
                Some(event_line(kind.as_str(), &self.object_json(&event.object)))
            }
        }
    }

    /// An event's object in the requested representation.
    fn object_json(&self, object: &StoredObject) -> Bytes {
        crate::media::render_object(&self.representation, object, self.include).unwrap_or_else(
            |err| Bytes::from(serde_json::to_vec(&err.to_status()).unwrap_or_default()),
        )
    }
}
