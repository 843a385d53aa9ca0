//! Reading a map key while noting whether it is the one being looked for
//! (`metadata`, then `managedFields`): the key still goes to the caller's seed
//! untouched.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};

use super::forward::{forward_every_deserialize, forward_visits};

/// A map key: decoded by the caller's seed, while noting whether it equals `name`.
pub(super) struct KeySeed<'a, S> {
    inner: S,
    name: &'static str,
    hit: &'a mut bool,
}

impl<'a, S> KeySeed<'a, S> {
    /// Decodes a key with `inner`, setting `hit` to whether it is `name`.
    pub(super) fn new(inner: S, name: &'static str, hit: &'a mut bool) -> Self {
        Self { inner, name, hit }
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        self.inner.deserialize(KeyDeserializer {
            inner: deserializer,
            name: self.name,
            hit: self.hit,
        })
    }
}

/// A key's deserializer: every method forwards with a visitor that compares the key.
struct KeyDeserializer<'a, D> {
    inner: D,
    name: &'static str,
    hit: &'a mut bool,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for KeyDeserializer<'_, D> {
    type Error = D::Error;

    forward_every_deserialize!(|this: Self, visitor| (
        this.inner,
        KeyVisitor { inner: visitor, name: this.name, hit: this.hit }
    ));

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// Compares a string key with `name` before handing it on.
struct KeyVisitor<'a, V> {
    inner: V,
    name: &'static str,
    hit: &'a mut bool,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for KeyVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Self::Value, E> {
        *self.hit = value == self.name;
        self.inner.visit_str(value)
    }

    fn visit_borrowed_str<E: de::Error>(self, value: &'de str) -> Result<Self::Value, E> {
        *self.hit = value == self.name;
        self.inner.visit_borrowed_str(value)
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<Self::Value, E> {
        *self.hit = value == self.name;
        self.inner.visit_string(value)
    }

    fn visit_bytes<E: de::Error>(self, value: &[u8]) -> Result<Self::Value, E> {
        *self.hit = value == self.name.as_bytes();
        self.inner.visit_bytes(value)
    }

    fn visit_borrowed_bytes<E: de::Error>(self, value: &'de [u8]) -> Result<Self::Value, E> {
        *self.hit = value == self.name.as_bytes();
        self.inner.visit_borrowed_bytes(value)
    }

    fn visit_byte_buf<E: de::Error>(self, value: Vec<u8>) -> Result<Self::Value, E> {
        *self.hit = value == self.name.as_bytes();
        self.inner.visit_byte_buf(value)
    }

    forward_visits! {
        visit_bool(bool), visit_i8(i8), visit_i16(i16), visit_i32(i32), visit_i64(i64),
        visit_i128(i128), visit_u8(u8), visit_u16(u16), visit_u32(u32), visit_u64(u64),
        visit_u128(u128), visit_f32(f32), visit_f64(f64), visit_char(char),
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.inner.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.inner.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        self.inner.visit_some(deserializer)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        self.inner.visit_newtype_struct(deserializer)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        self.inner.visit_seq(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.inner.visit_map(map)
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        self.inner.visit_enum(data)
    }
}
