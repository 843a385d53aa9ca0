//! Running the generated impls over one object's bytes: the [`DecodeFn`] each listable
//! kind is looked up by.

use std::any::Any;

use serde::de::{DeserializeSeed, Deserializer};

use super::seeds::{self, Fields};
use crate::listwatch::{
    capacity::{Hinted, Lengths},
    item::DecodeOptions,
    managed_fields,
};

/// Decodes one object into the `Option<K>` behind `slot`.
pub(crate) type DecodeFn =
    fn(&[u8], &Lengths, DecodeOptions, &mut dyn Any) -> serde_json::Result<()>;

/// Decodes the object that is exactly `bytes` in place with `decode` (`K`'s
/// `decoder_of`); `None` if it does not decode that way.
pub(super) fn decode_with<K: 'static>(
    decode: DecodeFn,
    bytes: &[u8],
    lengths: &Lengths,
    options: DecodeOptions,
) -> Option<K> {
    let mut slot = None::<K>;
    decode(bytes, lengths, options, &mut slot).ok()?;
    slot
}

/// The [`DecodeFn`] of `K`, which `generated::decoder` hands out by `TypeId`.
#[allow(dead_code)]
pub(crate) fn decode_into<K: Fields + 'static>(
    bytes: &[u8],
    lengths: &Lengths,
    options: DecodeOptions,
    slot: &mut dyn Any,
) -> serde_json::Result<()> {
    // Bytes that are not UTF-8 fail here and go k8s-openapi's way, whose error names the
    // bad string: the in-place impls are built for serde_json's `&str` reader only.
    let text = std::str::from_utf8(bytes).map_err(serde::de::Error::custom)?;
    let mut object = K::default();
    let mut deserializer = serde_json::Deserializer::from_str(text);
    Top { object: &mut object, lengths, options }.deserialize(&mut deserializer)?;
    deserializer.end()?;
    match slot.downcast_mut::<Option<K>>() {
        Some(slot) => {
            *slot = Some(object);
            Ok(())
        }
        None => Err(serde::de::Error::custom("an in-place decoder handed another type's slot")),
    }
}

/// The object itself: decoded as a struct (not an `Option`), under the same wrappers as
/// `capacity::decode_object` puts around k8s-openapi's impls.
#[allow(dead_code)]
struct Top<'a, K> {
    object: &'a mut K,
    lengths: &'a Lengths,
    options: DecodeOptions,
}

impl<'de, K: Fields> DeserializeSeed<'de> for Top<'_, K> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        if self.options.skip_managed_fields {
            let skipping = managed_fields::skipping(deserializer);
            seeds::into_struct(self.object, Hinted::new(skipping, self.lengths))
        } else {
            seeds::into_struct(self.object, Hinted::new(deserializer, self.lengths))
        }
    }
}
