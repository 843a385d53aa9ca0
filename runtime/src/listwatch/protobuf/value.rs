//! One value read from the wire ([`Value`]), ready for the deserializer to hand to a
//! visitor, and the readers of the single values of each [`Kind`].

use super::{
    error::{Error, Result},
    reader::{FIXED32, FIXED64, LEN, Reader, Scalar, VARINT, for_each_field},
    special::{self, TimeText},
    types::{Kind, Message},
};

/// An object's `apiVersion` and `kind`, from the envelope, presented as its first keys
/// (JSON objects of a watch carry them; list items carry none).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TypeMeta<'de> {
    pub(crate) api_version: &'de str,
    pub(crate) kind: &'de str,
}

/// One value, read from the wire and ready to hand to a visitor.
pub(crate) enum Value<'de> {
    Null,
    Int(i64),
    Uint(u64),
    Bool(bool),
    Double(f64),
    Str(&'de str),
    Owned(String),
    Time(TimeText),
    Message(&'de [u8], &'static Message, Option<TypeMeta<'de>>),
    /// The contiguous entries of a repeated field, tags included, and how many there are
    /// (a packed run counts as one).
    Repeated(&'de [u8], &'static Kind, usize),
    /// The contiguous entries of a map field, tags included; the kind of the values.
    Map(&'de [u8], &'static Kind),
    StringList(&'de [u8]),
    RawJson(&'de [u8]),
}

/// The wire type a single value of `kind` has.
pub(crate) fn wire_of(kind: &Kind) -> u8 {
    match kind {
        Kind::Int | Kind::Uint | Kind::Bool => VARINT,
        Kind::Double => FIXED64,
        Kind::Float => FIXED32,
        _ => LEN,
    }
}

/// Reads one value of `kind` whose tag said `wire`.
pub(crate) fn read_single<'de>(
    reader: &mut Reader<'de>,
    wire: u8,
    kind: &'static Kind,
) -> Result<Value<'de>> {
    if wire != wire_of(kind) {
        return Err(Error::wire(format_args!("wire type {wire} for a {kind:?} value")));
    }
    Ok(match kind {
        Kind::Int => Value::Int(reader.varint()? as i64),
        Kind::Uint => Value::Uint(reader.varint()?),
        Kind::Bool => Value::Bool(reader.varint()? != 0),
        Kind::Double => Value::Double(f64::from_bits(reader.fixed64()?)),
        Kind::Float => Value::Double(f64::from(f32::from_bits(reader.fixed32()?))),
        _ => resolve(reader.len_delimited()?, kind)?,
    })
}

/// The value of a length-delimited field of `kind`.
pub(crate) fn resolve<'de>(bytes: &'de [u8], kind: &'static Kind) -> Result<Value<'de>> {
    Ok(match kind {
        Kind::String => Value::Str(utf8(bytes)?),
        Kind::Bytes => Value::Owned(special::base64(bytes)),
        Kind::Message(message) => Value::Message(bytes, message, None),
        Kind::Time => special::time(bytes, false)?.map_or(Value::Null, Value::Time),
        Kind::MicroTime => special::time(bytes, true)?.map_or(Value::Null, Value::Time),
        Kind::Quantity => Value::Str(quantity(bytes)?),
        Kind::IntOrString => int_or_string(bytes)?,
        Kind::RawJson => raw_json(bytes)?,
        Kind::StringList => Value::StringList(bytes),
        Kind::Int | Kind::Uint | Kind::Bool | Kind::Double | Kind::Float => {
            return Err(Error::wire(format_args!("a length-delimited {kind:?} value")));
        }
        Kind::Inline(_) | Kind::Map(_) => {
            return Err(Error::wire("an inline or map kind outside a message field"));
        }
    })
}

/// The value of `kind` a field absent from a map entry has (Go's zero value).
pub(crate) fn zero<'de>(kind: &'static Kind) -> Result<Value<'de>> {
    Ok(match kind {
        Kind::Int | Kind::Uint | Kind::Bool | Kind::Double | Kind::Float => {
            read_single(&mut Reader::new(&[0; 8]), wire_of(kind), kind)?
        }
        _ => resolve(&[], kind)?,
    })
}

pub(crate) fn utf8(bytes: &[u8]) -> Result<&str> {
    std::str::from_utf8(bytes).map_err(|_| Error::wire("a string field is not UTF-8"))
}

/// `resource.Quantity`: `{string = 1}`; Go's zero Quantity prints as `0`.
pub(crate) fn quantity(bytes: &[u8]) -> Result<&str> {
    let mut text = "0";
    for_each_field(bytes, |number, value| {
        if let (1, Scalar::Bytes(bytes)) = (number, value) {
            text = utf8(bytes)?;
        }
        Ok(())
    })?;
    Ok(text)
}

/// `intstr.IntOrString`: `{type = 1, intVal = 2, strVal = 3}`, type 1 a string.
pub(crate) fn int_or_string(bytes: &[u8]) -> Result<Value<'_>> {
    let (mut is_string, mut int, mut text) = (false, 0i64, "");
    for_each_field(bytes, |number, value| {
        match (number, value) {
            (1, Scalar::Number(kind)) => is_string = kind == 1,
            (2, Scalar::Number(value)) => int = i64::from(value as i32),
            (3, Scalar::Bytes(bytes)) => text = utf8(bytes)?,
            _ => {}
        }
        Ok(())
    })?;
    Ok(if is_string { Value::Str(text) } else { Value::Int(int) })
}

/// `FieldsV1` and `RawExtension`: `{raw = 1}`, the raw bytes being JSON; none is null.
pub(crate) fn raw_json(bytes: &[u8]) -> Result<Value<'_>> {
    let mut raw: &[u8] = &[];
    for_each_field(bytes, |number, value| {
        if let (1, Scalar::Bytes(bytes)) = (number, value) {
            raw = bytes;
        }
        Ok(())
    })?;
    Ok(if raw.is_empty() { Value::Null } else { Value::RawJson(raw) })
}

/// Whether a single value on the wire is its kind's zero (for [`OMIT_ZERO`]).
pub(crate) fn is_zero(reader: &Reader<'_>, wire: u8) -> Result<bool> {
    let mut ahead = *reader;
    Ok(match wire {
        VARINT => ahead.varint()? == 0,
        LEN => ahead.len_delimited()?.is_empty(),
        FIXED64 => f64::from_bits(ahead.fixed64()?) == 0.0,
        FIXED32 => f32::from_bits(ahead.fixed32()?) == 0.0,
        _ => false,
    })
}
