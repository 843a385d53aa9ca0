//! [`Hinted`]: a deserializer wrapper that tells every sequence its length, so that
//! serde's `Vec` visitor allocates exactly that capacity.

use std::cell::Cell;
use std::fmt;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};

use crate::listwatch::managed_fields::forward::{forward_every_deserialize, forward_visits};

/// The array lengths of one value from [`scan`](super::scan::scan), handed out in
/// document order. A sequence that turns out to have another length (the scan and the
/// decoder disagree on what was visited) stops all further hints: they are only
/// capacities, so the decoded value is the same either way.
pub(crate) struct Lengths {
    lengths: Vec<u32>,
    next: Cell<usize>,
    broken: Cell<bool>,
}

impl Lengths {
    pub(crate) fn new(lengths: Vec<u32>) -> Self {
        Self { lengths, next: Cell::new(0), broken: Cell::new(false) }
    }

    /// Hands the lengths out again from the first, for a second decoding of the object.
    pub(crate) fn rewind(&self) {
        self.next.set(0);
        self.broken.set(false);
    }

    /// The length of the next array, unless the hints went out of step.
    fn take(&self) -> Option<usize> {
        if self.broken.get() {
            return None;
        }
        let slot = self.next.get();
        self.next.set(slot + 1);
        match self.lengths.get(slot) {
            Some(length) => Some(*length as usize),
            None => {
                self.broken.set(true);
                None
            }
        }
    }

    /// Whether every hint matched the sequence it was given to.
    #[cfg(test)]
    pub(crate) fn in_step(&self) -> bool {
        !self.broken.get() && self.next.get() == self.lengths.len()
    }
}

/// Wraps a deserializer (and everything it hands out: maps, sequences, enum variants)
/// so that each sequence reports its length from [`Lengths`].
pub(crate) struct Hinted<'c, D> {
    inner: D,
    lengths: &'c Lengths,
}

impl<'c, D> Hinted<'c, D> {
    pub(crate) fn new(inner: D, lengths: &'c Lengths) -> Self {
        Self { inner, lengths }
    }
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Hinted<'_, D> {
    type Error = D::Error;

    forward_every_deserialize! {
        @but_ignored_any |this: Self, visitor| (
            this.inner,
            HintedVisitor { inner: visitor, lengths: this.lengths }
        )
    }

    /// An ignored value (an unknown field) is walked, not skipped, so that the arrays
    /// in it use up their lengths and the ones after it stay in step.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_any(HintedVisitor { inner: visitor, lengths: self.lengths })
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

struct HintedVisitor<'c, V> {
    inner: V,
    lengths: &'c Lengths,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for HintedVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    forward_visits!(@plain);

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        self.inner.visit_some(Hinted { inner: deserializer, lengths: self.lengths })
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        self.inner.visit_newtype_struct(Hinted { inner: deserializer, lengths: self.lengths })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        let hint = self.lengths.take();
        self.inner.visit_seq(HintedSeq { inner: seq, lengths: self.lengths, hint, seen: 0 })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.inner.visit_map(HintedMap { inner: map, lengths: self.lengths })
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        self.inner.visit_enum(HintedEnum { inner: data, lengths: self.lengths })
    }
}

/// A seed whose deserializer is wrapped.
struct HintedSeed<'c, S> {
    inner: S,
    lengths: &'c Lengths,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for HintedSeed<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        self.inner.deserialize(Hinted { inner: deserializer, lengths: self.lengths })
    }
}

/// A sequence that knows its length (`hint`). When it ends with
/// another number of elements, the hints are out of step and stop.
struct HintedSeq<'c, A> {
    inner: A,
    lengths: &'c Lengths,
    hint: Option<usize>,
    seen: usize,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for HintedSeq<'_, A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        let element =
            self.inner.next_element_seed(HintedSeed { inner: seed, lengths: self.lengths })?;
        match element {
            Some(element) => {
                self.seen += 1;
                Ok(Some(element))
            }
            None => {
                if self.hint.is_some_and(|length| length != self.seen) {
                    self.lengths.broken.set(true);
                }
                self.hint = None;
                Ok(None)
            }
        }
    }

    fn size_hint(&self) -> Option<usize> {
        match self.hint {
            Some(length) => Some(length.saturating_sub(self.seen)),
            None => self.inner.size_hint(),
        }
    }
}

struct HintedMap<'c, A> {
    inner: A,
    lengths: &'c Lengths,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for HintedMap<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.inner.next_key_seed(HintedSeed { inner: seed, lengths: self.lengths })
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.inner.next_value_seed(HintedSeed { inner: seed, lengths: self.lengths })
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

struct HintedEnum<'c, A> {
    inner: A,
    lengths: &'c Lengths,
}

impl<'de, 'c, A: EnumAccess<'de>> EnumAccess<'de> for HintedEnum<'c, A> {
    type Error = A::Error;
    type Variant = HintedVariant<'c, A::Variant>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant), A::Error> {
        let lengths = self.lengths;
        let (value, variant) = self.inner.variant_seed(HintedSeed { inner: seed, lengths })?;
        Ok((value, HintedVariant { inner: variant, lengths }))
    }
}

struct HintedVariant<'c, A> {
    inner: A,
    lengths: &'c Lengths,
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for HintedVariant<'_, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.inner.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.inner.newtype_variant_seed(HintedSeed { inner: seed, lengths: self.lengths })
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.inner.tuple_variant(len, HintedVisitor { inner: visitor, lengths: self.lengths })
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.inner.struct_variant(fields, HintedVisitor { inner: visitor, lengths: self.lengths })
    }
}
