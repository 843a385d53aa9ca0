//! The derive input as the macro sees it: the annotated item and its attributes.

use proc_macro2::Span;
use syn::spanned::Spanned as _;
use syn::{Data, DeriveInput, Generics, Ident, Visibility};

use crate::attr::Attrs;
use crate::errors::Errors;

/// The annotated item.
pub(crate) struct Input<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) vis: &'a Visibility,
    pub(crate) generics: &'a Generics,
    pub(crate) shape: Shape,
    pub(crate) attrs: Attrs,
}

/// What kind of item the derive sits on.
pub(crate) enum Shape {
    Struct,
    /// An enum or a union, with the span of its keyword.
    NotStruct {
        keyword: &'static str,
        span: Span,
    },
}

impl<'a> Input<'a> {
    /// Reads the item; attribute mistakes go to `errors`.
    pub(crate) fn from_syn(node: &'a DeriveInput, errors: &mut Errors) -> Self {
        let shape = match &node.data {
            Data::Struct(_) => Shape::Struct,
            Data::Enum(data) => Shape::NotStruct { keyword: "enum", span: data.enum_token.span() },
            Data::Union(data) => {
                Shape::NotStruct { keyword: "union", span: data.union_token.span() }
            }
        };
        Self {
            ident: &node.ident,
            vis: &node.vis,
            generics: &node.generics,
            shape,
            attrs: Attrs::parse(&node.attrs, errors),
        }
    }
}
