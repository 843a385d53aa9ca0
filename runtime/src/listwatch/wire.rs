//! The HTTP side of listing and watching: sending a request built by
//! [`kube::core::Request`], turning an error response into `kube::Error::Api` as
//! `kube::Client` does (but keeping the HTTP code when the body is not a `Status`),
//! handing a list body on as a stream of chunks, and splitting a watch body into lines.
//!
//! `kube::Client::request` holds a list body twice (`Bytes`, then a `String` copy) and
//! decodes it with `from_str` once all of it is in; here a list body is handed on chunk
//! by chunk as it arrives, so the caller decodes it during the transfer and never holds
//! it whole. Only the body of an error response is read into one buffer.

use std::{
    future::poll_fn,
    pin::Pin,
    task::{Poll, ready},
};

use bytes::Bytes;
use futures::Stream;
use http_body::Body as _;
use kube::{
    Client,
    client::Body,
    core::{Status, request::Error as RequestError},
};

use super::{gzip::BodyDecoding, skipped::SkippedObject};

/// The largest `Content-Length` trusted to pre-size the buffer of an error body; a larger
/// body still reads, growing the buffer as it arrives.
const MAX_PRESIZE: usize = 1 << 30;

/// An error of the byte stream of a watch or a list, carried by `kube::Error::ReadEvents`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WireError {
    /// The watch body ended (or its connection broke) in the middle of an event: the
    /// last line had no terminating newline (JSON), or the last frame was shorter than its
    /// length said (protobuf). The event is lost, so the reflector re-watches from the last
    /// resource version it applied.
    #[error(
        "the watch stream ended in the middle of an event ({bytes} bytes without a newline or of an unfinished frame)"
    )]
    TruncatedEvent {
        /// How many bytes of the unfinished line or frame had arrived.
        bytes: usize,
    },
    /// Nothing arrived for `idle` on a watch or a list, and its connection is presumed
    /// dead. On a watch: no event, no bookmark, perhaps not even its response, for longer
    /// than the server-side watch timeout plus the reflector's `watch_idle_margin`; the
    /// reflector re-watches from the last resource version it applied. On a list: no
    /// response, or no more of its body, for the reflector's `list_idle_timeout`; the
    /// reflector relists after a backoff.
    #[error("the connection went silent: nothing received for {idle:?}")]
    Stalled {
        /// How long the watch or list had been silent.
        idle: std::time::Duration,
    },
    /// A watch event (`ADDED`, `MODIFIED` or `DELETED`) whose object is valid JSON (or a
    /// valid protobuf message) but does not decode into the resource type. The stream goes on after it; the reflector skips
    /// the event, reports the object and drops it from the store (see
    /// [`ReflectorError::Undecodable`](crate::reflector::ReflectorError::Undecodable)).
    #[error("a {event} event carried an object that does not decode: {object}")]
    UndecodableObject {
        /// The event's type, as sent (`ADDED`, `MODIFIED` or `DELETED`).
        event: String,
        /// What is known of the object, without its contents.
        object: SkippedObject,
    },
}

impl WireError {
    /// The `WireError` among the causes of `err`, if any, looking inside the
    /// `std::io::Error` that carries it (whose `source` skips it).
    ///
    /// ```
    /// use kube_informers_runtime::listwatch::WireError;
    ///
    /// let io = std::io::Error::other(WireError::TruncatedEvent { bytes: 3 });
    /// let err = kube::Error::ReadEvents(io);
    /// assert!(matches!(WireError::find_in(&err), Some(WireError::TruncatedEvent { bytes: 3 })));
    /// ```
    pub fn find_in<'a>(err: &'a (dyn std::error::Error + 'static)) -> Option<&'a WireError> {
        causes(err).find_map(|cause| cause.downcast_ref::<WireError>())
    }
}

/// `err` and its causes, outermost first, including the error inside each
/// `std::io::Error` (whose `source` skips it).
pub(crate) fn causes<'a>(
    err: &'a (dyn std::error::Error + 'static),
) -> impl Iterator<Item = &'a (dyn std::error::Error + 'static)> {
    std::iter::successors(Some(err), |current| current.source()).flat_map(|current| {
        let inner = current.downcast_ref::<std::io::Error>().and_then(|io| io.get_ref());
        std::iter::once(current).chain(inner.map(|inner| inner as _))
    })
}

/// Sends `request` and returns the response if its status is a success; an error
/// status becomes `kube::Error::Api` with the `Status` of the body (or one made from its
/// text), as `kube::Client` reports it.
pub(crate) async fn send(
    client: &Client,
    request: Result<http::Request<Vec<u8>>, RequestError>,
    verb: &'static str,
) -> Result<http::Response<Body>, kube::Error> {
    let mut request = request.map_err(kube::Error::BuildRequest)?;
    request.extensions_mut().insert(verb);
    let response = client.send(request.map(Body::from)).await?;
    let code = response.status();
    tracing::trace!(verb, %code, "response received");
    if !(code.is_client_error() || code.is_server_error()) {
        return Ok(response);
    }
    // A request that accepts protobuf gets its error Status in protobuf too.
    let protobuf = super::protobuf::media::is_protobuf(response.headers());
    let body = read_body(response).await?;
    let status = if protobuf {
        super::protobuf::envelope::decode_status(&body).ok_or(())
    } else {
        serde_json::from_slice::<Status>(&body).map_err(drop)
    };
    let status = match status {
        // Any JSON object parses as a `Status` with every field defaulted. kube stops there
        // and reports code 0 with an empty message, losing both the HTTP code and the body
        // (a proxy's `{"error": ...}`); a real Status always carries its code.
        Ok(status) if status.code != 0 => status,
        _ => {
            let text = String::from_utf8_lossy(&body);
            Status::failure(text.trim(), "Failed to parse error data").with_code(code.as_u16())
        }
    };
    tracing::debug!(code = status.code, reason = %status.reason, "request failed");
    Err(kube::Error::Api(status.boxed()))
}

