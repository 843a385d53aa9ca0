//! The trait the generated impls implement ([`Fields`]) and the seeds that decode a field
//! into its place: a struct's fields are read into it one by one, a `Vec` of structs gets
//! each element decoded where it will stay, and every other type decodes as k8s-openapi
//! decodes it ([`Leaf`], [`LeafOr`]).
//!
//! Each seed makes the calls k8s-openapi's visitors make (`deserialize_option`, then
//! `deserialize_struct` or `deserialize_seq`), so the wrappers under it (the capacity hints,
//! the managed-fields skip) see the same sequence and stay in step.

use std::{fmt, marker::PhantomData};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::FieldsV1;
use serde::de::{
    self, Deserialize, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Unexpected,
    Visitor,
};
use serde_json::value::RawValue;

use crate::listwatch::fields_v1;

/// A k8s-openapi struct with `Default` whose `Deserialize` impl fills each field from one
/// JSON key, leaves missing fields at their default and a `null` as the default: the
/// generated impls read each field straight into the struct.
pub(crate) trait Fields: Default {
    /// The index of the field `key` names; `None` for a key the type does not know, whose
    /// value is skipped.
    fn index(key: &str) -> Option<u16>;

    /// Reads the value of the field numbered `index` into `self`.
    fn field<'de, A: MapAccess<'de>>(&mut self, index: u16, map: &mut A) -> Result<(), A::Error>;
}

/// The value of an unknown key, skipped as k8s-openapi skips it.
pub(crate) fn skip<'de, A: MapAccess<'de>>(map: &mut A) -> Result<(), A::Error> {
    map.next_value::<IgnoredAny>().map(drop)
}

/// A struct field that is not an `Option`: `null` leaves the default.
pub(crate) struct Obj<'a, T>(pub(crate) &'a mut T);

/// An `Option` of a struct: `null` is `None`.
pub(crate) struct OptObj<'a, T>(pub(crate) &'a mut Option<T>);

/// A `Vec` of structs that is not an `Option`: `null` leaves it empty.
pub(crate) struct Objs<'a, T>(pub(crate) &'a mut Vec<T>);

/// An `Option` of a `Vec` of structs: `null` is `None`.
pub(crate) struct OptObjs<'a, T>(pub(crate) &'a mut Option<Vec<T>>);

/// Any other field whose type is an `Option`: decoded by its own `Deserialize`.
pub(crate) struct Leaf<'a, T>(pub(crate) &'a mut T);

/// Any other field that is not an `Option`: decoded as k8s-openapi decodes it, as an
/// `Option` whose `None` (a `null`) leaves the default.
pub(crate) struct LeafOr<'a, T>(pub(crate) &'a mut T);

/// A `managedFields` entry's `fieldsV1` (an `Option`): what [`Leaf`] decodes, from its text
/// through this thread's recent texts (`listwatch::fields_v1`), so that a text decoded
/// recently is cloned, not parsed again. The text is borrowed from the input, which the
/// in-place route reads as `&str`. A `fieldsV1` with arrays in it (kube-apiserver writes
/// none) leaves the capacity hints out of step for the rest of the object: its arrays are
/// not visited.
pub(crate) struct FieldsLeaf<'a>(pub(crate) &'a mut Option<FieldsV1>);

/// `apiVersion` or `kind` of a resource: checked against the type's, as k8s-openapi checks
/// it, and not stored.
pub(crate) struct Expect(pub(crate) &'static str);

impl<'de, T: de::Deserialize<'de>> DeserializeSeed<'de> for Leaf<'_, T> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        *self.0 = T::deserialize(deserializer)?;
        Ok(())
    }
}

impl<'de, T: de::Deserialize<'de> + Default> DeserializeSeed<'de> for LeafOr<'_, T> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        *self.0 = Option::<T>::deserialize(deserializer)?.unwrap_or_default();
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for FieldsLeaf<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        *self.0 = None;
        deserializer.deserialize_option(Nullable(FieldsText(self.0)))
    }
}

/// Where a non-null `fieldsV1` goes, decoded from its text.
struct FieldsText<'a>(&'a mut Option<FieldsV1>);

impl<'de> Place<'de> for FieldsText<'_> {
    fn some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        let text = <&RawValue>::deserialize(deserializer)?;
        let value = fields_v1::decode(text.get().as_bytes()).map_err(de::Error::custom)?;
        *self.0 = Some(FieldsV1(value));
        Ok(())
    }
}

impl<'de, T: Fields> DeserializeSeed<'de> for Obj<'_, T> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        *self.0 = T::default();
        deserializer.deserialize_option(Nullable(StructInto(self.0)))
    }
}

impl<'de, T: Fields> DeserializeSeed<'de> for OptObj<'_, T> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        *self.0 = None;
        deserializer.deserialize_option(Nullable(Inserted(self.0)))
    }
}

