//! How one object is decoded: [`DecodeOptions`], and [`ItemSeed`], which decodes an object
//! with them from any deserializer (JSON in `list_stream` and `decode`, protobuf in
//! `protobuf`).

use std::marker::PhantomData;

use serde::de::{DeserializeOwned, DeserializeSeed, Deserializer};

use super::managed_fields::WithoutManagedFields;

/// How objects are decoded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct DecodeOptions {
    /// Skip `metadata.managedFields` while decoding; it comes out as `None`.
    pub(crate) skip_managed_fields: bool,
}

/// Decodes one object, with or without its managed fields, from any deserializer (JSON
/// here and in `list_stream`, protobuf in `protobuf`).
pub(crate) struct ItemSeed<K> {
    options: DecodeOptions,
    _item: PhantomData<fn() -> K>,
}

impl<K> ItemSeed<K> {
    pub(crate) fn new(options: DecodeOptions) -> Self {
        Self { options, _item: PhantomData }
    }
}

impl<'de, K: DeserializeOwned> DeserializeSeed<'de> for ItemSeed<K> {
    type Value = K;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<K, D::Error> {
        if self.options.skip_managed_fields {
            WithoutManagedFields::<K>::new().deserialize(deserializer)
        } else {
            K::deserialize(deserializer)
        }
    }
}
