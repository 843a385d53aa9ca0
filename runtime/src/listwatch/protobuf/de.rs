//! A serde `Deserializer` over one protobuf message and its [`Message`] schema: the message
//! is presented as the map its JSON is, keyed by JSON names, so k8s-openapi's own
//! `Deserialize` impls build the object (and ignore the fields their version lacks).
//!
//! Go's JSON rules are applied so that an object decoded from protobuf equals the same
//! object decoded from JSON: a non-pointer `omitempty` field holding its zero value is left
//! out ([`OMIT_ZERO`]), a repeated field's entries are one sequence, a map's entries one map,
//! an inline struct's fields are the parent's keys, and the special kinds (see [`Kind`]) turn
//! into the strings, numbers or raw JSON that Go's `MarshalJSON` writes. Nothing is
//! allocated per field: keys are the table's `&'static str`, strings are borrowed from the
//! input, and times are formatted on the stack; bytes (base64 in JSON, the only form
//! k8s-openapi's `ByteString` takes) are the exception.

use serde::de::{
    self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor,
    value::{BorrowedStrDeserializer, StringDeserializer},
};

pub(crate) use super::value::TypeMeta;
use super::value::{Value, is_zero, read_single, utf8, wire_of, zero};
use super::{
    error::{Category, Error, Result},
    reader::{LEN, Reader},
    types::{Kind, Message, OMIT_ZERO, REPEATED},
};
use crate::listwatch::json_input::{AnyValue, decode_all};

/// Deserializes one message of `message`'s schema from `bytes`.
pub(crate) fn from_message<'de, T: de::Deserialize<'de>>(
    bytes: &'de [u8],
    message: &'static Message,
    type_meta: Option<TypeMeta<'de>>,
) -> Result<T> {
    T::deserialize(ValueDeserializer { value: Value::Message(bytes, message, type_meta) })
}

/// The deserializer of one message, for a `DeserializeSeed` (the decoders' `ItemSeed`).
pub(crate) fn message_deserializer<'de>(
    bytes: &'de [u8],
    message: &'static Message,
    type_meta: Option<TypeMeta<'de>>,
) -> ValueDeserializer<'de> {
    ValueDeserializer { value: Value::Message(bytes, message, type_meta) }
}

/// Hands one [`Value`] to a visitor.
pub(crate) struct ValueDeserializer<'de> {
    value: Value<'de>,
}

impl<'de> Deserializer<'de> for ValueDeserializer<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Int(value) => visitor.visit_i64(value),
            Value::Uint(value) => visitor.visit_u64(value),
            Value::Bool(value) => visitor.visit_bool(value),
            Value::Double(value) => visitor.visit_f64(value),
            Value::Str(value) => visitor.visit_borrowed_str(value),
            Value::Owned(value) => visitor.visit_string(value),
            Value::Time(text) => visitor.visit_str(text.as_str()),
            Value::Message(bytes, message, type_meta) => {
                visitor.visit_map(MessageMap::new(bytes, message, type_meta))
            }
            Value::Repeated(span, kind, entries) => {
                let reader = Reader::new(span);
                visitor.visit_seq(RepeatedSeq { reader, kind, packed: None, left: entries })
            }
            Value::Map(span, kind) => {
                visitor.visit_map(EntryMap { reader: Reader::new(span), kind, value: None })
            }
            Value::StringList(bytes) => visitor.visit_seq(StringItems(Reader::new(bytes))),
            Value::RawJson(raw) => {
                decode_all(raw, AnyValue(visitor)).map_err(|err| match err.classify() {
                    serde_json::error::Category::Data => de::Error::custom(err),
                    _ => Error::wire(format_args!("a raw JSON field: {err}")),
                })
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.value {
            Value::Str(value) => visitor.visit_enum(BorrowedStrDeserializer::new(value)),
            Value::Owned(value) => visitor.visit_enum(StringDeserializer::new(value)),
            _ => self.deserialize_any(visitor),
        }
    }

    /// A skipped value costs nothing: its bytes were already stepped over.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct identifier
    }
}

/// How many inline structs deep a message may nest (Volume → VolumeSource is one).
const MAX_INLINE: usize = 4;

/// A message as a map keyed by JSON names.
struct MessageMap<'de> {
    /// The message being read and, above it, the inline structs being read within it.
    frames: [(Reader<'de>, &'static Message); MAX_INLINE],
    depth: usize,
    type_meta: Option<TypeMeta<'de>>,
    /// How many of `apiVersion`, `kind` were presented.
    type_keys: u8,
    value: Option<Value<'de>>,
}

impl<'de> MessageMap<'de> {
    fn new(bytes: &'de [u8], message: &'static Message, type_meta: Option<TypeMeta<'de>>) -> Self {
        let frame = (Reader::new(bytes), message);
        Self { frames: [frame; MAX_INLINE], depth: 0, type_meta, type_keys: 0, value: None }
    }