impl<'de, T: Fields> DeserializeSeed<'de> for Objs<'_, T> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        // A new `Vec`, not a cleared one: a repeated key gets the capacity of its own value.
        *self.0 = Vec::new();
        deserializer.deserialize_option(Nullable(VecInto(self.0)))
    }
}

impl<'de, T: Fields> DeserializeSeed<'de> for OptObjs<'_, T> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        *self.0 = None;
        deserializer.deserialize_option(Nullable(InsertedVec(self.0)))
    }
}

impl<'de> DeserializeSeed<'de> for Expect {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_string(self)
    }
}

impl Visitor<'_> for Expect {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<(), E> {
        if value == self.0 { Ok(()) } else { Err(E::invalid_value(Unexpected::Str(value), &self)) }
    }
}

/// Where the value of a non-null field goes: a seed that leaves its place as it is when
/// the value is `null` (the seeds above reset the place first).
trait Place<'de> {
    fn some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error>;
}

/// The `Option` visitor k8s-openapi's fields go through: `null` (serde_json's `visit_none`,
/// a skipped value's `visit_unit`) leaves the place reset; anything else is decoded into it.
struct Nullable<P>(P);

impl<'de, P: Place<'de>> Visitor<'de> for Nullable<P> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an optional value")
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.0.some(deserializer)
    }
}

/// A struct decoded into its place, field by field.
struct StructInto<'a, T>(&'a mut T);

impl<'de, T: Fields> Place<'de> for StructInto<'_, T> {
    fn some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_struct("", &[], self)
    }
}

impl<'de, T: Fields> Visitor<'de> for StructInto<'_, T> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a struct")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(index) = map.next_key_seed(Key::<T>(PhantomData))? {
            match index {
                Some(index) => self.0.field(index, &mut map)?,
                None => skip(&mut map)?,
            }
        }
        Ok(())
    }
}

/// A seed for the struct in an `Option`, which is inserted first.
struct Inserted<'a, T>(&'a mut Option<T>);

impl<'de, T: Fields> Place<'de> for Inserted<'_, T> {
    fn some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        StructInto(self.0.insert(T::default())).some(deserializer)
    }
}

/// A `Vec` of structs whose elements are decoded where they stay.
struct VecInto<'a, T>(&'a mut Vec<T>);

impl<'de, T: Fields> Place<'de> for VecInto<'_, T> {
    fn some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, T: Fields> Visitor<'de> for VecInto<'_, T> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        // As serde's own `Vec` visitor: the hint, but no more than 1 MiB up front.
        let cautious = (1 << 20) / std::mem::size_of::<T>().max(1);
        self.0.reserve_exact(seq.size_hint().unwrap_or(0).min(cautious));
        loop {
            if self.0.len() == self.0.capacity() {
                // No room left: pushing a default to decode into would grow the `Vec`
                // before the end is known, so the element (if one comes: the hint is
                // used up, so normally none) is decoded beside it and moved in.
                let mut element = T::default();
                if seq.next_element_seed(Element(&mut element))?.is_none() {
                    return Ok(());
                }
                self.0.push(element);
                continue;
            }
            let index = self.0.len();
            self.0.push(T::default());
            if seq.next_element_seed(Element(&mut self.0[index]))?.is_none() {
                self.0.pop();
                return Ok(());
            }
        }
    }
}

/// A seed for the `Vec` in an `Option`, which is inserted first.
struct InsertedVec<'a, T>(&'a mut Option<Vec<T>>);

impl<'de, T: Fields> Place<'de> for InsertedVec<'_, T> {
    fn some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        VecInto(self.0.insert(Vec::new())).some(deserializer)
    }
}

/// One element of a `Vec` of structs: decoded as serde's `Vec` visitor decodes it, with
/// no `Option` around it (a `null` element fails).
struct Element<'a, T>(&'a mut T);

impl<'de, T: Fields> DeserializeSeed<'de> for Element<'_, T> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        StructInto(self.0).some(deserializer)
    }
}

/// A struct's key, turned into its field's index as it is read (no `String` is made).
struct Key<T>(PhantomData<fn() -> T>);

impl<'de, T: Fields> DeserializeSeed<'de> for Key<T> {
    type Value = Option<u16>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<u16>, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<T: Fields> Visitor<'_> for Key<T> {
    type Value = Option<u16>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field identifier")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Option<u16>, E> {
        Ok(T::index(key))
    }
}

/// Decodes the struct `deserializer` holds into `place`, field by field (an object, not
/// a field: no `Option` around it).
pub(crate) fn into_struct<'de, T: Fields, D: Deserializer<'de>>(
    place: &mut T,
    deserializer: D,
) -> Result<(), D::Error> {
    StructInto(place).some(deserializer)
}
