//! The [`Faults`] handle a test sets faults through.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::Duration;

use bytes::Bytes;

use crate::api::state::Shared;
use crate::api::verbs::watch::event_line;
use crate::faults::injected::{Injected, InjectedFailure, Malformed, RawFailure};
use crate::faults::state::{FailRule, FaultState};

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

    /// Answers the next `n` requests matching `verb` and `resource` (as in
    /// [`fail_next`](Self::fail_next)) in part, then goes silent: the status line, the
    /// headers and the first half of the body are sent (of a list, half its bytes, so the
    /// cut falls among its items; of a watch, half of its first event), then nothing more,
    /// while the connection stays open until the server restarts or shuts down. This is a
    /// connection that went half-open in the middle of a response: the client has its
    /// answer's head and is left waiting for the rest. A request the verb refuses (an error
    /// `Status`) is answered whole, using up the rule all the same.
    ///
    /// ```no_run
    /// # async fn demo() -> kube_informers_testkit::Result<()> {
    /// use kube_informers_testkit::TestApiServer;
    /// let server = TestApiServer::start().await?;
    /// server.seed().config_maps("apps", 3)?;
    /// // The next list of ConfigMaps stops after half its body.
    /// server.faults().hang_next_mid_body("list", "configmaps", 1);
    /// # Ok(()) }
    /// ```
    pub fn hang_next_mid_body(&self, verb: &str, resource: &str, n: u64) {
        self.push_rule(verb, resource, n, Injected::SilentMidBody);
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

    /// Removes every pending `fail_next`, `fail_next_with_body`, `hang_next` and
    /// `hang_next_mid_body` rule, and every pending `drop_next_initial_events_end`.
    pub fn clear_failures(&self) {
        self.state().fail_rules.lock().clear();
        self.state().endless_initial_events.lock().clear();
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
        store.send_raw(&info.group_resource(), event_line("ADDED", &object))
    }

    /// Sends an `ERROR` event carrying `failure`'s Status to every open watch of `resource`
    /// now, in the middle of its stream (kube-apiserver sends one, then ends the watch, for
    /// an expired resource version or an internal error; here the stream stays open, so the
    /// client must end it); returns how many watches received it.
    ///
    /// ```no_run
    /// # async fn demo() -> kube_informers_testkit::Result<()> {
    /// use kube_informers_testkit::{InjectedFailure, TestApiServer};
    /// let server = TestApiServer::start().await?;
    /// server.faults().error_event_in_watch("configmaps", InjectedFailure::internal_error());
    /// # Ok(()) }
    /// ```
    pub fn error_event_in_watch(&self, resource: &str, failure: InjectedFailure) -> usize {
        let Some(info) = self.shared.registry.find(resource) else { return 0 };
        let status = failure.to_api_error("watch", &info).to_status();
        let line = event_line("ERROR", &serde_json::to_vec(&status).unwrap_or_default());
        self.shared.store.lock().send_raw(&info.group_resource(), line)
    }

    /// The next streaming list (`sendInitialEvents=true`) of `resource` sends its initial
    /// events but not the `k8s.io/initial-events-end` bookmark that ends them, as a proxy
    /// that drops it does (k9s #4186); the stream otherwise goes on (events, bookmarks).
    /// Each call affects one streaming list.
    ///
    /// ```no_run
    /// # async fn demo() -> kube_informers_testkit::Result<()> {
    /// use kube_informers_testkit::TestApiServer;
    /// let server = TestApiServer::start().await?;
    /// server.faults().drop_next_initial_events_end("configmaps");
    /// # Ok(()) }
    /// ```
    pub fn drop_next_initial_events_end(&self, resource: &str) {
        self.state().endless_initial_events.lock().push(resource.to_string());
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
        sum_counts(&self.state().counts.lock(), verb, resource)
    }

    /// Answers sent gzip-compressed so far for `verb` on `resource` (as
    /// [`request_count`](Self::request_count) names them). As kube-apiserver, the server
    /// compresses a list answer of 128 KiB or more when the request accepts gzip.
    pub fn compressed_count(&self, verb: &str, resource: &str) -> u64 {
        sum_counts(&self.state().compressed.lock(), verb, resource)
    }

    /// Resets every request counter to zero.
    pub fn reset_request_counts(&self) {
        self.state().counts.lock().clear();
        self.state().compressed.lock().clear();
    }
}

/// The counts of `verb` (or `*`) on `resource` (plural, `plural.group` or `*`).
fn sum_counts(counts: &HashMap<(String, String, String), u64>, verb: &str, resource: &str) -> u64 {
    counts
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
