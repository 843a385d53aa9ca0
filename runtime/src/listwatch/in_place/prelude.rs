//! What the generated impls (`generated/decoders.rs`) name.

pub(crate) use serde::de::MapAccess;

pub(crate) use super::{
    decode::{DecodeFn, decode_into},
    seeds::{Expect, Fields, FieldsLeaf, Leaf, LeafOr, Obj, Objs, OptObj, OptObjs, skip},
};
