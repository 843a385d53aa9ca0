//! The traits of the direct route ([`Direct`], and [`Fields`] for the generated impls),
//! what decoding is asked to leave out ([`Cx`]), the [`DecodeFn`] each kind is looked up
//! by, and the helpers for nested and inline messages.

use std::any::Any;

use serde::de::{Error as _, Unexpected};

use crate::listwatch::protobuf::{
    error::{Error, Result},
    reader::{LEN, Reader},
    value::TypeMeta,
};

/// A k8s-openapi type decoded straight from its protobuf message.
///
/// The `decode_*` methods put a message where its value stays. Their defaults decode it
/// with [`decode`](Direct::decode) and move it there; the generated impls ([`Fields`])
/// decode it in place instead, sparing the move of a struct built on the stack (a
/// `Container` is over a kilobyte, and a Pod holds dozens of such structs).
pub(crate) trait Direct: Sized {
    /// Decodes one message.
    fn decode(bytes: &[u8], cx: Cx) -> Result<Self>;

    /// Decodes one message over `place`: a repeated singular field replaces what the
    /// first one set, as a repeated JSON key does.
    fn decode_over(place: &mut Self, bytes: &[u8], cx: Cx) -> Result<()> {
        *place = Self::decode(bytes, cx)?;
        Ok(())
    }

    /// Decodes one message into `place`, replacing what it held.
    fn decode_some(place: &mut Option<Self>, bytes: &[u8], cx: Cx) -> Result<()> {
        *place = Some(Self::decode(bytes, cx)?);
        Ok(())
    }

    /// Decodes one message onto the end of `out`.
    fn decode_push(out: &mut Vec<Self>, bytes: &[u8], cx: Cx) -> Result<()> {
        out.push(Self::decode(bytes, cx)?);
        Ok(())
    }
}

/// A k8s-openapi type with `Default` whose fields are read into it one by one (the
/// generated impls; the types without `Default` implement [`Direct`] by hand).
pub(crate) trait Fields: Default {
    /// Reads the field numbered `number`, whose tag said `wire`, into `self`; a field the
    /// type does not know is skipped.
    fn field(&mut self, number: u32, wire: u8, reader: &mut Reader<'_>, cx: Cx) -> Result<()>;
}

impl<T: Fields> Direct for T {
    fn decode(bytes: &[u8], cx: Cx) -> Result<Self> {
        let mut out = T::default();
        fill(&mut out, bytes, cx)?;
        Ok(out)
    }

    fn decode_over(place: &mut Self, bytes: &[u8], cx: Cx) -> Result<()> {
        *place = T::default();
        fill(place, bytes, cx)
    }

    fn decode_some(place: &mut Option<Self>, bytes: &[u8], cx: Cx) -> Result<()> {
        fill(place.insert(T::default()), bytes, cx)
    }

    fn decode_push(out: &mut Vec<Self>, bytes: &[u8], cx: Cx) -> Result<()> {
        out.push(T::default());
        fill(out.last_mut().expect("an element was just pushed"), bytes, cx)
    }
}

/// Reads the fields of the message `bytes` into `out`, which starts at its default. On
/// an error `out` holds what was read before it; the whole object is then dropped.
fn fill<T: Fields>(out: &mut T, bytes: &[u8], cx: Cx) -> Result<()> {
    let mut reader = Reader::new(bytes);
    while let Some((number, wire)) = reader.tag()? {
        out.field(number, wire, &mut reader, cx)?;
    }
    Ok(())
}

/// What decoding is asked to leave out.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Cx {
    /// `metadata.managedFields` stays `None` (the informer's `strip_managed_fields()`).
    pub(crate) skip_managed_fields: bool,
}

/// Decodes one object (`type_meta`: the envelope's, checked against the type's) into the
/// `Option<K>` behind `slot`, in place. After an error the slot holds a partial object,
/// which the caller drops.
pub(crate) type DecodeFn =
    for<'a> fn(&'a [u8], Option<TypeMeta<'a>>, Cx, &mut dyn Any) -> Result<()>;

/// The [`DecodeFn`] of `K`, which `generated::direct::decoder` hands out by `TypeId`.
pub(crate) fn decode_into<K: Direct + k8s_openapi::Resource + 'static>(
    bytes: &[u8],
    type_meta: Option<TypeMeta<'_>>,
    cx: Cx,
    slot: &mut dyn Any,
) -> Result<()> {
    if let Some(types) = type_meta {
        // As k8s-openapi's `Deserialize` impls check `apiVersion` and `kind`.
        for (found, wanted) in [(types.api_version, K::API_VERSION), (types.kind, K::KIND)] {
            if found != wanted {
                return Err(Error::invalid_value(Unexpected::Str(found), &wanted));
            }
        }
    }
    let slot = slot.downcast_mut::<Option<K>>().ok_or_else(|| {
        Error::wire(format_args!("a decoder of {} handed another type's slot", K::KIND))
    })?;
    K::decode_some(slot, bytes, cx)
}

/// A nested message field that is not an `Option`, decoded over `place`.
pub(crate) fn message_over<T: Direct>(
    place: &mut T,
    wire: u8,
    reader: &mut Reader<'_>,
    cx: Cx,
) -> Result<()> {
    expect_len(wire, "message")?;
    T::decode_over(place, reader.len_delimited()?, cx)
}

/// A nested message field in an `Option`, decoded into `place`.
pub(crate) fn message_some<T: Direct>(
    place: &mut Option<T>,
    wire: u8,
    reader: &mut Reader<'_>,
    cx: Cx,
) -> Result<()> {
    expect_len(wire, "message")?;
    T::decode_some(place, reader.len_delimited()?, cx)
}

/// A struct embedded with `json:",inline"`: its fields, read by `field`, are its parent's.
pub(crate) fn inline<'de>(
    wire: u8,
    reader: &mut Reader<'de>,
    mut field: impl FnMut(u32, u8, &mut Reader<'de>) -> Result<()>,
) -> Result<()> {
    expect_len(wire, "inline struct")?;
    let mut inner = Reader::new(reader.len_delimited()?);
    while let Some((number, wire)) = inner.tag()? {
        field(number, wire, &mut inner)?;
    }
    Ok(())
}

/// A value that may not be null (a map's time): null fails as it fails in JSON.
pub(crate) fn required<T>(value: Option<T>) -> Result<T> {
    value.ok_or_else(|| Error::invalid_type(Unexpected::Unit, &"a time"))
}

/// Fails unless a field of `what` came length-delimited.
pub(crate) fn expect_len(wire: u8, what: &str) -> Result<()> {
    expect_wire(wire, LEN, what)
}

/// Fails unless the tag of a field of `what` said `want`.
pub(crate) fn expect_wire(wire: u8, want: u8, what: &str) -> Result<()> {
    if wire == want {
        Ok(())
    } else {
        Err(Error::wire(format_args!("wire type {wire} for a {what} value")))
    }
}
