//! The reflector's error type and the classification of Kubernetes API failures.

use std::time::Duration;

use kube::core::Status;

use super::BoxError;
use crate::listwatch::SkippedObject;

/// Result alias for the reflector module.
pub type Result<T, E = ReflectorError> = std::result::Result<T, E>;

/// Which stage of the list-and-watch cycle an error interrupted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The (possibly paginated) list request.
    List,
    /// The watch request or its event stream.
    Watch,
    /// The streaming list (a watch with `sendInitialEvents=true`).
    StreamingList,
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Phase::List => "list",
            Phase::Watch => "watch",
            Phase::StreamingList => "streaming list",
        })
    }
}

/// The store operation that failed, carried by [`ReflectorError::Store`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreOperation {
    /// [`ReflectorStore::replace`](super::ReflectorStore::replace).
    Replace,
    /// [`ReflectorStore::add`](super::ReflectorStore::add).
    Add,
    /// [`ReflectorStore::update`](super::ReflectorStore::update).
    Update,
    /// [`ReflectorStore::delete`](super::ReflectorStore::delete).
    Delete,
    /// [`ReflectorStore::resync`](super::ReflectorStore::resync).
    Resync,
    /// [`ReflectorStore::forget`](super::ReflectorStore::forget).
    Forget,
}

impl std::fmt::Display for StoreOperation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StoreOperation::Replace => "replace",
            StoreOperation::Add => "add",
            StoreOperation::Update => "update",
            StoreOperation::Delete => "delete",
            StoreOperation::Resync => "resync",
            StoreOperation::Forget => "forget",
        })
    }
}

/// Every failure the reflector observes. Each one is logged and passed to the error
/// observer ([`Reflector::set_error_observer`](super::Reflector::set_error_observer)); those
/// that end a list-and-watch cycle also go to the watch-error handler (see
/// [`WatchErrorHandler`](super::WatchErrorHandler) for which). The reflector then recovers
/// on its own (re-watch, relist or back off).
///
/// The cause, when there is one, is available through [`std::error::Error::source`]
/// and is not repeated in the message.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReflectorError {
    /// A list request failed (transport error, a list silent past
    /// [`list_idle_timeout`](super::ReflectorConfig::list_idle_timeout), 403, 5xx,
    /// undecodable list...). The reflector backs off, then relists.
    #[error("list request failed")]
    List(#[source] kube::Error),

    /// A watch request could not be opened, or its stream failed (transport error,
    /// an `ERROR` event that is not 410, ...). Throttling, 5xx and transport errors
    /// are retried with backoff from the last resource version; others cause a relist.
    #[error("watch failed")]
    Watch(#[source] kube::Error),

    /// The resource version the reflector asked for is no longer available
    /// (`410 Gone` / `Expired`, or "resource version too large"). The reflector
    /// relists (or restreams) with `resourceVersion=""`, a consistent read.
    #[error("resource version expired during {phase}")]
    Expired {
        /// The stage that received the error.
        phase: Phase,
        /// The error from the API server.
        #[source]
        source: kube::Error,
    },

    /// An event of the watch stream could not be decoded into the resource type.
    /// The reflector relists; nothing already in the store is removed because of it.
    #[error("failed to decode a watch event")]
    Decode(#[source] kube::Error),

    /// The store rejected an operation. A failed `replace` or `resync` causes a relist;
    /// a failed `add`/`update`/`delete` is reported and the watch continues (as client-go).
    #[error("store {operation} failed")]
    Store {
        /// The operation that failed.
        operation: StoreOperation,
        /// The error returned by the store.
        #[source]
        source: BoxError,
    },

    /// The watch closed less than a second after it started without delivering any
    /// event; the reflector treats this as a failure and relists after a backoff.
    #[error("very short watch: closed after {elapsed:?} without any event")]
    VeryShortWatch {
        /// How long the watch lasted.
        elapsed: Duration,
    },

    /// A streaming list failed (a 5xx or an ERROR event, throttling, transport, a stall,
    /// decode). Throttling and unanswered requests are retried as a stream after a backoff;
    /// the rest fall back to a plain list for this cycle.
    #[error("streaming list failed")]
    StreamingList(#[source] kube::Error),

    /// The server refused the streaming-list request (a 4xx such as 400, 403 or 422).
    /// The reflector falls back to a plain list for this cycle and streams again at the
    /// next relist, as client-go does.
    #[error("server refused the streaming list; falling back to a plain list")]
    StreamingListRefused(#[source] kube::Error),

    /// The streaming list's stream ended, or ran past the watch idle limit, before the
    /// `k8s.io/initial-events-end` bookmark (a server or proxy that does not support
    /// streaming lists). The reflector falls back to a plain list for this cycle.
    #[error(
        "streaming list ended without the initial-events-end bookmark; falling back to a plain list"
    )]
    StreamingListIncomplete,

    /// Objects that do not decode into the resource type were skipped: reported once per
    /// list (plain or streaming) with every object that list skipped, and once per watch
    /// event. Every other object is kept and the reflector goes on; an object skipped by a
    /// watch event is removed from the store (as a relist without it would), and comes
    /// back with the first change that decodes. See [`SkippedObject`].
    #[error("skipped {} object(s) that do not decode: {}", .0.len(), DisplayList(.0))]
    Undecodable(Vec<SkippedObject>),
}

/// Up to three skipped objects, then how many more.
struct DisplayList<'a>(&'a [SkippedObject]);

impl std::fmt::Display for DisplayList<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, skipped) in self.0.iter().take(3).enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{skipped}")?;
        }
        if self.0.len() > 3 {
            write!(f, "; and {} more", self.0.len() - 3)?;
        }
        Ok(())
    }
}

