//! Fault injection: dropped and truncated watches, injected error statuses and non-Status
//! error bodies, latency, malformed and nameless objects, a deny list, and request counters.
//!
//! Reach it through [`TestApiServer::faults`](crate::TestApiServer::faults); the most used
//! faults also have shortcuts on the server itself.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use parking_lot::Mutex;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::api::state::Shared;
use crate::resources::ResourceInfo;
use crate::status::ApiError;

/// The error status an injected failure answers with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InjectedFailure {
    /// HTTP status code (e.g. 500, 429, 403).
    pub code: u16,
    /// `Retry-After` header (and `details.retryAfterSeconds`), if any.
    pub retry_after: Option<Duration>,
}

impl InjectedFailure {
    /// 500 InternalError.
    pub fn internal_error() -> Self {
        InjectedFailure { code: 500, retry_after: None }
    }

    /// 429 TooManyRequests with a `Retry-After` header.
    pub fn too_many_requests(retry_after: Duration) -> Self {
        InjectedFailure { code: 429, retry_after: Some(retry_after) }
    }

    /// 403 Forbidden.
    pub fn forbidden() -> Self {
        InjectedFailure { code: 403, retry_after: None }
    }

    pub(crate) fn to_api_error(&self, verb: &str, info: &ResourceInfo) -> ApiError {
        let mut err = match self.code {
            403 => ApiError::forbidden(verb, &info.group, &info.plural),
            429 => ApiError::new(
                429,
                "TooManyRequests",
                "the server has received too many requests; injected by testkit",
            ),
            503 => ApiError::new(
                503,
                "ServiceUnavailable",
                "the server is currently unable to handle the request; injected by testkit",
            ),
            504 => ApiError::new(
                504,
                "Timeout",
                "the server was unable to return a response in the time allotted; injected by testkit",
            ),
            410 => ApiError::expired("too old resource version; injected by testkit"),
            404 => ApiError::not_found(&info.group, &info.plural, "injected"),
            409 => ApiError::conflict(&info.group, &info.plural, "injected"),
            code => ApiError::new(
                code,
                "InternalError",
                "an error on the server (\"injected by testkit\") has prevented the request from succeeding",
            ),
        };
        err.retry_after = self.retry_after;
        err
    }
}

impl From<u16> for InjectedFailure {
    /// A bare status code; 429 gets a one-second `Retry-After`.
    fn from(code: u16) -> Self {
        let retry_after = (code == 429).then_some(Duration::from_secs(1));
        InjectedFailure { code, retry_after }
    }
}

/// How an injected object is broken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Malformed {
    /// A syntax error (not a truncation, which kube's watch decoder skips silently); a
    /// list containing it cannot be parsed at all.
    InvalidJson,
    /// Valid JSON with a wrongly typed field: `metadata.labels` is a string. Any typed
    /// decode (k8s-openapi or `DynamicObject`) fails on it.
    WrongType,
    /// A well-formed object of the resource's kind without `metadata.name` (its namespace
    /// is `default` for namespaced resources). It decodes fine; it just has no store key.
    /// kube-apiserver never sends one.
    MissingName,
}

impl Malformed {
    /// The injected object for a resource.
    pub(crate) fn object(self, info: &ResourceInfo, rv: u64, seq: u64) -> Bytes {
        match self {
            Malformed::InvalidJson => {
                Bytes::from_static(b"{\"metadata\":{\"name\":\"malformed\",\"labels\":{]}}")
            }
            Malformed::WrongType => {
                let namespace = match info.scope {
                    crate::Scope::Namespaced => json!("default"),
                    crate::Scope::Cluster => json!(null),
                };
                let object = json!({
                    "apiVersion": info.api_version(),
                    "kind": info.kind,
                    "metadata": {
                        "name": format!("malformed-{seq}"),
                        "namespace": namespace,
                        "resourceVersion": rv.to_string(),
                        "labels": "this-should-be-a-map",
                    },
                });
                Bytes::from(serde_json::to_vec(&object).unwrap_or_default())
            }
            Malformed::MissingName => {
                let mut metadata = json!({
                    "resourceVersion": rv.to_string(),
                    "uid": format!("nameless-{seq}"),
                    "labels": {"testkit.kube-informers.io/nameless": "true"},
                });
                if info.scope == crate::Scope::Namespaced {
                    metadata["namespace"] = json!("default");
                }
                let object = json!({
                    "apiVersion": info.api_version(),
                    "kind": info.kind,
                    "metadata": metadata,
                });
                Bytes::from(serde_json::to_vec(&object).unwrap_or_default())
            }
        }
    }
}

