//! The protobuf media types: what a request accepts and how a response says it is
//! protobuf.

use super::types::Message;

/// The media type of protobuf bodies; a watch's is this with `;stream=watch`.
pub(crate) const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// The `Accept` header of a protobuf request: protobuf, else JSON (client-go's), so a
/// server or an aggregated API without protobuf answers JSON.
pub(crate) const ACCEPT: &str = "application/vnd.kubernetes.protobuf, application/json";

/// Whether a response's `Content-Type` is protobuf.
pub(crate) fn is_protobuf(headers: &http::HeaderMap) -> bool {
    headers.get(http::header::CONTENT_TYPE).and_then(|value| value.to_str().ok()).is_some_and(
        |value| value.split(';').next().is_some_and(|media| media.trim() == MEDIA_TYPE),
    )
}

/// Asks for protobuf, then JSON, when `protobuf` has the message of the objects.
pub(crate) fn accepting(
    request: Result<http::Request<Vec<u8>>, kube::core::request::Error>,
    protobuf: Option<&'static Message>,
) -> Result<http::Request<Vec<u8>>, kube::core::request::Error> {
    request.map(|mut request| {
        if protobuf.is_some() {
            request
                .headers_mut()
                .insert(http::header::ACCEPT, http::HeaderValue::from_static(ACCEPT));
        }
        request
    })
}
