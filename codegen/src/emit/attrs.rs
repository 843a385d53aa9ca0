//! The attributes the emitters put on generated items: doc comments, and the version-gate
//! markers that [`crate::gate::apply_gates`] turns into `k8s_if_*` macros.

use proc_macro2::TokenStream;
use quote::quote;

use crate::gate::Gating;

/// `#[doc = " line"]` attributes for `text`, one per line.
pub(super) fn doc(text: &str) -> TokenStream {
    let lines =
        text.lines().map(|line| if line.is_empty() { String::new() } else { format!(" {line}") });
    quote! { #( #[doc = #lines] )* }
}

/// `#![doc = " line"]` attributes for `text`, one per line.
pub(super) fn inner_doc(text: &str) -> TokenStream {
    let lines =
        text.lines().map(|line| if line.is_empty() { String::new() } else { format!(" {line}") });
    quote! { #( #![doc = #lines] )* }
}

/// `tokens` once per gating alternative, each preceded by its gate marker.
pub(super) fn gated(gating: &Gating, tokens: &TokenStream) -> TokenStream {
    match gating {
        Gating::Always => tokens.clone(),
        Gating::Alternatives(alternatives) => {
            let copies = alternatives.iter().map(|conditions| {
                let args = conditions.iter().map(|c| quote::format_ident!("{}", c.marker_arg()));
                let marker = quote::format_ident!("{}", crate::gate::MARKER);
                quote! { #[#marker( #(#args),* )] #tokens }
            });
            quote! { #(#copies)* }
        }
    }
}