/// An injected error answer whose body is not a `Status` (see
/// [`Faults::fail_next_with_body`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RawFailure {
    pub(crate) code: u16,
    pub(crate) content_type: String,
    pub(crate) body: Bytes,
}

/// What a matching `fail_next` rule answers with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Injected {
    /// A `Status` error.
    Status(InjectedFailure),
    /// A raw, non-Status body.
    Raw(RawFailure),
    /// No answer at all (see [`Faults::hang_next`]).
    NoAnswer,
}

/// A pending `fail_next` rule.
#[derive(Debug)]
struct FailRule {
    verb: String,
    resource: String,
    remaining: u64,
    failure: Injected,
}

/// Shared fault state, consulted on every request.
#[derive(Debug, Default)]
pub(crate) struct FaultState {
    fail_rules: Mutex<Vec<FailRule>>,
    denied: Mutex<HashSet<String>>,
    latency: Mutex<Option<Duration>>,
    malformed_lists: Mutex<HashMap<String, VecDeque<Malformed>>>,
    counts: Mutex<HashMap<(String, String, String), u64>>,
    /// Cancelled to drop every open watch; replaced afterwards.
    watch_token: Mutex<CancellationToken>,
    /// Watch events still to send before every watch is dropped (0 = off).
    drop_after: AtomicU64,
    /// Resources whose next watch event is cut in the middle, one entry per pending cut.
    truncations: Mutex<Vec<String>>,
    malformed_seq: AtomicU64,
}

/// Whether a user-facing resource name (`pods`, `deployments.apps`, `*`) names `info`.
pub(crate) fn names_resource(name: &str, info: &ResourceInfo) -> bool {
    if name == "*" {
        return true;
    }
    match name.split_once('.') {
        Some((plural, group)) => plural == info.plural && group == info.group,
        None => name == info.plural,
    }
}

impl FaultState {
    pub(crate) fn latency(&self) -> Option<Duration> {
        *self.latency.lock()
    }

    pub(crate) fn count(&self, verb: &str, info: &ResourceInfo) {
        *self
            .counts
            .lock()
            .entry((verb.to_string(), info.group.clone(), info.plural.clone()))
            .or_default() += 1;
    }

    pub(crate) fn is_denied(&self, info: &ResourceInfo) -> bool {
        self.denied.lock().iter().any(|name| names_resource(name, info))
    }

    /// Consumes one matching `fail_next` rule, if any.
    pub(crate) fn take_failure(&self, verb: &str, info: &ResourceInfo) -> Option<Injected> {
        let mut rules = self.fail_rules.lock();
        let index = rules
            .iter()
            .position(|r| (r.verb == verb || r.verb == "*") && names_resource(&r.resource, info))?;
        let rule = &mut rules[index];
        rule.remaining -= 1;
        let failure = rule.failure.clone();
        if rule.remaining == 0 {
            rules.remove(index);
        }
        Some(failure)
    }

    pub(crate) fn take_malformed_list(&self, info: &ResourceInfo) -> Vec<Malformed> {
        let mut map = self.malformed_lists.lock();
        let mut taken = Vec::new();
        for (name, queue) in map.iter_mut() {
            if names_resource(name, info) {
                taken.extend(queue.drain(..));
            }
        }
        map.retain(|_, q| !q.is_empty());
        taken
    }

    pub(crate) fn next_malformed_seq(&self) -> u64 {
        self.malformed_seq.fetch_add(1, Ordering::Relaxed)
    }

    /// Consumes one pending `truncate_next_watch_event` of this resource, if any.
    pub(crate) fn take_truncation(&self, info: &ResourceInfo) -> bool {
        let mut pending = self.truncations.lock();
        match pending.iter().position(|name| names_resource(name, info)) {
            Some(index) => {
                pending.remove(index);
                true
            }
            None => false,
        }
    }

    /// The token a new watch listens on.
    pub(crate) fn watch_token(&self) -> CancellationToken {
        self.watch_token.lock().clone()
    }

    pub(crate) fn drop_watches(&self) {
        let old = std::mem::take(&mut *self.watch_token.lock());
        old.cancel();
    }

    /// Called after every watch event written; drops all watches when the budget runs out.
    pub(crate) fn on_watch_event(&self) {
        let result = self
            .drop_after
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n > 0).then(|| n - 1));
        if result == Ok(1) {
            self.drop_watches();
        }
    }
}

