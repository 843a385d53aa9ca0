//! The statement a decoder's match arm runs for one schema field: which runtime helper
//! decodes it and how its value lands in the struct field (`Some(..)`, `required(..)`,
//! into the `Vec` or the map). The selection asks the same function whether a field is
//! supported, so what it accepts is exactly what emission can write.

use super::schema::{Field, Kind};
use super::structs::StructField;

/// The statement for `field` decoded into `target` (`self.<ident>`), such as
/// `self.name = Some(string(wire, reader)?)`; or why there is none.
pub fn statement(field: &Field, target: &StructField) -> Result<String, String> {
    let statement = unchecked_statement(field, target)?;
    check_shape(field, target)?;
    Ok(statement)
}

/// [`statement`], before checking the struct field's type has the field's shape.
fn unchecked_statement(field: &Field, target: &StructField) -> Result<String, String> {
    let place = format!("self.{}", target.ident);
    let option = target.is_option();
    if let Kind::Map(value) = &field.kind {
        if field.repeated {
            return Err("a repeated map".into());
        }
        let helper = match value.as_ref() {
            Kind::String => "string_entry",
            Kind::Quantity => "quantity_entry",
            Kind::Bytes => "bytes_entry",
            Kind::StringList => "string_list_entry",
            Kind::Time => "time_entry",
            Kind::Message(_) => "message_entry",
            other => return Err(format!("a map of {}", describe(other))),
        };
        let map = if option {
            format!("{place}.get_or_insert_with(Default::default)")
        } else {
            format!("&mut {place}")
        };
        let cx = if matches!(value.as_ref(), Kind::Message(_)) { ", cx" } else { "" };
        return Ok(format!("{helper}({map}, wire, reader{cx})?"));
    }
    if field.repeated {
        let helper = match &field.kind {
            Kind::String => "strings",
            Kind::Int => "ints",
            Kind::Bool => "bools",
            Kind::Quantity => "quantities",
            Kind::Message(_) => "messages",
            other => return Err(format!("a repeated {}", describe(other))),
        };
        let vec = if option {
            format!("{place}.get_or_insert_with(Vec::new)")
        } else {
            format!("&mut {place}")
        };
        let cx = if matches!(field.kind, Kind::Message(_)) { ", cx" } else { "" };
        return Ok(format!("{helper}({vec}, number, wire, reader{cx})?"));
    }
    let set = |value: &str| {
        if option { format!("{place} = Some({value})") } else { format!("{place} = {value}") }
    };
    let assignment = match &field.kind {
        Kind::String => set("string(wire, reader)?"),
        Kind::Int => set("int(wire, reader)?"),
        Kind::Uint => set("uint(wire, reader)?"),
        Kind::Bool => set("boolean(wire, reader)?"),
        Kind::Double => set("double(wire, reader)?"),
        Kind::Float => set("float(wire, reader)?"),
        Kind::Bytes => set("bytes(wire, reader)?"),
        // Decoded where it stays (no struct built on the stack and moved).
        Kind::Message(_) if option => format!("message_some(&mut {place}, wire, reader, cx)?"),
        Kind::Message(_) => format!("message_over(&mut {place}, wire, reader, cx)?"),
        Kind::Quantity => set("quantity(wire, reader)?"),
        Kind::IntOrString => set("int_or_string(wire, reader)?"),
        Kind::Time | Kind::MicroTime | Kind::RawJson => {
            let helper = match field.kind {
                Kind::Time => "time",
                Kind::MicroTime => "micro_time",
                _ => "raw_json",
            };
            match (option, &field.kind) {
                (true, _) => format!("{place} = {helper}(wire, reader)?"),
                (false, Kind::RawJson) => {
                    format!("{place} = {helper}(wire, reader)?.unwrap_or_default()")
                }
                (false, _) => format!("{place} = required({helper}(wire, reader)?)?"),
            }
        }
        Kind::StringList | Kind::Map(_) | Kind::Inline(_) => {
            return Err(format!("a single {}", describe(&field.kind)));
        }
    };
    Ok(if field.omit_zero {
        format!("if is_zero(reader, wire)? {{ reader.skip(wire)? }} else {{ {assignment} }}")
    } else {
        assignment
    })
}

/// Checks that the Rust type is a `Vec` for a repeated field, a `BTreeMap` for a map and
/// neither otherwise (an `Option` around it or not).
fn check_shape(field: &Field, target: &StructField) -> Result<(), String> {
    let ty = target.ty.as_str();
    let inner = ty.strip_prefix("Option<").and_then(|t| t.strip_suffix('>')).unwrap_or(ty);
    let is_vec = inner.starts_with("std::vec::Vec<");
    let is_map = inner.starts_with("std::collections::BTreeMap<");
    let (wanted, ok) = match (&field.kind, field.repeated) {
        (Kind::Map(_), _) => ("a `BTreeMap` for a map", is_map),
        (_, true) => ("a `Vec` for a repeated field", is_vec),
        (_, false) => ("a single value", !is_vec && !is_map),
    };
    if ok { Ok(()) } else { Err(format!("its Rust type `{ty}` is not {wanted}")) }
}

/// The message path a field type names below the crate, wrappers (`Option`, `Vec`,
/// `BTreeMap<String, _>`) removed: `Option<std::vec::Vec<crate::api::core::v1::Container>>`
/// -> `api::core::v1::Container`.
pub fn named_type(ty: &str) -> &str {
    let mut ty = ty;
    loop {
        let inner =
            ["Option<", "std::vec::Vec<", "std::collections::BTreeMap<std::string::String, "]
                .iter()
                .find_map(|wrapper| ty.strip_prefix(wrapper))
                .and_then(|inner| inner.strip_suffix('>'));
        match inner {
            Some(inner) => ty = inner,
            None => return ty.strip_prefix("crate::").unwrap_or(ty),
        }
    }
}

/// A kind as the schema table spells it, for messages.
pub fn describe(kind: &Kind) -> String {
    match kind {
        Kind::Message(m) => format!("Message(&{m})"),
        Kind::Inline(m) => format!("Inline(&{m})"),
        Kind::Map(value) => format!("Map(&{})", describe(value)),
        other => format!("{other:?}"),
    }
}
