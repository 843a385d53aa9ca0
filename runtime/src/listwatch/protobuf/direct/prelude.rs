//! What the generated decoders (`generated/direct.rs`) use.

pub(crate) use std::any::TypeId;

#[allow(unused_imports)] // For a non-`Option` time in a struct with `Default`: none today.
pub(crate) use super::fields::required;
pub(crate) use super::fields::{
    Cx, DecodeFn, Fields, decode_into, inline, message_over, message_some,
};
pub(crate) use super::many::{
    bools, bytes_entry, ints, message_entry, messages, quantities, quantity_entry, string_entry,
    string_list_entry, strings, time_entry,
};
#[allow(unused_imports)] // `uint`, `double`, `float`: see `scalars`.
pub(crate) use super::scalars::{
    boolean, bytes, double, float, int, int_or_string, micro_time, quantity, raw_json, string,
    time, uint,
};
pub(crate) use crate::listwatch::protobuf::{error::Result, reader::Reader, value::is_zero};
