//! Decoding a protobuf list body while it arrives, as `list_stream` does for JSON: the
//! envelope is walked field by field, and inside its `raw` (the List message: `metadata = 1`,
//! `items = 2`, checked for every List type by `protoschema`) each item is decoded as soon
//! as all its bytes are in, then dropped. Every field is length-prefixed, so the decoder
//! knows how many bytes it waits for and never retries a partial item.
//!
//! An item that is a valid message but does not decode into the type is skipped and
//! described by a [`SkippedObject`]; malformed protobuf fails the list.

use kube::core::{ListMeta, ObjectList, TypeMeta};
use serde::de::DeserializeOwned;

use crate::listwatch::heap_room::HeapRoom;

use super::{
    de::from_message,
    direct::{DecodeFn, decode_object, decoder_of},
    envelope::{MAGIC, check_encoding, type_meta_of},
    error::{Category, Error, Result},
    generated::schema,
    reader::{FIXED32, FIXED64, LEN, Reader, VARINT},
    types::Message,
};
use crate::listwatch::{item::DecodeOptions, skipped::SkippedObject};

/// Where the walk through the body is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Before the magic.
    Magic,
    /// In the envelope, before its `raw`.
    Envelope,
    /// In the List message; it ends at this offset of the body.
    List { end: u64 },
    /// In the envelope, after its `raw`.
    After,
}

/// Decodes one protobuf list body fed in chunks.
pub(crate) struct ProtoListDecoder<K> {
    options: DecodeOptions,
    message: &'static Message,
    /// `K`'s generated decoder, if it has one (else `message` drives the serde route).
    direct: Option<DecodeFn>,
    buffer: Vec<u8>,
    /// How much of `buffer` is decoded.
    pos: usize,
    /// The offset in the body of `buffer[0]`.
    offset: u64,
    state: State,
    types: Option<TypeMeta>,
    metadata: Option<ListMeta>,
    items: Vec<K>,
    skipped: Vec<SkippedObject>,
    /// Heap room made for the items (see [`heap_room`](crate::listwatch::heap_room)).
    room: HeapRoom,
}

/// The head of a field: its number, wire type, how many bytes the tag (and length) take
/// and how many its value takes.
struct Head {
    number: u32,
    wire: u8,
    head: usize,
    value: usize,
}

