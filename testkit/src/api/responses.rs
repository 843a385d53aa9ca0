//! HTTP answers: a verb's result, an error `Status` or an injected raw failure as the
//! response kube-apiserver would send.

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use http::{HeaderValue, StatusCode, header};
use serde_json::Value;

use crate::faults::RawFailure;
use crate::status::ApiError;

/// A JSON document.
pub(crate) fn json(code: StatusCode, value: &Value) -> Response {
    object(code, Bytes::from(serde_json::to_vec(value).unwrap_or_default()))
}

/// An already serialized JSON body (an object, a list, a Table).
pub(crate) fn object(code: StatusCode, body: Bytes) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = code;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A plain-text body (the health checks).
pub(crate) fn text(text: &'static str) -> Response {
    let mut response = Response::new(Body::from(text));
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    response
}

/// An error as its `Status`, with a `Retry-After` header when it has one.
pub(crate) fn error(err: ApiError) -> Response {
    let body = serde_json::to_vec(&err.to_status()).unwrap_or_default();
    let mut response = Response::new(Body::from(body));
    *response.status_mut() =
        StatusCode::from_u16(err.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if let Some(after) = err.retry_after
        && let Ok(v) = HeaderValue::from_str(&after.as_secs().max(1).to_string())
    {
        response.headers_mut().insert(header::RETRY_AFTER, v);
    }
    response
}

/// An injected non-Status failure: its status code, its `Content-Type` and its body as is.
pub(crate) fn raw_failure(raw: &RawFailure) -> Response {
    let mut response = Response::new(Body::from(raw.body.clone()));
    *response.status_mut() =
        StatusCode::from_u16(raw.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if let Ok(value) = HeaderValue::from_str(&raw.content_type) {
        response.headers_mut().insert(header::CONTENT_TYPE, value);
    }
    response
}
