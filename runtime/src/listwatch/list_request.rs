//! One list request: sent, then its body decoded while it arrives, in JSON or protobuf as
//! its `Content-Type` says, inflated first when it comes gzip-compressed.

use std::time::Duration;

use kube::{Client, core::ObjectList};
use serde::de::DeserializeOwned;

use super::{
    gzip::{BodyDecoding, PlainSink},
    idle::{IdleLimit, open_within},
    item::DecodeOptions,
    list_stream::ListDecoder,
    lister_watcher::ListPage,
    protobuf::{self, Message, ProtoListDecoder, accepting},
    skipped::SkippedObject,
    wire,
};

/// A list body's decoder, for the body's media type.
enum Decoder<T> {
    Json(ListDecoder<T>),
    Protobuf(ProtoListDecoder<T>),
}

impl<T: Clone + DeserializeOwned + 'static> Decoder<T> {
    fn buffer(&mut self) -> &mut Vec<u8> {
        match self {
            Decoder::Json(decoder) => decoder.buffer(),
            Decoder::Protobuf(decoder) => decoder.buffer(),
        }
    }

    fn appended(&mut self) -> serde_json::Result<()> {
        match self {
            Decoder::Json(decoder) => decoder.appended(),
            Decoder::Protobuf(decoder) => decoder.appended(),
        }
    }

    fn drain_items(&mut self, each: &mut (dyn FnMut(T) + Send)) {
        match self {
            Decoder::Json(decoder) => decoder.drain_items(each),
            Decoder::Protobuf(decoder) => decoder.drain_items(each),
        }
    }

    fn finish(self) -> serde_json::Result<(ObjectList<T>, Vec<SkippedObject>)> {
        match self {
            Decoder::Json(decoder) => decoder.finish(),
            Decoder::Protobuf(decoder) => decoder.finish(),
        }
    }
}

/// The list decoder as the body's [`PlainSink`]: the plain bytes go straight into its
/// buffer, and each item it completes to `each`.
struct Feed<'d, 'e, T> {
    decoder: &'d mut Decoder<T>,
    each: &'e mut (dyn FnMut(T) + Send),
    /// Plain bytes so far.
    decoded: usize,
}

impl<T: Clone + DeserializeOwned + 'static> PlainSink for Feed<'_, '_, T> {
    fn buffer(&mut self) -> &mut Vec<u8> {
        self.decoder.buffer()
    }

    fn appended(&mut self, bytes: usize) -> Result<(), kube::Error> {
        self.decoded += bytes;
        self.decoder.appended().map_err(kube::Error::SerdeError)?;
        self.decoder.drain_items(self.each);
        Ok(())
    }
}

/// Decoded body bytes after which a list gives its caller a chance to run (about 25 Pods).
const YIELD_EVERY: usize = 256 * 1024;

/// Sends a list request and decodes its body as it arrives (in protobuf when `protobuf`
/// is set and the server answers in it), handing each item to `each` once decoded and
/// skipping undecodable ones; the page returned has no items. A gzip body is inflated
/// while it arrives.
/// With an `idle_limit`, the response head must come within it, then each chunk of the
/// body within it of the one before (the decoding in between does not count).
/// After every `YIELD_EVERY` bytes of decoded body it yields, so that a caller pacing the
/// list (`reflector::Paced`) gets to look between chunks that arrive back to back.
pub(crate) async fn list_objects<T>(
    client: &Client,
    request: Result<http::Request<Vec<u8>>, kube::core::request::Error>,
    decode: DecodeOptions,
    protobuf: Option<&'static Message>,
    idle_limit: Option<Duration>,
    each: &mut (dyn FnMut(T) + Send),
) -> Result<ListPage<T>, kube::Error>
where
    T: Clone + DeserializeOwned + 'static,
{
    let request = accepting(request, protobuf);
    let response = open_within(idle_limit, wire::send(client, request, "list")).await?;
    let mut decoder = match protobuf {
        Some(message) if protobuf::is_protobuf(response.headers()) => {
            Decoder::Protobuf(ProtoListDecoder::new(decode, message))
        }
        _ => Decoder::Json(ListDecoder::new(decode)),
    };
    let mut encoding = BodyDecoding::of(response.headers())?;
    let mut chunks = wire::data_chunks(response);
    let mut idle = IdleLimit::new(idle_limit);
    let mut feed = Feed { decoder: &mut decoder, each, decoded: 0 };
    let mut yielded_at = 0;
    while let Some(chunk) = idle.next(&mut chunks).await {
        encoding.feed(&chunk?, &mut feed)?;
        let now = feed.decoded;
        if now - yielded_at >= YIELD_EVERY {
            // A body that arrives faster than it decodes would otherwise be decoded in one
            // poll, and a caller pacing the list (`reflector::Paced`) would never get to
            // look at its store's room in between.
            yielded_at = now;
            tokio::task::yield_now().await;
        }
    }
    encoding.finish()?;
    let each = feed.each;
    let (mut list, skipped) = decoder.finish().map_err(kube::Error::SerdeError)?;
    std::mem::take(&mut list.items).into_iter().for_each(each);
    Ok(ListPage { list, skipped })
}