impl<K: DeserializeOwned + Clone + 'static> ProtoListDecoder<K> {
    /// A decoder of a list of `message` items.
    pub(crate) fn new(options: DecodeOptions, message: &'static Message) -> Self {
        Self {
            options,
            message,
            direct: decoder_of::<K>(),
            buffer: Vec::new(),
            pos: 0,
            offset: 0,
            state: State::Magic,
            types: None,
            metadata: None,
            items: Vec::new(),
            skipped: Vec::new(),
            room: HeapRoom::default(),
        }
    }

    /// Takes the next chunk of the body, decoding every item it completes.
    #[cfg(test)]
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> serde_json::Result<()> {
        self.buffer.extend_from_slice(chunk);
        self.appended()
    }

    /// The buffer the body's next bytes may be appended to directly (then
    /// [`appended`](Self::appended)).
    pub(crate) fn buffer(&mut self) -> &mut Vec<u8> {
        &mut self.buffer
    }

    /// Bytes were appended to [`buffer`](Self::buffer): decodes every item they complete.
    pub(crate) fn appended(&mut self) -> serde_json::Result<()> {
        self.advance().map_err(Error::into_json)?;
        // Keep only the unfinished field.
        self.buffer.drain(..self.pos);
        self.offset += self.pos as u64;
        self.pos = 0;
        Ok(())
    }

    /// Hands the items decoded so far to `each`, in order (with heap room for each, see
    /// [`HeapRoom::hand_on`]).
    pub(crate) fn drain_items(&mut self, each: &mut (dyn FnMut(K) + Send)) {
        self.room.hand_on(self.items.drain(..), each);
    }

    /// The body has ended: returns the list, with the items skipped because they do not
    /// decode into `K`.
    pub(crate) fn finish(mut self) -> serde_json::Result<(ObjectList<K>, Vec<SkippedObject>)> {
        self.advance().map_err(Error::into_json)?;
        if self.state != State::After || self.pos != self.buffer.len() {
            return Err(Error::wire("the list body ended before the list did").into_json());
        }
        let types = self
            .types
            .unwrap_or_else(|| TypeMeta { api_version: "v1".into(), kind: "List".into() });
        let list =
            ObjectList { types, metadata: self.metadata.unwrap_or_default(), items: self.items };
        Ok((list, self.skipped))
    }

    /// Decodes every whole field buffered.
    fn advance(&mut self) -> Result<()> {
        loop {
            let rest = &self.buffer[self.pos..];
            match self.state {
                State::Magic => {
                    if rest.len() < MAGIC.len() {
                        return Ok(());
                    }
                    if !rest.starts_with(MAGIC) {
                        return Err(Error::wire("no k8s protobuf magic"));
                    }
                    self.pos += MAGIC.len();
                    self.state = State::Envelope;
                }
                State::List { end } if self.offset + self.pos as u64 == end => {
                    self.state = State::After;
                }
                state => {
                    let Some(head) = head(rest)? else { return Ok(()) };
                    if let (State::Envelope, 2, LEN) = (state, head.number, head.wire) {
                        // The List message: decoded field by field, without waiting for all of it.
                        let start = self.offset + (self.pos + head.head) as u64;
                        self.pos += head.head;
                        self.state = State::List { end: start + head.value as u64 };
                        continue;
                    }
                    let whole = head.head + head.value;
                    if let State::List { end } = state
                        && self.offset + (self.pos + whole) as u64 > end
                    {
                        return Err(Error::wire("a list field overruns the list"));
                    }
                    if rest.len() < whole {
                        self.buffer.reserve(whole - rest.len());
                        return Ok(());
                    }
                    let value = self.pos + head.head..self.pos + whole;
                    self.pos += whole;
                    self.field(state, head, value)?;
                }
            }
        }
    }

    /// Takes one whole field of the envelope or of the List message.
    fn field(&mut self, state: State, head: Head, value: std::ops::Range<usize>) -> Result<()> {
        let bytes = &self.buffer[value];
        match (state, head.number, head.wire) {
            (State::Envelope, 1, LEN) => {
                let types = type_meta_of(bytes)?;
                self.types = Some(TypeMeta {
                    api_version: types.api_version.to_owned(),
                    kind: types.kind.to_owned(),
                });
            }
            (State::Envelope | State::After, 3, LEN) => check_encoding(bytes)?,
            (State::List { .. }, 1, LEN) => {
                self.metadata = Some(from_message(bytes, schema::LIST_META, None)?);
            }
            (State::List { .. }, 2, LEN) => {
                self.room.before_item(bytes.len());
                match decode_object::<K>(bytes, self.message, None, self.options, self.direct) {
                    Ok(item) => self.items.push(item),
                    Err(err) if err.category() == Category::Data => {
                        let skipped = SkippedObject::from_protobuf(bytes, self.message);
                        tracing::debug!(key = %skipped.key, "skipping a list item that does not decode");
                        self.skipped.push(skipped);
                    }
                    Err(err) => return Err(err),
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// The head of the field `bytes` start with; `None` while its tag or length is cut short.
fn head(bytes: &[u8]) -> Result<Option<Head>> {
    let mut reader = Reader::new(bytes);
    let Some(tag) = complete(&mut reader, bytes)? else { return Ok(None) };
    let Some((number, wire)) = tag else { return Ok(None) };
    let value = match wire {
        LEN => {
            let Some(len) = complete_varint(&mut reader, bytes)? else { return Ok(None) };
            usize::try_from(len).map_err(|_| Error::wire("length too large"))?
        }
        VARINT => {
            // Up to ten bytes: a varint field is whole once its last byte is in.
            let rest = &bytes[reader.position()..];
            match rest.iter().position(|byte| byte & 0x80 == 0) {
                Some(last) => last + 1,
                None if rest.len() >= 10 => return Err(Error::wire("varint longer than 10 bytes")),
                None => return Ok(None),
            }
        }
        FIXED64 => 8,
        FIXED32 => 4,
        other => return Err(Error::wire(format_args!("unsupported wire type {other}"))),
    };
    Ok(Some(Head { number, wire, head: reader.position(), value }))
}

/// The next tag, `Some(None)` at the end of `bytes`, `None` when the tag is cut short.
fn complete(reader: &mut Reader<'_>, bytes: &[u8]) -> Result<Option<Option<(u32, u8)>>> {
    if reader.is_empty() {
        return Ok(Some(None));
    }
    let mut ahead = *reader;
    if complete_varint(&mut ahead, bytes)?.is_none() {
        return Ok(None);
    }
    reader.tag().map(Some)
}

/// The next varint; `None` when it is cut short by the end of `bytes`.
fn complete_varint(reader: &mut Reader<'_>, bytes: &[u8]) -> Result<Option<u64>> {
    let rest = &bytes[reader.position()..];
    if rest.len() < 10 && rest.iter().all(|byte| byte & 0x80 != 0) {
        return Ok(None);
    }
    reader.varint().map(Some)
}

#[cfg(test)]
#[path = "list_tests.rs"]
mod tests;
