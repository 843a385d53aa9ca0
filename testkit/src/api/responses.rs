//! HTTP answers: a verb's result, an error `Status` or an injected raw failure as the
//! response kube-apiserver would send.

use std::io::Write;
use std::time::Duration;

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use flate2::{Compression, write::GzEncoder};
use futures::StreamExt;
use http::{HeaderValue, StatusCode, header};
use serde_json::Value;

use crate::api::verbs::delete::Deleted;
use crate::api::verbs::list::ListPage;
use crate::api::verbs::patch::Patched;
use crate::api::verbs::watch::Watched;
use crate::faults::injected::{RawFailure, first_half_then_silence};
use crate::media::Representation;
use crate::object::StoredObject;
use crate::resources::ResourceInfo;
use crate::status::{ApiError, ApiResult};
use crate::table::IncludeObject;

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

/// `response` with its status line and headers, but only the first half of its body (see
/// [`Faults::hang_next_mid_body`](crate::Faults::hang_next_mid_body)).
pub(crate) fn silent_mid_body(response: Response) -> Response {
    let (mut parts, body) = response.into_parts();
    // The length of the whole body would let the client see the cut.
    parts.headers.remove(header::CONTENT_LENGTH);
    let body = Body::from_stream(first_half_then_silence(body.into_data_stream()));
    Response::from_parts(parts, body)
}

/// A get's answer: the object in the requested representation.
pub(crate) fn get(
    object: &StoredObject,
    representation: &Representation,
    include: IncludeObject,
) -> ApiResult<Response> {
    let body = crate::media::render_object(representation, object, include)?;
    Ok(self::object(StatusCode::OK, body))
}

/// The smallest answer kube-apiserver compresses (`defaultGzipThresholdBytes`).
const GZIP_THRESHOLD: usize = 128 * 1024;

/// A list's answer: the page in the requested representation, gzip-compressed (level 1,
/// as kube-apiserver) when `gzip` is accepted and the body is large enough; and whether it
/// was compressed.
pub(crate) fn list(
    info: &ResourceInfo,
    page: &ListPage,
    representation: &Representation,
    include: IncludeObject,
    gzip: bool,
) -> ApiResult<(Response, bool)> {
    let body = crate::media::render_list(
        representation,
        info,
        page.resource_version,
        page.continue_token.as_deref(),
        &page.items,
        &page.malformed,
        include,
    )?;
    if !gzip || body.len() < GZIP_THRESHOLD {
        return Ok((object(StatusCode::OK, body), false));
    }
    let mut encoder = GzEncoder::new(Vec::with_capacity(body.len() / 8), Compression::fast());
    encoder
        .write_all(&body)
        .and_then(|()| encoder.finish())
        .map(|compressed| {
            let mut response = object(StatusCode::OK, Bytes::from(compressed));
            response
                .headers_mut()
                .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            (response, true)
        })
        .map_err(|e| ApiError::new(500, "InternalError", format!("gzip: {e}")))
}

/// Whether a request accepts a gzip-compressed answer (`Accept-Encoding` names `gzip`
/// without `q=0`).
pub(crate) fn accepts_gzip(headers: &http::HeaderMap) -> bool {
    headers.get_all(header::ACCEPT_ENCODING).iter().filter_map(|v| v.to_str().ok()).any(|v| {
        v.split(',').any(|coding| {
            let mut parts = coding.split(';').map(str::trim);
            parts.next().is_some_and(|name| name.eq_ignore_ascii_case("gzip"))
                && parts.all(|param| param.replace(' ', "") != "q=0")
        })
    })
}

/// A watch's answer: 200 and a chunked body of event lines, written as the watch sends
/// them.
pub(crate) fn watch(watched: Watched) -> Response {
    let body = match watched {
        Watched::Nothing => Body::empty(),
        Watched::Line(line) => Body::from(line),
        Watched::Open(stream) => Body::from_stream((*stream).into_chunks().then(|chunk| async {
            if chunk.is_err() {
                // The watch was cut after half an event: let hyper flush that half (it drops
                // unflushed output when a body fails) before the error aborts the connection
                // (hyper then sends no final chunk).
                tokio::task::yield_now().await;
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            chunk
        })),
    };
    let mut response = Response::new(body);
    *response.status_mut() = StatusCode::OK;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A patch's answer: 201 when an apply created the object, 200 otherwise.
pub(crate) fn patched(patched: Patched) -> Response {
    match patched {
        Patched::Created(stored) => object(StatusCode::CREATED, stored.json()),
        Patched::Updated(stored) => object(StatusCode::OK, stored.json()),
    }
}

/// A DELETE's answer: the success `Status` when the object is gone, the object itself
/// when it is only terminating.
pub(crate) fn deleted(info: &ResourceInfo, name: &str, deleted: Deleted) -> Response {
    match deleted {
        Deleted::Removed(gone) => json(
            StatusCode::OK,
            &crate::status::delete_success(&info.group, &info.plural, name, &gone.meta.uid),
        ),
        Deleted::Terminating(terminating) => object(StatusCode::OK, terminating.json()),
    }
}

/// A deletecollection's answer: the deleted objects as a full list.
pub(crate) fn deleted_collection(info: &ResourceInfo, page: &ListPage) -> Response {
    let body = crate::media::full_list(
        info,
        page.resource_version,
        page.continue_token.as_deref(),
        &page.items,
        &page.malformed,
    );
    object(StatusCode::OK, body)
}
