//! Decoding a list body while it arrives: each item is decoded as soon as its bytes are
//! in, and the bytes are dropped, so the whole body is never held at once and decoding
//! overlaps the transfer.
//!
//! The envelope (`apiVersion`, `kind`, `metadata`, `items`, unknown keys) is walked key
//! by key; values and items are decoded one at a time with serde_json from the buffered
//! bytes. An object item is first scanned to its end (which also gives its arrays'
//! lengths, see [`capacity`](super::capacity)) and decoded only once it is all in. Any
//! other value cut by the end of the buffer fails with an EOF or syntax error and is
//! retried once more bytes are in; a pass only starts once [`BATCH`] bytes are waiting,
//! so a retried partial value costs little. A malformed body is reported when it ends.
//!
//! An item that is valid JSON but does not decode into the type (a wrongly typed value) is
//! skipped, whole, and described by a [`SkippedObject`]: the rest of the list still
//! decodes. Anything else that does not decode fails the list.

use kube::core::{ListMeta, ObjectList, TypeMeta};
use serde::de::{self, DeserializeOwned, DeserializeSeed, Error as _, IgnoredAny};
use serde_json::error::Category;

use super::{
    capacity::{Scanned, object_mute, scan},
    heap_room::HeapRoom,
    in_place::{self, DecodeFn},
    item::DecodeOptions,
    managed_fields::WithoutManagedFields,
    skipped::SkippedObject,
};

/// How many undecoded bytes are gathered before decoding what they hold.
const BATCH: usize = 1024 * 1024;

/// Where the walk through the list is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Before the opening `{`.
    Start,
    /// Expecting a key, a `,` or the closing `}`.
    Key,
    /// Expecting the value of a key.
    Value(Field),
    /// Inside `items`: expecting an item, a `,` or the closing `]`.
    Items,
    /// After the closing `}`.
    Done,
}

/// The keys of a list the decoder keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    ApiVersion,
    Kind,
    Metadata,
    Items,
    Other,
}

/// Whether a step could go on.
enum Step {
    Progress,
    NeedMore,
}

/// Decodes one list body fed in chunks.
pub(crate) struct ListDecoder<K> {
    options: DecodeOptions,
    /// How many undecoded bytes wait before a decoding pass ([`BATCH`]).
    batch: usize,
    /// The next pass waits for twice the bytes the last one left undecoded, so that a
    /// value that does not decode (and may be malformed) is not retried at every chunk.
    wait_for: usize,
    buffer: Vec<u8>,
    /// How much of `buffer` is decoded.
    pos: usize,
    state: State,
    api_version: Option<String>,
    kind: Option<String>,
    metadata: Option<ListMeta>,
    items: Option<Vec<K>>,
    skipped: Vec<SkippedObject>,
    /// Heap room made for the items (see [`heap_room`](super::heap_room)).
    room: HeapRoom,
    /// `K`'s in-place decoder, if it has one (see [`in_place`]).
    in_place: Option<DecodeFn>,
}

