//! What an injected fault answers with: an error `Status` ([`InjectedFailure`]), a body
//! that is not a `Status`, no answer at all, an answer that stops mid-body, or a malformed
//! object ([`Malformed`]).

use std::time::Duration;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use serde_json::json;

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
/// [`Faults::fail_next_with_body`](crate::Faults::fail_next_with_body)).
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
    /// No answer at all (see [`Faults::hang_next`](crate::Faults::hang_next)).
    NoAnswer,
    /// The answer's head and the first half of its body, then silence (see
    /// [`Faults::hang_next_mid_body`](crate::Faults::hang_next_mid_body)).
    SilentMidBody,
}

/// The first half of `body`'s first chunk (the whole body of a list or a get, the first
/// event of a watch), then nothing, ever: what a client reads from a connection that went
/// half-open mid-body. The rest of `body` is dropped unread.
pub(crate) fn first_half_then_silence<E: Send + 'static>(
    body: impl Stream<Item = Result<Bytes, E>> + Send + 'static,
) -> impl Stream<Item = Result<Bytes, E>> + Send + 'static {
    let first_half = async move {
        let mut body = std::pin::pin!(body);
        let first = body.next().await?;
        Some(first.map(|chunk| chunk.slice(..chunk.len().div_ceil(2))))
    };
    futures::stream::once(first_half)
        .filter_map(std::future::ready)
        .chain(futures::stream::pending())
}