/// Fault injection handle, borrowed from a [`TestApiServer`](crate::TestApiServer).
///
/// ```no_run
/// # async fn demo() -> kube_informers_testkit::Result<()> {
/// use kube_informers_testkit::{InjectedFailure, TestApiServer};
/// let server = TestApiServer::start().await?;
/// server.faults().fail_next("list", "pods", 2, InjectedFailure::internal_error());
/// server.faults().drop_watches();
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Faults<'a> {
    pub(crate) shared: &'a Shared,
}

impl Faults<'_> {
    fn state(&self) -> &FaultState {
        &self.shared.faults
    }

    /// Ends every open watch now (the client sees the stream end, as when a connection to
    /// the apiserver drops).
    pub fn drop_watches(&self) {
        self.state().drop_watches();
    }

    /// Ends every open watch once `n` more watch events (of any watch, synthetic ADDED and
    /// BOOKMARKs included) have been written. One-shot; `0` cancels a pending drop.
    pub fn drop_watches_after(&self, n: u64) {
        self.state().drop_after.store(n, Ordering::SeqCst);
    }

    /// Answers the next `n` requests matching `verb` and `resource` with `failure`.
    ///
    /// `verb` is one of `list`, `watch`, `get`, `create`, `update`, `patch`, `delete`,
    /// `deletecollection`, or `*`. `resource` is a plural (`pods`), `plural.group`
    /// (`deployments.apps`) or `*`. `failure` is an [`InjectedFailure`] or a bare code
    /// (`500`, `429` with a one-second `Retry-After`, `403`, ...).
    pub fn fail_next(
        &self,
        verb: &str,
        resource: &str,
        n: u64,
        failure: impl Into<InjectedFailure>,
    ) {
        self.push_rule(verb, resource, n, Injected::Status(failure.into()));
    }

    /// Answers the next `n` requests matching `verb` and `resource` (as in
    /// [`fail_next`](Self::fail_next)) with HTTP status `code` and a body that is not a
    /// `metav1.Status`, sent as is with `Content-Type: content_type`: what a proxy, a load
    /// balancer or a broken aggregated API server in front of kube-apiserver answers.
    ///
    /// ```no_run
    /// # async fn demo() -> kube_informers_testkit::Result<()> {
    /// use kube_informers_testkit::TestApiServer;
    /// let server = TestApiServer::start().await?;
    /// // An HTML 502 from an ingress proxy on the next list of pods.
    /// server.faults().fail_next_with_body(
    ///     "list", "pods", 1, 502, "text/html",
    ///     "<html><body><h1>502 Bad Gateway</h1></body></html>",
    /// );
    /// // A plain-text 503 on the next watch, and a 500 whose JSON body is not a Status.
    /// server.faults().fail_next_with_body("watch", "pods", 1, 503, "text/plain", "upstream connect error");
    /// server.faults().fail_next_with_body("list", "pods", 1, 500, "application/json", r#"{"error":"boom"}"#);
    /// # Ok(()) }
    /// ```
    pub fn fail_next_with_body(
        &self,
        verb: &str,
        resource: &str,
        n: u64,
        code: u16,
        content_type: &str,
        body: impl Into<Bytes>,
    ) {
        let raw = RawFailure { code, content_type: content_type.to_string(), body: body.into() };
        self.push_rule(verb, resource, n, Injected::Raw(raw));
    }

    /// Leaves the next `n` requests matching `verb` and `resource` (as in
    /// [`fail_next`](Self::fail_next)) without any answer: the server reads each request,
    /// then sends nothing (not even a status line) and keeps the connection open until it
    /// restarts or shuts down. This is what a client sees over a half-open TCP connection,
    /// when the peer vanished without a FIN or RST: no data, no error, no end.
    ///
    /// ```no_run
    /// # async fn demo() -> kube_informers_testkit::Result<()> {
    /// use kube_informers_testkit::TestApiServer;
    /// let server = TestApiServer::start().await?;
    /// server.faults().hang_next("watch", "pods", 1);
    /// # Ok(()) }
    /// ```
    pub fn hang_next(&self, verb: &str, resource: &str, n: u64) {
        self.push_rule(verb, resource, n, Injected::NoAnswer);
    }

    fn push_rule(&self, verb: &str, resource: &str, n: u64, failure: Injected) {
        if n == 0 {
            return;
        }
        self.state().fail_rules.lock().push(FailRule {
            verb: verb.to_string(),
            resource: resource.to_string(),
            remaining: n,
            failure,
        });
    }

    /// Cuts the next object event (ADDED, MODIFIED or DELETED; not a BOOKMARK) written on a
    /// watch of `resource` in the middle of its line: the watch sends the first half of the
    /// event's JSON, then its connection is aborted (no final chunk), like a connection lost
    /// mid-event. If no watch of `resource` is open, the next one opened gets the cut. Each
    /// call queues one cut. The event is not lost on the server: a watch resumed from the
    /// last resourceVersion the client saw gets it again.
    pub fn truncate_next_watch_event(&self, resource: &str) {
        self.state().truncations.lock().push(resource.to_string());
    }

    /// How many [`truncate_next_watch_event`](Self::truncate_next_watch_event) cuts are
    /// still pending (0 once every one has hit a watch).
    pub fn pending_truncations(&self) -> usize {
        self.state().truncations.lock().len()
    }

    /// Forgets every pending [`truncate_next_watch_event`](Self::truncate_next_watch_event).
    pub fn clear_truncations(&self) {
        self.state().truncations.lock().clear();
    }

    /// Removes every pending `fail_next`, `fail_next_with_body` and `hang_next` rule.
    pub fn clear_failures(&self) {
        self.state().fail_rules.lock().clear();
    }

    /// Delays every request by `latency` before it is handled (`None` to stop).
    pub fn set_latency(&self, latency: Option<Duration>) {
        *self.state().latency.lock() = latency;
    }

    /// Answers every request for `resource` (plural, `plural.group` or `*`) with 403
    /// Forbidden until [`allow`](Self::allow) is called, like missing RBAC permissions.
    pub fn deny(&self, resource: &str) {
        self.state().denied.lock().insert(resource.to_string());
    }

    /// Lifts a [`deny`](Self::deny).
    pub fn allow(&self, resource: &str) {
        self.state().denied.lock().remove(resource);
    }

    /// Adds one malformed item to the next list response of `resource`.
    pub fn malformed_in_next_list(&self, resource: &str, malformed: Malformed) {
        self.state()
            .malformed_lists
            .lock()
            .entry(resource.to_string())
            .or_default()
            .push_back(malformed);
    }

    /// Sends an ADDED event carrying a malformed object to every open watch of `resource`
    /// now; returns how many watches received it (0 if the resource is unknown).
    pub fn malformed_in_watch(&self, resource: &str, malformed: Malformed) -> usize {
        let Some(info) = self.shared.registry.find(resource) else { return 0 };
        let mut store = self.shared.store.lock();
        let rv = store.current_rv();
        let object = malformed.object(&info, rv, self.state().next_malformed_seq());
        let mut line = Vec::with_capacity(object.len() + 32);
        line.extend_from_slice(b"{\"type\":\"ADDED\",\"object\":");
        line.extend_from_slice(&object);
        line.extend_from_slice(b"}\n");
        store.send_raw(&info.group_resource(), Bytes::from(line))
    }

    /// Adds an object without `metadata.name` ([`Malformed::MissingName`]) to the next list
    /// response of `resource`.
    pub fn nameless_in_next_list(&self, resource: &str) {
        self.malformed_in_next_list(resource, Malformed::MissingName);
    }

    /// Sends an ADDED event carrying an object without `metadata.name`
    /// ([`Malformed::MissingName`]) to every open watch of `resource` now; returns how many
    /// watches received it.
    pub fn nameless_in_watch(&self, resource: &str) -> usize {
        self.malformed_in_watch(resource, Malformed::MissingName)
    }

    /// Drops the whole event history: watches and continue tokens from older RVs get
    /// 410 Expired.
    pub fn compact(&self) {
        self.shared.store.lock().compact();
    }

    /// Requests received so far for `verb` on `resource` (plural, `plural.group` or `*`),
    /// counted before any fault is applied.
    pub fn request_count(&self, verb: &str, resource: &str) -> u64 {
        self.state()
            .counts
            .lock()
            .iter()
            .filter(|((v, group, plural), _)| {
                (v == verb || verb == "*")
                    && match resource.split_once('.') {
                        _ if resource == "*" => true,
                        Some((p, g)) => p == plural && g == group,
                        None => resource == plural,
                    }
            })
            .map(|(_, n)| n)
            .sum()
    }

    /// Resets every request counter to zero.
    pub fn reset_request_counts(&self) {
        self.state().counts.lock().clear();
    }
}