    /// The next field to present and its value; `None` at the end of the message.
    fn next_field(&mut self) -> Result<Option<(&'static str, Value<'de>)>> {
        if let Some(type_meta) = self.type_meta {
            match self.type_keys {
                0 => {
                    self.type_keys = 1;
                    return Ok(Some(("apiVersion", Value::Str(type_meta.api_version))));
                }
                1 => {
                    self.type_keys = 2;
                    return Ok(Some(("kind", Value::Str(type_meta.kind))));
                }
                _ => {}
            }
        }
        loop {
            let (reader, message) = &mut self.frames[self.depth];
            let start = reader.position();
            let Some((number, wire)) = reader.tag()? else {
                if self.depth == 0 {
                    return Ok(None);
                }
                self.depth -= 1;
                continue;
            };
            let Some(field) = message.field(number) else {
                reader.skip(wire)?;
                continue;
            };
            if let Kind::Inline(inner) = field.kind {
                if wire != LEN {
                    return Err(Error::wire("an inline struct not length-delimited"));
                }
                let bytes = reader.len_delimited()?;
                if self.depth + 1 == MAX_INLINE {
                    return Err(Error::wire("inline structs nested too deep"));
                }
                self.depth += 1;
                self.frames[self.depth] = (Reader::new(bytes), inner);
                continue;
            }
            if field.flags & REPEATED != 0 || matches!(field.kind, Kind::Map(_)) {
                let (span, count) = entries(reader, start, number, wire)?;
                let value = match &field.kind {
                    Kind::Map(value) => Value::Map(span, value),
                    kind => Value::Repeated(span, kind, count),
                };
                return Ok(Some((field.json, value)));
            }
            if field.flags & OMIT_ZERO != 0 && is_zero(reader, wire)? {
                reader.skip(wire)?;
                continue;
            }
            let value =
                read_single(reader, wire, &field.kind).map_err(|err| match err.category() {
                    Category::Wire => Error::wire(format_args!(
                        "{err} (field {} of {})",
                        field.json, message.name
                    )),
                    Category::Data => err,
                })?;
            return Ok(Some((field.json, value)));
        }
    }
}

/// Steps over the entries of the repeated field `number` that start at `start` (whose
/// first tag, of `wire` type, is read) and follow each other; their bytes, tags included,
/// and how many entries they are (the length `Vec`s are allocated at).
/// A field repeated again later would be presented twice, and fail as a duplicate key.
fn entries<'de>(
    reader: &mut Reader<'de>,
    start: usize,
    number: u32,
    wire: u8,
) -> Result<(&'de [u8], usize)> {
    let count = reader.skip_run(number, wire)?;
    Ok((reader.since(start), count))
}

impl<'de> MapAccess<'de> for MessageMap<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.next_field()? {
            None => Ok(None),
            Some((key, value)) => {
                self.value = Some(value);
                seed.deserialize(BorrowedStrDeserializer::new(key)).map(Some)
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let value = self.value.take().ok_or_else(|| Error::wire("a value without its key"))?;
        seed.deserialize(ValueDeserializer { value })
    }
}

/// The entries of a repeated field; scalars may also come packed (length-delimited runs).
struct RepeatedSeq<'de> {
    reader: Reader<'de>,
    kind: &'static Kind,
    packed: Option<Reader<'de>>,
    /// Entries not yet read: the size hint, so a `Vec` is allocated at its length (exact
    /// unless scalars come packed, which Go does not write for these proto2 messages).
    left: usize,
}

impl<'de> SeqAccess<'de> for RepeatedSeq<'de> {
    type Error = Error;

    fn size_hint(&self) -> Option<usize> {
        Some(self.left + usize::from(self.packed.as_ref().is_some_and(|p| !p.is_empty())))
    }

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        loop {
            if let Some(packed) = &mut self.packed {
                if !packed.is_empty() {
                    let value = read_single(packed, wire_of(self.kind), self.kind)?;
                    return seed.deserialize(ValueDeserializer { value }).map(Some);
                }
                self.packed = None;
            }
            let Some((_, wire)) = self.reader.tag()? else { return Ok(None) };
            self.left = self.left.saturating_sub(1);
            if wire == LEN && wire_of(self.kind) != LEN {
                self.packed = Some(Reader::new(self.reader.len_delimited()?));
                continue;
            }
            let value = read_single(&mut self.reader, wire, self.kind)?;
            return seed.deserialize(ValueDeserializer { value }).map(Some);
        }
    }
}

/// The `items` of a string-list message (`ExtraValue`).
struct StringItems<'de>(Reader<'de>);

impl<'de> SeqAccess<'de> for StringItems<'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        while let Some((number, wire)) = self.0.tag()? {
            if number == 1 {
                let value = read_single(&mut self.0, wire, &Kind::String)?;
                return seed.deserialize(ValueDeserializer { value }).map(Some);
            }
            self.0.skip(wire)?;
        }
        Ok(None)
    }
}

/// The entries of a map field, each a `{key = 1, value = 2}` message.
struct EntryMap<'de> {
    reader: Reader<'de>,
    kind: &'static Kind,
    value: Option<Value<'de>>,
}

impl<'de> MapAccess<'de> for EntryMap<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let Some((_, wire)) = self.reader.tag()? else { return Ok(None) };
        if wire != LEN {
            return Err(Error::wire("a map entry not length-delimited"));
        }
        let mut entry = Reader::new(self.reader.len_delimited()?);
        let (mut key, mut value) = ("", None);
        while let Some((number, wire)) = entry.tag()? {
            match number {
                1 if wire == LEN => key = utf8(entry.len_delimited()?)?,
                2 => value = Some(read_single(&mut entry, wire, self.kind)?),
                _ => entry.skip(wire)?,
            }
        }
        self.value = Some(match value {
            Some(value) => value,
            None => zero(self.kind)?,
        });
        seed.deserialize(BorrowedStrDeserializer::new(key)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let value = self.value.take().ok_or_else(|| Error::wire("a value without its key"))?;
        seed.deserialize(ValueDeserializer { value })
    }
}

#[cfg(test)]
#[path = "de_tests.rs"]
mod tests;

/// Decodes one message of `message`'s schema, `None` if it does not decode into `T`.
pub(crate) fn decode_with<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    message: &'static Message,
) -> Option<T> {
    from_message(bytes, message, None).ok()
}
