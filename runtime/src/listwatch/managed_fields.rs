//! Decoding an object without its `metadata.managedFields`: the value is skipped in
//! the input (`IgnoredAny`, no tree is built) and the field decodes as `None`.
//!
//! [`WithoutManagedFields`] wraps the deserializer of one object. It watches the keys
//! of the object's top-level map; the value of `metadata` is wrapped once more, and in
//! that map the value of `managedFields` is skipped. Every other value is decoded by
//! the inner deserializer untouched, so a field named `managedFields` anywhere else
//! (in a CRD's spec, say) is kept, and the cost is a few branches per top-level key.
//! Which key was read is noted by the wrappers in `key`, which hand the key on untouched.

pub(crate) mod forward;
mod key;

use std::{fmt, marker::PhantomData};

use serde::de::{
    self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor, value::UnitDeserializer,
};

use forward::{forward_every_deserialize, forward_visits};
use key::KeySeed;

/// Decodes a `K` with `metadata.managedFields` skipped (it comes out as `None`).
pub(crate) struct WithoutManagedFields<K>(PhantomData<fn() -> K>);

impl<K> WithoutManagedFields<K> {
    pub(crate) fn new() -> Self {
        Self(PhantomData)
    }
}

impl<'de, K: de::Deserialize<'de>> DeserializeSeed<'de> for WithoutManagedFields<K> {
    type Value = K;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<K, D::Error> {
        K::deserialize(Wrapped { inner: deserializer, level: Level::Object })
    }
}

/// `deserializer`, wrapped so that the object it decodes skips `metadata.managedFields`
/// (as [`WithoutManagedFields`] does): for callers that wrap it once more.
pub(crate) fn skipping<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> impl Deserializer<'de, Error = D::Error> {
    Wrapped { inner: deserializer, level: Level::Object }
}

/// Which map a wrapper stands for, and so which key it intercepts.
#[derive(Clone, Copy)]
enum Level {
    /// The object: the value of `metadata` is wrapped as [`Level::Metadata`].
    Object,
    /// The object's metadata: the value of `managedFields` is skipped.
    Metadata,
}

impl Level {
    fn key(self) -> &'static str {
        match self {
            Level::Object => "metadata",
            Level::Metadata => "managedFields",
        }
    }
}

/// A deserializer whose maps intercept the key of `level`; anything but a map is
/// handed through.
struct Wrapped<D> {
    inner: D,
    level: Level,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Wrapped<D> {
    type Error = D::Error;

    forward_every_deserialize!(|this: Self, visitor| (
        this.inner,
        WrappedVisitor { inner: visitor, level: this.level }
    ));

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// Hands a map to the inner visitor through [`InterceptingMap`]; everything else
/// goes through unchanged.
struct WrappedVisitor<V> {
    inner: V,
    level: Level,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for WrappedVisitor<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.inner.visit_map(InterceptingMap { inner: map, level: self.level, hit: false })
    }

    forward_visits!(@plain);

    // `Option<ObjectMeta>` (ConfigMap's metadata) and newtypes reach the map through
    // these: keep intercepting at the same level.
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        self.inner.visit_some(Wrapped { inner: deserializer, level: self.level })
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        self.inner.visit_newtype_struct(Wrapped { inner: deserializer, level: self.level })
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        self.inner.visit_seq(seq)
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        self.inner.visit_enum(data)
    }
}

/// A map that notes whether the last key was its level's key, and treats that key's
/// value specially.
struct InterceptingMap<A> {
    inner: A,
    level: Level,
    hit: bool,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for InterceptingMap<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.hit = false;
        let key = KeySeed::new(seed, self.level.key(), &mut self.hit);
        self.inner.next_key_seed(key)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        if !std::mem::take(&mut self.hit) {
            return self.inner.next_value_seed(seed);
        }
        match self.level {
            Level::Object => self.inner.next_value_seed(MetadataSeed(seed)),
            Level::Metadata => {
                self.inner.next_value::<IgnoredAny>()?;
                // A unit decodes as `None` through serde's `Option` visitor.
                seed.deserialize(UnitDeserializer::new())
            }
        }
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

/// The value of `metadata`: decoded through a wrapper that intercepts `managedFields`.
struct MetadataSeed<S>(S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for MetadataSeed<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(Wrapped { inner: deserializer, level: Level::Metadata })
    }
}

#[cfg(test)]
mod tests;
