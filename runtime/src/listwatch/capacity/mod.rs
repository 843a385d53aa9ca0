//! Decoding an object with every `Vec` allocated at exactly its length.
//!
//! serde's `Vec` visitor grows its vector by doubling unless the input says how many
//! elements come, and serde_json never says. A decoded Pod then holds about 16 % more
//! heap than its own clone (94.5 KB against 79 KB for a realistic Pod with
//! managedFields); kube-runtime's store pays a clone of every object (about 55 µs per
//! Pod) to drop that slack. Here one pre-scan of the object's bytes
//! ([`scan`](scan::scan), about 4.5 µs per 9 KB Pod: [`blocks`] finds the structural
//! characters 64 bytes at a time) records where the object ends and how many elements
//! each array holds, and [`Hinted`](hinted::Hinted)
//! hands those lengths to the sequences in document order as size hints.
//!
//! Lengths are only capacity hints: a value decodes the same with or without them, and
//! if the decoder and the scan ever disagree on which arrays were visited the hints stop
//! for the rest of the object.

mod blocks;
mod classify;
mod hinted;
mod scan;

use serde::de::{DeserializeOwned, DeserializeSeed, Deserializer};

use super::{item::DecodeOptions, json_input::decode_all, managed_fields};

pub(crate) use hinted::{Hinted, Lengths};
pub(crate) use scan::{Scanned, scan};

/// Where `managedFields` is inside an object: skipped, not visited, when it is left out.
const MANAGED_FIELDS: &[&str] = &["metadata", "managedFields"];
/// The same, inside a watch event.
const EVENT_MANAGED_FIELDS: &[&str] = &["object", "metadata", "managedFields"];

/// The mute path for an object decoded with `options`.
pub(crate) fn object_mute(options: DecodeOptions) -> &'static [&'static str] {
    if options.skip_managed_fields { MANAGED_FIELDS } else { &[] }
}

/// The mute path for a watch event decoded with `options`.
pub(crate) fn event_mute(options: DecodeOptions) -> &'static [&'static str] {
    if options.skip_managed_fields { EVENT_MANAGED_FIELDS } else { &[] }
}

/// Decodes one object from `deserializer` with `options`, sizing its sequences from
/// `lengths`.
pub(crate) fn decode_object<'de, K, D>(
    deserializer: D,
    options: DecodeOptions,
    lengths: &Lengths,
) -> Result<K, D::Error>
where
    K: DeserializeOwned,
    D: Deserializer<'de>,
{
    if options.skip_managed_fields {
        K::deserialize(Hinted::new(managed_fields::skipping(deserializer), lengths))
    } else {
        K::deserialize(Hinted::new(deserializer, lengths))
    }
}

/// Decodes the object that is exactly `bytes` (as [`scan`] found it) with `options`,
/// through `K`'s own `Deserialize`.
pub(crate) fn decode_with<K: DeserializeOwned>(
    bytes: &[u8],
    lengths: &Lengths,
    options: DecodeOptions,
) -> serde_json::Result<K> {
    decode_all(bytes, ObjectHinted { options, lengths, _object: std::marker::PhantomData })
}

/// A seed decoding an object as [`decode_object`] does.
pub(crate) struct ObjectHinted<'c, K> {
    pub(crate) options: DecodeOptions,
    pub(crate) lengths: &'c Lengths,
    pub(crate) _object: std::marker::PhantomData<fn() -> K>,
}

impl<'de, K: DeserializeOwned> DeserializeSeed<'de> for ObjectHinted<'_, K> {
    type Value = K;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<K, D::Error> {
        decode_object(deserializer, self.options, self.lengths)
    }
}

#[cfg(test)]
mod scan_reference;
#[cfg(test)]
mod scan_tests;
#[cfg(test)]
mod tests;