impl<K: DeserializeOwned + Clone + 'static> ListDecoder<K> {
    pub(crate) fn new(options: DecodeOptions) -> Self {
        Self::with_batch(options, BATCH)
    }

    fn with_batch(options: DecodeOptions, batch: usize) -> Self {
        Self {
            options,
            batch,
            wait_for: 0,
            buffer: Vec::with_capacity(2 * batch),
            pos: 0,
            state: State::Start,
            api_version: None,
            kind: None,
            metadata: None,
            items: None,
            skipped: Vec::new(),
            room: HeapRoom::default(),
            in_place: in_place::decoder_of::<K>(),
        }
    }

    /// Takes the next chunk of the body, decoding what is complete once enough is in.
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

    /// Bytes were appended to [`buffer`](Self::buffer): decodes what is complete once
    /// enough is in.
    pub(crate) fn appended(&mut self) -> serde_json::Result<()> {
        if self.buffer.len() - self.pos >= self.batch.max(self.wait_for) {
            self.advance(false)?;
            self.buffer.drain(..self.pos);
            self.pos = 0;
            self.wait_for = 2 * self.buffer.len();
        }
        Ok(())
    }

    /// Hands the items decoded so far to `each`, in order (with heap room for each, see
    /// [`HeapRoom::hand_on`]).
    pub(crate) fn drain_items(&mut self, each: &mut (dyn FnMut(K) + Send)) {
        if let Some(items) = &mut self.items {
            self.room.hand_on(items.drain(..), each);
        }
    }

    /// The body has ended: decodes the rest and returns the list, with the items that were
    /// skipped because they do not decode into `K`.
    pub(crate) fn finish(mut self) -> serde_json::Result<(ObjectList<K>, Vec<SkippedObject>)> {
        self.advance(true)?;
        if self.state != State::Done {
            return Err(serde_json::Error::custom("the list body ended before the list did"));
        }
        if self.buffer[self.pos..].iter().any(|b| !b.is_ascii_whitespace()) {
            return Err(serde_json::Error::custom("trailing characters after the list"));
        }
        // As kube's `ObjectList`: a list without type fields is a `v1` `List`.
        let types = match (self.api_version, self.kind) {
            (None, None) => TypeMeta { api_version: "v1".into(), kind: "List".into() },
            (api_version, kind) => TypeMeta {
                api_version: api_version.unwrap_or_default(),
                kind: kind.unwrap_or_default(),
            },
        };
        let list = ObjectList {
            types,
            metadata: self.metadata.unwrap_or_default(),
            items: self.items.ok_or_else(|| serde_json::Error::missing_field("items"))?,
        };
        Ok((list, self.skipped))
    }

    /// Decodes as far as the buffered bytes allow.
    fn advance(&mut self, ended: bool) -> serde_json::Result<()> {
        while let Step::Progress = self.step(ended)? {}
        Ok(())
    }

    fn step(&mut self, ended: bool) -> serde_json::Result<Step> {
        let Some(next) = self.skip_whitespace() else { return Ok(Step::NeedMore) };
        match self.state {
            State::Done => Ok(Step::NeedMore),
            State::Start => {
                if next != b'{' {
                    return Err(serde_json::Error::custom("expected a list object"));
                }
                self.pos += 1;
                self.state = State::Key;
                Ok(Step::Progress)
            }
            State::Key => match next {
                b'}' => {
                    self.pos += 1;
                    self.state = State::Done;
                    Ok(Step::Progress)
                }
                b',' => {
                    self.pos += 1;
                    Ok(Step::Progress)
                }
                _ => {
                    let Some((key, end)) = self.parse::<String>(self.pos, ended)? else {
                        return Ok(Step::NeedMore);
                    };
                    let colon = self.buffer[end..].iter().position(|b| !b.is_ascii_whitespace());
                    let Some(colon) = colon.map(|offset| end + offset) else {
                        return if ended {
                            Err(serde_json::Error::custom("expected `:` after a key"))
                        } else {
                            Ok(Step::NeedMore)
                        };
                    };
                    if self.buffer[colon] != b':' {
                        return Err(serde_json::Error::custom("expected `:` after a key"));
                    }
                    self.pos = colon + 1;
                    self.state = State::Value(match key.as_str() {
                        "apiVersion" => Field::ApiVersion,
                        "kind" => Field::Kind,
                        "metadata" => Field::Metadata,
                        "items" => Field::Items,
                        _ => Field::Other,
                    });
                    Ok(Step::Progress)
                }
            },
            State::Value(Field::Items) if next == b'[' => {
                self.pos += 1;
                self.items = Some(Vec::new());
                self.state = State::Items;
                Ok(Step::Progress)
            }
            State::Value(field) => {
                let decoded = match field {
                    Field::ApiVersion => self.value(ended, |list, v| list.api_version = v)?,
                    Field::Kind => self.value(ended, |list, v| list.kind = v)?,
                    Field::Metadata => self.value(ended, |list, v| list.metadata = v)?,
                    // `null` (anything else is an error from `Option<Vec<_>>`).
                    Field::Items => self.value(ended, |list, v: Option<Vec<IgnoredAny>>| {
                        if v.is_none() {
                            list.items = Some(Vec::new());
                        }
                    })?,
                    Field::Other => self.value(ended, |_, _: IgnoredAny| {})?,
                };
                if decoded {
                    self.state = State::Key;
                    Ok(Step::Progress)
                } else {
                    Ok(Step::NeedMore)
                }
            }
            State::Items => match next {
                b']' => {
                    self.pos += 1;
                    self.state = State::Key;
                    Ok(Step::Progress)
                }
                b',' => {
                    self.pos += 1;
                    Ok(Step::Progress)
                }
                _ => {
                    if let Some(step) = self.hinted_item(ended)? {
                        return Ok(step);
                    }
                    let item = if self.options.skip_managed_fields {
                        self.parse::<Skipping<K>>(self.pos, ended)
                            .map(|item| item.map(|(item, end)| (item.0, end)))
                    } else {
                        self.parse::<K>(self.pos, ended)
                    };
                    let item = match item {
                        Ok(item) => item,
                        Err(err) if err.classify() == Category::Data => {
                            return self.skip_item(&err, ended);
                        }
                        Err(err) => return Err(err),
                    };
                    let Some((item, end)) = item else { return Ok(Step::NeedMore) };
                    self.items.get_or_insert_with(Vec::new).push(item);
                    self.pos = end;
                    Ok(Step::Progress)
                }
            },
        }
    }

    /// Decodes the object item at `pos` once all of it is buffered, with every `Vec` at
    /// its exact length (see [`capacity`](super::capacity)); `None` when the item is not
    /// an object (the plain path decodes, or rejects, it).
    fn hinted_item(&mut self, ended: bool) -> serde_json::Result<Option<Step>> {
        let input = &self.buffer[self.pos..];
        if input.first() != Some(&b'{') {
            return Ok(None);
        }
        let Some(Scanned { lengths, end }) = scan(input, object_mute(self.options)) else {
            if ended {
                return Err(serde_json::Error::custom("the list body ended early"));
            }
            return Ok(Some(Step::NeedMore));
        };
        self.room.before_item(end);
        match in_place::decode_slice::<K>(&input[..end], lengths, self.options, self.in_place) {
            Ok(item) => {
                self.items.get_or_insert_with(Vec::new).push(item);
                self.pos += end;
                Ok(Some(Step::Progress))
            }
            Err(err) if err.classify() == Category::Data => self.skip_item(&err, ended).map(Some),
            Err(err) => Err(err),
        }
    }

    /// Skips the item at `pos`, which is valid JSON so far but failed to decode with `err`,
    /// once all of it is buffered (a type error can come before the item's end).
    fn skip_item(&mut self, err: &serde_json::Error, ended: bool) -> serde_json::Result<Step> {
        let Some((_, end)) = self.parse::<IgnoredAny>(self.pos, ended)? else {
            return Ok(Step::NeedMore);
        };
        let skipped = SkippedObject::from_json(&self.buffer[self.pos..end], err);
        tracing::debug!(key = %skipped.key, "skipping a list item that does not decode");
        self.skipped.push(skipped);
        self.pos = end;
        Ok(Step::Progress)
    }

    /// Decodes the value at `pos` and stores it with `store`; `false` if it is not all in.
    fn value<T: DeserializeOwned>(
        &mut self,
        ended: bool,
        store: impl FnOnce(&mut Self, T),
    ) -> serde_json::Result<bool> {
        match self.parse::<T>(self.pos, ended)? {
            Some((value, end)) => {
                self.pos = end;
                store(self, value);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Moves `pos` past whitespace; the next byte, if it is buffered.
    fn skip_whitespace(&mut self) -> Option<u8> {
        let offset = self.buffer[self.pos..].iter().position(|b| !b.is_ascii_whitespace());
        match offset {
            Some(offset) => {
                self.pos += offset;
                Some(self.buffer[self.pos])
            }
            None => {
                self.pos = self.buffer.len();
                None
            }
        }
    }

    /// Decodes one JSON value starting at `start` (no leading whitespace); `None` when
    /// its bytes are not all buffered yet.
    fn parse<T: DeserializeOwned>(
        &self,
        start: usize,
        ended: bool,
    ) -> serde_json::Result<Option<(T, usize)>> {
        let input = &self.buffer[start..];
        let mut values = serde_json::Deserializer::from_slice(input).into_iter::<T>();
        match values.next() {
            None if ended => Err(serde_json::Error::custom("the list body ended early")),
            None => Ok(None),
            Some(Ok(value)) => {
                let end = values.byte_offset();
                // A number or literal at the very end may go on in the next chunk.
                let delimited = matches!(input.first(), Some(b'{' | b'[' | b'"'));
                if end == input.len() && !delimited && !ended {
                    return Ok(None);
                }
                Ok(Some((value, start + end)))
            }
            // A value cut short is not always an EOF error (`2.` is an invalid number):
            // any syntax error may be the cut, and is decided once more bytes are in.
            // A wrongly typed value is an error at once.
            Some(Err(err))
                if !ended && matches!(err.classify(), Category::Eof | Category::Syntax) =>
            {
                Ok(None)
            }
            Some(Err(err)) => Err(err),
        }
    }
}

/// An item decoded without `metadata.managedFields`.
struct Skipping<K>(K);

impl<'de, K: DeserializeOwned> de::Deserialize<'de> for Skipping<K> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        WithoutManagedFields::<K>::new().deserialize(deserializer).map(Skipping)
    }
}

#[cfg(test)]
mod tests;
