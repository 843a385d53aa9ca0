//! Repeated fields (a Go slice: one tag per entry, the entries one after another) and map
//! fields (a Go map: one `{key = 1, value = 2}` entry message per key).

use std::collections::BTreeMap;

use k8s_openapi::{
    ByteString,
    apimachinery::pkg::{api::resource::Quantity, apis::meta::v1::Time},
};

use super::{
    fields::{Cx, Direct, expect_len, required},
    scalars::{boolean, int, quantity, quantity_of, string, time_of},
};
use crate::listwatch::protobuf::{
    error::{Error, Result},
    reader::{LEN, Reader, VARINT},
    value::utf8,
};

/// Reads the run of entries of the repeated field `number` that starts here (its first tag,
/// of `wire` type, is read) into `out`, sized for the run first as the serde route sizes
/// its `Vec`s. Go writes a slice's entries one after another; a field repeated again later
/// appends to the same `Vec`.
fn run<'de, T>(
    out: &mut Vec<T>,
    number: u32,
    wire: u8,
    reader: &mut Reader<'de>,
    one: impl Fn(u8, &mut Reader<'de>) -> Result<T>,
) -> Result<()> {
    run_into(out, number, wire, reader, |out, wire, reader| {
        out.push(one(wire, reader)?);
        Ok(())
    })
}

/// [`run`] with `append` putting each entry onto the end of `out` itself.
fn run_into<'de, T>(
    out: &mut Vec<T>,
    number: u32,
    wire: u8,
    reader: &mut Reader<'de>,
    mut append: impl FnMut(&mut Vec<T>, u8, &mut Reader<'de>) -> Result<()>,
) -> Result<()> {
    let mut ahead = *reader;
    out.reserve_exact(ahead.skip_run(number, wire)?);
    append(out, wire, reader)?;
    while reader.peek_number() == Some(number) {
        let (_, wire) = reader.tag()?.expect("a tag was peeked");
        append(out, wire, reader)?;
    }
    Ok(())
}

/// As [`run`] for a varint kind, whose entries may also come packed (length-delimited
/// runs of varints; Go does not write them for these proto2 messages, but they are valid).
fn varints<'de, T>(
    out: &mut Vec<T>,
    number: u32,
    mut wire: u8,
    reader: &mut Reader<'de>,
    one: impl Fn(u8, &mut Reader<'de>) -> Result<T>,
) -> Result<()> {
    loop {
        if wire == LEN {
            let mut packed = Reader::new(reader.len_delimited()?);
            while !packed.is_empty() {
                out.push(one(VARINT, &mut packed)?);
            }
        } else {
            out.push(one(wire, reader)?);
        }
        if reader.peek_number() != Some(number) {
            return Ok(());
        }
        (_, wire) = reader.tag()?.expect("a tag was peeked");
    }
}

/// `[]string`.
pub(crate) fn strings(
    out: &mut Vec<String>,
    number: u32,
    wire: u8,
    reader: &mut Reader<'_>,
) -> Result<()> {
    run(out, number, wire, reader, string)
}

/// A slice of signed integers.
pub(crate) fn ints<N: TryFrom<i64>>(
    out: &mut Vec<N>,
    number: u32,
    wire: u8,
    reader: &mut Reader<'_>,
) -> Result<()> {
    varints(out, number, wire, reader, int)
}

/// `[]bool`.
pub(crate) fn bools(
    out: &mut Vec<bool>,
    number: u32,
    wire: u8,
    reader: &mut Reader<'_>,
) -> Result<()> {
    varints(out, number, wire, reader, boolean)
}

/// `[]resource.Quantity`.
pub(crate) fn quantities(
    out: &mut Vec<Quantity>,
    number: u32,
    wire: u8,
    reader: &mut Reader<'_>,
) -> Result<()> {
    run(out, number, wire, reader, quantity)
}

/// A slice of structs.
pub(crate) fn messages<T: Direct>(
    out: &mut Vec<T>,
    number: u32,
    wire: u8,
    reader: &mut Reader<'_>,
    cx: Cx,
) -> Result<()> {
    run_into(out, number, wire, reader, |out, wire, reader| {
        expect_len(wire, "message")?;
        T::decode_push(out, reader.len_delimited()?, cx)
    })
}

/// One entry of a map field: its key, and its value's bytes if it has one (every map value
/// kind of the built-in types is length-delimited; a missing value is Go's zero value).
fn entry<'de>(wire: u8, reader: &mut Reader<'de>) -> Result<(&'de str, Option<&'de [u8]>)> {
    expect_len(wire, "map entry")?;
    let mut fields = Reader::new(reader.len_delimited()?);
    let (mut key, mut value) = ("", None);
    while let Some((number, wire)) = fields.tag()? {
        match (number, wire) {
            (1, LEN) => key = utf8(fields.len_delimited()?)?,
            (2, LEN) => value = Some(fields.len_delimited()?),
            (2, _) => return Err(Error::wire("a map value not length-delimited")),
            _ => fields.skip(wire)?,
        }
    }
    Ok((key, value))
}

/// `map[string]string`.
pub(crate) fn string_entry(
    out: &mut BTreeMap<String, String>,
    wire: u8,
    reader: &mut Reader<'_>,
) -> Result<()> {
    let (key, value) = entry(wire, reader)?;
    out.insert(key.to_owned(), utf8(value.unwrap_or_default())?.to_owned());
    Ok(())
}

/// `map[string]resource.Quantity` (`ResourceList`).
pub(crate) fn quantity_entry(
    out: &mut BTreeMap<String, Quantity>,
    wire: u8,
    reader: &mut Reader<'_>,
) -> Result<()> {
    let (key, value) = entry(wire, reader)?;
    out.insert(key.to_owned(), quantity_of(value.unwrap_or_default())?);
    Ok(())
}

/// `map[string][]byte`.
pub(crate) fn bytes_entry(
    out: &mut BTreeMap<String, ByteString>,
    wire: u8,
    reader: &mut Reader<'_>,
) -> Result<()> {
    let (key, value) = entry(wire, reader)?;
    out.insert(key.to_owned(), ByteString(value.unwrap_or_default().to_vec()));
    Ok(())
}

/// `map[string]ExtraValue`, each value a `{repeated string items = 1}` message.
pub(crate) fn string_list_entry(
    out: &mut BTreeMap<String, Vec<String>>,
    wire: u8,
    reader: &mut Reader<'_>,
) -> Result<()> {
    let (key, value) = entry(wire, reader)?;
    let mut items = Vec::new();
    let mut list = Reader::new(value.unwrap_or_default());
    while let Some((number, wire)) = list.tag()? {
        match number {
            1 => items.push(string(wire, &mut list)?),
            _ => list.skip(wire)?,
        }
    }
    out.insert(key.to_owned(), items);
    Ok(())
}

/// `map[string]metav1.Time`; a zero time fails, as null does in JSON.
pub(crate) fn time_entry(
    out: &mut BTreeMap<String, Time>,
    wire: u8,
    reader: &mut Reader<'_>,
) -> Result<()> {
    let (key, value) = entry(wire, reader)?;
    out.insert(key.to_owned(), required(time_of(value.unwrap_or_default())?)?);
    Ok(())
}

/// A map of structs.
pub(crate) fn message_entry<T: Direct>(
    out: &mut BTreeMap<String, T>,
    wire: u8,
    reader: &mut Reader<'_>,
    cx: Cx,
) -> Result<()> {
    let (key, value) = entry(wire, reader)?;
    out.insert(key.to_owned(), T::decode(value.unwrap_or_default(), cx)?);
    Ok(())
}
