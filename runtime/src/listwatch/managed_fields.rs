//! Decoding an object without its `metadata.managedFields`: the value is skipped in
//! the input (`IgnoredAny`, no tree is built) and the field decodes as `None`.
//!
//! [`WithoutManagedFields`] wraps the deserializer of one object. It watches the keys
//! of the object's top-level map; the value of `metadata` is wrapped once more, and in
//! that map the value of `managedFields` is skipped. Every other value is decoded by
//! the inner deserializer untouched, so a field named `managedFields` anywhere else
//! (in a CRD's spec, say) is kept, and the cost is a few branches per top-level key.

use std::{fmt, marker::PhantomData};

use serde::de::{
    self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor, value::UnitDeserializer,
};

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

/// Forwards each `deserialize_*` method to the inner deserializer with the visitor
/// wrapped by `$wrap`.
macro_rules! forward_deserializer {
    ($wrap:expr; $($method:ident($($arg:ident: $ty:ty),*)),* $(,)?) => {
        $(
            fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Self::Error> {
                let wrap = $wrap;
                let (inner, visitor) = wrap(self, visitor);
                inner.$method($($arg,)* visitor)
            }
        )*
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Wrapped<D> {
    type Error = D::Error;

    forward_deserializer! {
        |this: Self, visitor| (this.inner, WrappedVisitor { inner: visitor, level: this.level });
        deserialize_any(), deserialize_bool(), deserialize_i8(), deserialize_i16(),
        deserialize_i32(), deserialize_i64(), deserialize_i128(), deserialize_u8(),
        deserialize_u16(), deserialize_u32(), deserialize_u64(), deserialize_u128(),
        deserialize_f32(), deserialize_f64(), deserialize_char(), deserialize_str(),
        deserialize_string(), deserialize_bytes(), deserialize_byte_buf(),
        deserialize_option(), deserialize_unit(), deserialize_seq(), deserialize_map(),
        deserialize_identifier(), deserialize_ignored_any(),
        deserialize_unit_struct(name: &'static str),
        deserialize_newtype_struct(name: &'static str),
        deserialize_tuple(len: usize),
        deserialize_tuple_struct(name: &'static str, len: usize),
        deserialize_struct(name: &'static str, fields: &'static [&'static str]),
        deserialize_enum(name: &'static str, variants: &'static [&'static str]),
    }

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

/// Forwards `visit_*` methods that take a plain value.
macro_rules! forward_visits {
    ($($method:ident($ty:ty)),* $(,)?) => {
        $(
            fn $method<E: de::Error>(self, value: $ty) -> Result<Self::Value, E> {
                self.inner.$method(value)
            }
        )*
    };
}

impl<'de, V: Visitor<'de>> Visitor<'de> for WrappedVisitor<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.inner.visit_map(InterceptingMap { inner: map, level: self.level, hit: false })
    }

    forward_visits! {
        visit_bool(bool), visit_i8(i8), visit_i16(i16), visit_i32(i32), visit_i64(i64),
        visit_i128(i128), visit_u8(u8), visit_u16(u16), visit_u32(u32), visit_u64(u64),
        visit_u128(u128), visit_f32(f32), visit_f64(f64), visit_char(char),
        visit_str(&str), visit_borrowed_str(&'de str), visit_string(String),
        visit_bytes(&[u8]), visit_borrowed_bytes(&'de [u8]), visit_byte_buf(Vec<u8>),
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.inner.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.inner.visit_unit()
    }

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
        let key = KeySeed { inner: seed, name: self.level.key(), hit: &mut self.hit };
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

/// A map key: decoded by the caller's seed, while noting whether it equals `name`.
struct KeySeed<'a, S> {
    inner: S,
    name: &'static str,
    hit: &'a mut bool,
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

    forward_deserializer! {
        |this: Self, visitor| (this.inner, KeyVisitor { inner: visitor, name: this.name, hit: this.hit });
        deserialize_any(), deserialize_bool(), deserialize_i8(), deserialize_i16(),
        deserialize_i32(), deserialize_i64(), deserialize_i128(), deserialize_u8(),
        deserialize_u16(), deserialize_u32(), deserialize_u64(), deserialize_u128(),
        deserialize_f32(), deserialize_f64(), deserialize_char(), deserialize_str(),
        deserialize_string(), deserialize_bytes(), deserialize_byte_buf(),
        deserialize_option(), deserialize_unit(), deserialize_seq(), deserialize_map(),
        deserialize_identifier(), deserialize_ignored_any(),
        deserialize_unit_struct(name: &'static str),
        deserialize_newtype_struct(name: &'static str),
        deserialize_tuple(len: usize),
        deserialize_tuple_struct(name: &'static str, len: usize),
        deserialize_struct(name: &'static str, fields: &'static [&'static str]),
        deserialize_enum(name: &'static str, variants: &'static [&'static str]),
    }

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

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::Pod;
    use kube::core::DynamicObject;
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    fn pod_json() -> serde_json::Value {
        json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": "web-1",
                "namespace": "prod",
                "labels": {"app": "web"},
                "managedFields": [{
                    "manager": "kubectl",
                    "operation": "Apply",
                    "apiVersion": "v1",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:metadata": {"f:labels": {"f:app": {}}}}
                }],
                "resourceVersion": "7"
            },
            "spec": {"containers": [{"name": "app", "image": "nginx"}]},
            "status": {"phase": "Running"}
        })
    }

    fn without<K: serde::de::DeserializeOwned>(json: &serde_json::Value) -> K {
        let bytes = serde_json::to_vec(json).unwrap();
        let mut deserializer = serde_json::Deserializer::from_slice(&bytes);
        WithoutManagedFields::<K>::new().deserialize(&mut deserializer).unwrap()
    }

    #[test]
    fn a_pod_decodes_without_managed_fields_and_otherwise_equal() {
        let json = pod_json();
        let plain: Pod = serde_json::from_value(json.clone()).unwrap();
        assert!(plain.metadata.managed_fields.is_some());

        let skipped: Pod = without(&json);
        assert_eq!(skipped.metadata.managed_fields, None);
        let mut expected = plain;
        expected.metadata.managed_fields = None;
        assert_eq!(skipped, expected);
    }

    #[test]
    fn optional_metadata_is_intercepted_too() {
        // ConfigMap's `metadata` is an `Option<ObjectMeta>` in k8s-openapi.
        let json = json!({"metadata": {"name": "c", "managedFields": [{"manager": "m"}]}, "data": {"k": "v"}});
        let skipped: k8s_openapi::api::core::v1::ConfigMap = without(&json);
        assert_eq!(skipped.metadata.managed_fields, None);
        assert_eq!(skipped.metadata.name.as_deref(), Some("c"));
        assert_eq!(skipped.data.unwrap()["k"], "v");
    }

    #[test]
    fn managed_fields_anywhere_in_metadata_order_is_skipped() {
        // `managedFields` first and last in `metadata`, `metadata` last in the object.
        let json = json!({
            "spec": {"containers": []},
            "kind": "Pod",
            "apiVersion": "v1",
            "metadata": {"managedFields": [{"manager": "a"}], "name": "x", "uid": "u", "managedFields2": 1}
        });
        let skipped: Pod = without(&json);
        assert_eq!(skipped.metadata.name.as_deref(), Some("x"));
        assert_eq!(skipped.metadata.uid.as_deref(), Some("u"));
        assert_eq!(skipped.metadata.managed_fields, None);
    }

    #[test]
    fn malformed_managed_fields_are_skipped_but_a_malformed_document_still_fails() {
        // Only the value is skipped; it is still parsed as JSON.
        let skipped: Pod =
            without(&json!({"metadata": {"name": "x", "managedFields": "not-a-list"}}));
        assert_eq!(skipped.metadata.name.as_deref(), Some("x"));
        let broken = br#"{"metadata": {"name": "x", "managedFields": [}}"#;
        let mut deserializer = serde_json::Deserializer::from_slice(broken);
        assert!(WithoutManagedFields::<Pod>::new().deserialize(&mut deserializer).is_err());
        // A wrongly typed field elsewhere is still an error.
        let wrong =
            serde_json::to_vec(&json!({"metadata": {"name": "x", "labels": "flat"}})).unwrap();
        let mut deserializer = serde_json::Deserializer::from_slice(&wrong);
        assert!(WithoutManagedFields::<Pod>::new().deserialize(&mut deserializer).is_err());
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Crd {
        metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
        spec: CrdSpec,
        managed_fields: Option<Vec<String>>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct CrdSpec {
        managed_fields: Vec<String>,
        metadata: Nested,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Nested {
        managed_fields: Vec<String>,
    }

    #[test]
    fn a_crd_keeps_its_own_managed_fields_fields() {
        let json = json!({
            "metadata": {"name": "c", "managedFields": [{"manager": "m"}]},
            "spec": {"managedFields": ["spec-level"], "metadata": {"managedFields": ["nested"]}},
            "managedFields": ["top-level"]
        });
        let skipped: Crd = without(&json);
        assert_eq!(skipped.metadata.managed_fields, None);
        assert_eq!(skipped.spec.managed_fields, ["spec-level"]);
        assert_eq!(skipped.spec.metadata.managed_fields, ["nested"]);
        assert_eq!(skipped.managed_fields, Some(vec!["top-level".to_owned()]));
    }

    #[test]
    fn dynamic_objects_skip_managed_fields_and_keep_their_data() {
        let skipped: DynamicObject = without(&pod_json());
        assert_eq!(skipped.metadata.managed_fields, None);
        assert_eq!(skipped.metadata.labels.unwrap()["app"], "web");
        assert_eq!(skipped.data["spec"]["containers"][0]["image"], "nginx");
        assert_eq!(skipped.types.unwrap().kind, "Pod");
    }
}
