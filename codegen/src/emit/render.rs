//! Tokens to file text: parse with syn, format with prettyplease, apply version gates,
//! prepend the header.

use proc_macro2::TokenStream;

use super::{Error, GeneratedFile, HEADER, Result};

/// Formats `tokens` (a whole file) as the generated file `path`.
pub fn render(path: &str, tokens: TokenStream) -> Result<GeneratedFile> {
    let file: syn::File =
        syn::parse2(tokens).map_err(|source| Error::Syntax { path: path.to_owned(), source })?;
    let formatted = prettyplease::unparse(&file);
    let gated = crate::gate::apply_gates(&formatted)
        .map_err(|source| Error::Gate { path: path.to_owned(), source })?;
    Ok(GeneratedFile { path: path.to_owned(), contents: format!("{HEADER}\n{gated}") })
}
