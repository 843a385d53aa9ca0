//! The single values of each kind, read from the wire into the Rust types k8s-openapi's
//! fields hold; each gives what the serde route gives for the same bytes.

use k8s_openapi::{
    ByteString,
    apimachinery::pkg::{
        api::resource::Quantity,
        apis::meta::v1::{FieldsV1, MicroTime, Time},
        runtime::RawExtension,
        util::intstr::IntOrString,
    },
    jiff::Timestamp,
};
use std::marker::PhantomData;

use serde::de::{Error as _, Unexpected};

use super::fields::{expect_len, expect_wire};
use crate::listwatch::protobuf::{
    error::{Error, Result},
    reader::{FIXED32, FIXED64, Reader, VARINT},
    special,
    value::{self, Value, utf8},
};
use crate::listwatch::{fields_v1, json_input::decode_all};

/// A string.
pub(crate) fn string(wire: u8, reader: &mut Reader<'_>) -> Result<String> {
    expect_len(wire, "String")?;
    utf8(reader.len_delimited()?).map(str::to_owned)
}

/// A signed integer, into the width of the field (out of its range fails as JSON does).
pub(crate) fn int<N: TryFrom<i64>>(wire: u8, reader: &mut Reader<'_>) -> Result<N> {
    expect_wire(wire, VARINT, "Int")?;
    let value = reader.varint()? as i64;
    N::try_from(value)
        .map_err(|_| Error::invalid_value(Unexpected::Signed(value), &std::any::type_name::<N>()))
}

/// An unsigned integer, into the width of the field.
#[allow(dead_code)] // No built-in type of client-go v0.36 has one; `codegen` emits it if one comes.
pub(crate) fn uint<N: TryFrom<u64>>(wire: u8, reader: &mut Reader<'_>) -> Result<N> {
    expect_wire(wire, VARINT, "Uint")?;
    let value = reader.varint()?;
    N::try_from(value)
        .map_err(|_| Error::invalid_value(Unexpected::Unsigned(value), &std::any::type_name::<N>()))
}

/// A `bool`.
pub(crate) fn boolean(wire: u8, reader: &mut Reader<'_>) -> Result<bool> {
    expect_wire(wire, VARINT, "Bool")?;
    Ok(reader.varint()? != 0)
}

/// A `float64`.
#[allow(dead_code)] // No built-in type of client-go v0.36 has one; `codegen` emits it if one comes.
pub(crate) fn double(wire: u8, reader: &mut Reader<'_>) -> Result<f64> {
    expect_wire(wire, FIXED64, "Double")?;
    Ok(f64::from_bits(reader.fixed64()?))
}

/// A `float32`, widened as JSON would carry it.
#[allow(dead_code)] // No built-in type of client-go v0.36 has one; `codegen` emits it if one comes.
pub(crate) fn float(wire: u8, reader: &mut Reader<'_>) -> Result<f64> {
    expect_wire(wire, FIXED32, "Float")?;
    Ok(f64::from(f32::from_bits(reader.fixed32()?)))
}

/// `[]byte`.
pub(crate) fn bytes(wire: u8, reader: &mut Reader<'_>) -> Result<ByteString> {
    expect_len(wire, "Bytes")?;
    Ok(ByteString(reader.len_delimited()?.to_vec()))
}

/// `resource.Quantity`.
pub(crate) fn quantity(wire: u8, reader: &mut Reader<'_>) -> Result<Quantity> {
    expect_len(wire, "Quantity")?;
    quantity_of(reader.len_delimited()?)
}

/// A `resource.Quantity` message; empty is Go's zero Quantity, `0`.
pub(crate) fn quantity_of(message: &[u8]) -> Result<Quantity> {
    Ok(Quantity(value::quantity(message)?.to_owned()))
}

/// `intstr.IntOrString`.
pub(crate) fn int_or_string(wire: u8, reader: &mut Reader<'_>) -> Result<IntOrString> {
    expect_len(wire, "IntOrString")?;
    match value::int_or_string(reader.len_delimited()?)? {
        Value::Str(text) => Ok(IntOrString::String(text.to_owned())),
        Value::Int(number) => i32::try_from(number)
            .map(IntOrString::Int)
            .map_err(|_| Error::invalid_value(Unexpected::Signed(number), &"an i32")),
        _ => Err(Error::wire("an IntOrString that is neither")),
    }
}

/// `metav1.Time`, at seconds precision; `None` for the zero time (JSON's null).
pub(crate) fn time(wire: u8, reader: &mut Reader<'_>) -> Result<Option<Time>> {
    expect_len(wire, "Time")?;
    time_of(reader.len_delimited()?)
}

/// A `metav1.Time` message.
pub(crate) fn time_of(message: &[u8]) -> Result<Option<Time>> {
    timestamp(message, false).map(|at| at.map(Time))
}

/// `metav1.MicroTime`, at microseconds precision; `None` for the zero time.
pub(crate) fn micro_time(wire: u8, reader: &mut Reader<'_>) -> Result<Option<MicroTime>> {
    expect_len(wire, "MicroTime")?;
    timestamp(reader.len_delimited()?, true).map(|at| at.map(MicroTime))
}

/// The instant Go's JSON would show (see [`special::instant`]).
fn timestamp(message: &[u8], micro: bool) -> Result<Option<Timestamp>> {
    let Some((seconds, nanos)) = special::instant(message, micro)? else { return Ok(None) };
    Timestamp::new(seconds, nanos as i32).map(Some).map_err(Error::custom)
}

/// A type whose value is raw JSON: `FieldsV1`, `RawExtension`.
pub(crate) trait FromRaw: Default {
    /// Decodes `raw`, one JSON document, as [`decode_all`] does.
    fn from_raw(raw: &[u8]) -> serde_json::Result<Self>;
}

impl FromRaw for FieldsV1 {
    /// Through this thread's recent texts (`listwatch::fields_v1`): a `fieldsV1` text
    /// decoded recently is cloned, not parsed again.
    fn from_raw(raw: &[u8]) -> serde_json::Result<Self> {
        fields_v1::decode(raw).map(FieldsV1)
    }
}

impl FromRaw for RawExtension {
    fn from_raw(raw: &[u8]) -> serde_json::Result<Self> {
        decode_all(raw, PhantomData::<serde_json::Value>).map(RawExtension)
    }
}

/// `metav1.FieldsV1` or `runtime.RawExtension`: the JSON its `raw` holds; `None` for
/// none (JSON's null).
pub(crate) fn raw_json<T: FromRaw>(wire: u8, reader: &mut Reader<'_>) -> Result<Option<T>> {
    expect_len(wire, "raw JSON")?;
    let Value::RawJson(raw) = value::raw_json(reader.len_delimited()?)? else { return Ok(None) };
    match T::from_raw(raw) {
        Ok(value) => Ok(Some(value)),
        Err(err) if err.classify() == serde_json::error::Category::Data => Err(Error::custom(err)),
        Err(err) => Err(Error::wire(format_args!("a raw JSON field: {err}"))),
    }
}