impl ReflectorError {
    /// The HTTP status code of the API error behind this error, if any.
    pub fn status_code(&self) -> Option<u16> {
        match self {
            ReflectorError::List(e)
            | ReflectorError::Watch(e)
            | ReflectorError::Expired { source: e, .. }
            | ReflectorError::Decode(e)
            | ReflectorError::StreamingList(e)
            | ReflectorError::StreamingListRefused(e) => match e {
                kube::Error::Api(status) => Some(status.code),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether this error means the requested resource version is gone (410).
    pub fn is_expired(&self) -> bool {
        matches!(self, ReflectorError::Expired { .. })
    }
}

/// How the reflector reacts to a failed API call. A streaming list falls back to a plain
/// list where a list or watch would relist, and retries a transient failure only when its
/// request went unanswered (see `attempt.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Disposition {
    /// 410 Gone / Expired / resource version too large: relist (or restream) with `""`.
    Expired,
    /// 429: back off (at least `Retry-After`), then retry the same request.
    Throttled {
        /// The server's `Retry-After` hint, if any.
        retry_after: Option<Duration>,
    },
    /// 5xx or a transport failure: back off, then retry the same request.
    Transient,
    /// The response could not be decoded.
    Decode,
    /// Any other refusal (4xx such as 400, 403, 422): back off, then relist.
    Rejected,
}

impl Disposition {
    /// The minimum delay the server asked for.
    pub(crate) fn retry_after(self) -> Option<Duration> {
        match self {
            Disposition::Throttled { retry_after } => retry_after,
            _ => None,
        }
    }
}

/// Classifies a kube error the way client-go's reflector does
/// (`isExpiredError`, `isTooLargeResourceVersionError`, `IsTooManyRequests`, ...).
pub(crate) fn classify(err: &kube::Error) -> Disposition {
    match err {
        kube::Error::Api(status) => classify_status(status),
        kube::Error::SerdeError(_)
        | kube::Error::FromUtf8(_)
        | kube::Error::LinesCodecMaxLineLengthExceeded => Disposition::Decode,
        kube::Error::HyperError(_) | kube::Error::Service(_) | kube::Error::ReadEvents(_) => {
            Disposition::Transient
        }
        _ => Disposition::Rejected,
    }
}

/// Classifies a `Status` returned by the API server (HTTP error body or `ERROR` event).
pub(crate) fn classify_status(status: &Status) -> Disposition {
    if status.code == 410 || status.reason == "Expired" || status.reason == "Gone" {
        return Disposition::Expired;
    }
    if is_resource_version_too_large(status) {
        return Disposition::Expired;
    }
    match status.code {
        429 => Disposition::Throttled {
            retry_after: status
                .details
                .as_ref()
                .map(|d| d.retry_after_seconds)
                .filter(|secs| *secs > 0)
                .map(|secs| Duration::from_secs(u64::from(secs))),
        },
        500..=599 => Disposition::Transient,
        _ => Disposition::Rejected,
    }
}

/// client-go's `isTooLargeResourceVersionError`: the server has not caught up with the
/// resource version we asked for, which also calls for a consistent relist.
fn is_resource_version_too_large(status: &Status) -> bool {
    let cause = status.details.as_ref().is_some_and(|d| {
        d.causes.iter().any(|c| {
            c.reason == "ResourceVersionTooLarge" || c.message == "Too large resource version"
        })
    });
    cause || (status.code == 504 && status.message.contains("Too large resource version"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::core::response::{StatusCause, StatusDetails};

    fn status(code: u16, reason: &str) -> Status {
        Status { code, reason: reason.into(), ..Status::default() }
    }

    fn details() -> StatusDetails {
        StatusDetails {
            name: String::new(),
            group: String::new(),
            kind: String::new(),
            uid: String::new(),
            causes: Vec::new(),
            retry_after_seconds: 0,
        }
    }

    #[test]
    fn gone_and_expired_are_expired() {
        // client-go: reflector.go isExpiredError (IsResourceExpired || IsGone)
        assert_eq!(classify_status(&status(410, "Expired")), Disposition::Expired);
        assert_eq!(classify_status(&status(410, "Gone")), Disposition::Expired);
        assert_eq!(classify_status(&status(0, "Expired")), Disposition::Expired);
    }

    #[test]
    fn too_large_resource_version_is_expired() {
        // client-go: reflector_test.go TestReflectorFullListIfTooLarge (isTooLargeResourceVersionError)
        let mut s = status(504, "Timeout");
        s.details = Some(StatusDetails {
            causes: vec![StatusCause {
                reason: "ResourceVersionTooLarge".into(),
                message: String::new(),
                field: String::new(),
            }],
            ..details()
        });
        assert_eq!(classify_status(&s), Disposition::Expired);
        assert_eq!(classify_status(&status(504, "Timeout")), Disposition::Transient);
    }

    #[test]
    fn throttling_carries_retry_after() {
        let mut s = status(429, "TooManyRequests");
        s.details = Some(StatusDetails { retry_after_seconds: 7, ..details() });
        assert_eq!(
            classify_status(&s),
            Disposition::Throttled { retry_after: Some(Duration::from_secs(7)) }
        );
        assert_eq!(classify_status(&status(429, "TooManyRequests")).retry_after(), None);
    }

    #[test]
    fn server_errors_are_transient_and_refusals_rejected() {
        assert_eq!(classify_status(&status(500, "InternalError")), Disposition::Transient);
        assert_eq!(classify_status(&status(503, "ServiceUnavailable")), Disposition::Transient);
        assert_eq!(classify_status(&status(403, "Forbidden")), Disposition::Rejected);
        assert_eq!(classify_status(&status(400, "BadRequest")), Disposition::Rejected);
        let decode = kube::Error::SerdeError(serde_json::from_str::<u8>("x").unwrap_err());
        assert_eq!(classify(&decode), Disposition::Decode);
    }

    #[tokio::test(start_paused = true)]
    async fn a_stalled_request_is_a_transient_transport_error() {
        // A stalled watch is re-opened after a backoff, a stalled list retried after one.
        let silent = std::future::pending::<Result<(), kube::Error>>();
        let err =
            crate::listwatch::open_within(Some(Duration::from_secs(3)), silent).await.unwrap_err();
        assert_eq!(classify(&err), Disposition::Transient);
    }

    #[test]
    fn status_code_is_exposed() {
        let err = ReflectorError::List(kube::Error::Api(status(403, "Forbidden").boxed()));
        assert_eq!(err.status_code(), Some(403));
        assert!(!err.is_expired());
        assert_eq!(ReflectorError::StreamingListIncomplete.status_code(), None);
    }
}
