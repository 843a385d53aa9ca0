//! Which structs get an impl ([`eligible`]) and how each field is decoded ([`seed`]).

use crate::proto::structs::{Struct, Structs};

/// Whether a struct gets an impl: it has named fields and `Default` (decoding starts
/// from it), and its `Deserialize` impl maps a JSON key to every field (the generated
/// visitor shape, which leaves a missing or `null` field at its default).
pub fn eligible(found: &Struct) -> bool {
    !found.tuple && found.default && found.fields.iter().all(|field| field.json.is_some())
}

/// The type of a `managedFields` entry's `fieldsV1`, a `serde_json::Value`.
const FIELDS_V1: &str = "crate::apimachinery::pkg::apis::meta::v1::FieldsV1";

/// How a field of type `ty` is decoded: the seed's name and whether its type argument is
/// a struct with an impl (`Obj`, `OptObj`, `Objs`, `OptObjs`), `FieldsLeaf` (an `Option` of
/// `FieldsV1`, decoded from its text so that a repeated text is not parsed again), or
/// `Leaf` (an `Option` of anything else) or `LeafOr` (anything else, where `null` leaves
/// the default).
pub fn seed(ty: &str, structs: &Structs) -> &'static str {
    let (optional, rest) = match ty.strip_prefix("Option<").and_then(|t| t.strip_suffix('>')) {
        Some(inner) => (true, inner),
        None => (false, ty),
    };
    let vec = rest.strip_prefix("std::vec::").unwrap_or(rest).strip_prefix("Vec<");
    let (many, rest) = match vec.and_then(|t| t.strip_suffix('>')) {
        Some(inner) => (true, inner),
        None => (false, rest),
    };
    let has_impl =
        rest.strip_prefix("crate::").and_then(|path| structs.get(path)).is_some_and(eligible);
    match (has_impl, optional, many) {
        (false, true, false) if rest == FIELDS_V1 => "FieldsLeaf",
        (true, false, false) => "Obj",
        (true, true, false) => "OptObj",
        (true, false, true) => "Objs",
        (true, true, true) => "OptObjs",
        (false, true, _) => "Leaf",
        (false, false, _) => "LeafOr",
    }
}

#[cfg(test)]
mod tests {
    use super::{eligible, seed};
    use crate::proto::structs::{Structs, scan_source};

    const SOURCE: &str = "\
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Holder {
    pub one: crate::api::core::v1::Inner,
    pub maybe: Option<crate::api::core::v1::Inner>,
    pub many: std::vec::Vec<crate::api::core::v1::Inner>,
    pub maybe_many: Option<std::vec::Vec<crate::api::core::v1::Inner>>,
    pub opaque: Option<crate::api::core::v1::Opaque>,
    pub name: std::string::String,
    pub fields_v1: Option<crate::apimachinery::pkg::apis::meta::v1::FieldsV1>,
    pub fields_v1s: Option<std::vec::Vec<crate::apimachinery::pkg::apis::meta::v1::FieldsV1>>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inner {
    pub value: Option<i32>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Opaque {
    pub time: crate::apimachinery::pkg::apis::meta::v1::Time,
}

impl<'de> crate::serde::Deserialize<'de> for Inner {
                            \"value\" => Field::Key_value,
}

impl<'de> crate::serde::Deserialize<'de> for Opaque {
                            \"time\" => Field::Key_time,
}
";

    fn structs() -> Structs {
        let mut structs = Structs::default();
        for (name, found) in scan_source(SOURCE) {
            structs.by_path.insert(format!("api::core::v1::{name}"), found);
        }
        structs
    }

    #[test]
    fn a_struct_field_is_decoded_in_place_only_when_its_struct_has_an_impl() {
        let structs = structs();
        let holder = structs.get("api::core::v1::Holder").unwrap();
        let seeds: Vec<&str> = holder.fields.iter().map(|f| seed(&f.ty, &structs)).collect();
        // `Opaque` has no `Default`: it decodes through its own `Deserialize`.
        // An `Option<FieldsV1>` has a seed of its own; anything else holding one does not.
        assert_eq!(
            seeds,
            ["Obj", "OptObj", "Objs", "OptObjs", "Leaf", "LeafOr", "FieldsLeaf", "Leaf"]
        );
    }

    #[test]
    fn only_structs_with_default_and_a_json_key_for_every_field_get_an_impl() {
        let structs = structs();
        assert!(eligible(structs.get("api::core::v1::Inner").unwrap()));
        // No `Default`.
        assert!(!eligible(structs.get("api::core::v1::Opaque").unwrap()));
        // Its fields have no `visit_str` arm in this source: nothing says their JSON keys.
        assert!(!eligible(structs.get("api::core::v1::Holder").unwrap()));
    }
}