/// Reads the whole body (of an error response) into one buffer, pre-sized from
/// `Content-Length`, inflated if the server compressed it.
async fn read_body(response: http::Response<Body>) -> Result<Vec<u8>, kube::Error> {
    let mut encoding = BodyDecoding::of(response.headers())?;
    let expected = response
        .headers()
        .get(http::header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = response.into_body();
    let mut buffer = Vec::with_capacity(expected.min(MAX_PRESIZE));
    while let Some(frame) = poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
        if let Ok(data) = frame?.into_data() {
            encoding.feed(&data, &mut buffer)?;
        }
    }
    encoding.finish()?;
    Ok(buffer)
}

/// The data chunks of the body, each as it arrives (trailers are skipped).
pub(crate) fn data_chunks(
    response: http::Response<Body>,
) -> impl Stream<Item = Result<Bytes, kube::Error>> + Unpin {
    let mut body = response.into_body();
    futures::stream::poll_fn(move |cx| {
        loop {
            let Some(frame) = ready!(Pin::new(&mut body).poll_frame(cx)) else {
                return Poll::Ready(None);
            };
            match frame.map(http_body::Frame::into_data) {
                Ok(Ok(data)) => return Poll::Ready(Some(Ok(data))),
                Ok(Err(_trailers)) => {}
                Err(err) => return Poll::Ready(Some(Err(err))),
            }
        }
    })
}

/// How a watch body is split into events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Framing {
    /// JSON: one event a line.
    Lines,
    /// Protobuf: each event prefixed by its length, 4 bytes big-endian.
    LengthPrefixed,
}

/// Splits a watch body into events, each handed out as a borrowed slice: lines without
/// their newline (blank lines are skipped), or length-prefixed frames without their length.
pub(crate) struct LineReader {
    framing: Framing,
    body: Body,
    buffer: Vec<u8>,
    /// Where the next line starts in `buffer`.
    start: usize,
    /// How far past `start` is known to hold no newline.
    scanned: usize,
    ended: bool,
}

impl LineReader {
    pub(crate) fn new(response: http::Response<Body>, framing: Framing) -> Self {
        Self {
            framing,
            body: response.into_body(),
            buffer: Vec::new(),
            start: 0,
            scanned: 0,
            ended: false,
        }
    }

    /// The next non-blank line or the next frame; `None` at the end of the stream
    /// (including a transport EOF between events, which kube also treats as a normal end).
    pub(crate) async fn next_line(&mut self) -> Option<Result<&[u8], kube::Error>> {
        loop {
            if self.framing == Framing::LengthPrefixed {
                let unread = &self.buffer[self.start..];
                if let Some(head) = unread.first_chunk::<4>() {
                    let len = u32::from_be_bytes(*head) as usize;
                    if unread.len() - 4 >= len {
                        let frame = self.start + 4..self.start + 4 + len;
                        self.start = frame.end;
                        return Some(Ok(&self.buffer[frame]));
                    }
                }
                self.scanned = 0;
            }
            let unread = &self.buffer[self.start + self.scanned..];
            let lines = self.framing == Framing::Lines;
            if let Some(offset) = unread.iter().position(|b| *b == b'\n').filter(|_| lines) {
                let line_start = self.start;
                let line_end = self.start + self.scanned + offset;
                self.start = line_end + 1;
                self.scanned = 0;
                if self.buffer[line_start..line_end].iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                return Some(Ok(&self.buffer[line_start..line_end]));
            }
            self.scanned = if lines { self.buffer.len() - self.start } else { 0 };
            if self.ended {
                return self.finish();
            }
            // Only an unfinished line is left: move it to the front before reading more.
            if self.start > 0 {
                self.buffer.drain(..self.start);
                self.start = 0;
            }
            match poll_fn(|cx| Pin::new(&mut self.body).poll_frame(cx)).await {
                None => self.ended = true,
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.buffer.extend_from_slice(&data);
                    }
                }
                Some(Err(err)) if is_unexpected_eof(&err) => {
                    tracing::debug!("watch connection closed mid-stream");
                    self.ended = true;
                }
                Some(Err(err)) => {
                    self.ended = true;
                    self.buffer.clear();
                    self.start = 0;
                    self.scanned = 0;
                    return Some(Err(kube::Error::ReadEvents(std::io::Error::other(err))));
                }
            }
        }
    }

    /// The end of the body: nothing, or a typed error if an unfinished line is left.
    fn finish(&mut self) -> Option<Result<&[u8], kube::Error>> {
        let rest = &self.buffer[self.start..];
        let blank = match self.framing {
            Framing::Lines => rest.iter().all(u8::is_ascii_whitespace),
            Framing::LengthPrefixed => rest.is_empty(),
        };
        if blank {
            return None;
        }
        let bytes = rest.len();
        self.buffer.clear();
        self.start = 0;
        self.scanned = 0;
        Some(Err(kube::Error::ReadEvents(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            WireError::TruncatedEvent { bytes },
        ))))
    }
}

/// Whether a body error is the connection ending early (kube's rule: an
/// `UnexpectedEof` I/O error in the chain, or the chunked decoder's message).
fn is_unexpected_eof(err: &kube::Error) -> bool {
    let mut current: Option<&(dyn std::error::Error + 'static)> = Some(err);
    for _ in 0..16 {
        let Some(cause) = current else { break };
        if cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::UnexpectedEof)
        {
            return true;
        }
        current = cause.source();
    }
    err.to_string().contains("unexpected EOF during chunk")
}
