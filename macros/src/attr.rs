//! The `#[kube(...)]` and `#[informer(...)]` attributes, read into plain values.
//!
//! `#[kube]` belongs to kube's `CustomResource` derive, which validates it: only the keys
//! that shape our code are read and every other key is skipped without complaint.
//! `#[informer]` is ours, so an unknown key there is a mistake.

use proc_macro2::{Span, TokenTree};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned as _;
use syn::{Attribute, Expr, ExprLit, Lit, Token};

use crate::errors::Errors;

/// The keys `#[informer(...)]` accepts, in the order the error message lists them.
pub(crate) const INFORMER_KEYS: &[&str] =
    &["group", "version", "kind", "plural", "namespaced", "root", "crate"];

/// Which attribute a value was written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// `#[kube(...)]`, shared with kube's `CustomResource` derive.
    Kube,
    /// `#[informer(...)]`, for hand-written root types.
    Informer,
}

impl Source {
    /// The attribute's name as the user writes it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Source::Kube => "kube",
            Source::Informer => "informer",
        }
    }
}

/// A value together with where the user wrote it.
#[derive(Clone, Debug)]
pub(crate) struct Spanned<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

/// Every attribute of one [`Source`], merged: `#[kube(group = "a")] #[kube(kind = "B")]`
/// reads as one.
pub(crate) struct ResourceAttrs {
    pub(crate) source: Source,
    /// The first attribute of this source, to point at when a key is missing.
    pub(crate) first: Option<Attribute>,
    pub(crate) group: Option<Spanned<String>>,
    pub(crate) version: Option<Spanned<String>>,
    pub(crate) kind: Option<Spanned<String>>,
    pub(crate) plural: Option<Spanned<String>>,
    /// kube's singular name, from which kube derives the default plural.
    pub(crate) singular: Option<Spanned<String>>,
    pub(crate) root: Option<Spanned<String>>,
    pub(crate) namespaced: Option<Spanned<bool>>,
    /// `crate = "path"`: where the generated code finds `kube_informers`, for users who
    /// renamed or re-export the dependency (`#[informer]` only; kube's own `crates(...)`
    /// names kube's crates, not ours).
    pub(crate) krate: Option<Spanned<syn::Path>>,
    /// Keys written with a value of the wrong type (already reported), so that they are not
    /// reported again as missing.
    pub(crate) malformed: Vec<String>,
}

impl ResourceAttrs {
    fn new(source: Source) -> Self {
        Self {
            source,
            first: None,
            group: None,
            version: None,
            kind: None,
            plural: None,
            singular: None,
            root: None,
            namespaced: None,
            krate: None,
            malformed: Vec::new(),
        }
    }

    /// Whether any attribute of this source was written.
    pub(crate) fn is_present(&self) -> bool {
        self.first.is_some()
    }

    fn read(&mut self, attr: &Attribute, errors: &mut Errors) {
        if self.first.is_none() {
            self.first = Some(attr.clone());
        }
        let source = self.source;
        let mut malformed = Vec::new();
        let result = attr.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
            let outcome = match key.as_str() {
                "group" => read_string(&mut self.group, &meta, &key, source, errors),
                "version" => read_string(&mut self.version, &meta, &key, source, errors),
                "kind" => read_string(&mut self.kind, &meta, &key, source, errors),
                "plural" => read_string(&mut self.plural, &meta, &key, source, errors),
                "root" => read_string(&mut self.root, &meta, &key, source, errors),
                "singular" if source == Source::Kube => {
                    read_string(&mut self.singular, &meta, &key, source, errors)
                }
                "namespaced" => read_flag(&mut self.namespaced, &meta, &key, source, errors),
                "crate" if source == Source::Informer => {
                    read_path(&mut self.krate, &meta, &key, source, errors)
                }
                _ if source == Source::Kube => skip_value(&meta),
                _ => {
                    errors.push(meta.error(unknown_key_message(&meta)));
                    skip_value(&meta)
                }
            }?;
            if let Outcome::Malformed = outcome {
                malformed.push(key);
            }
            Ok(())
        });
        self.malformed.extend(malformed);
        if let Err(error) = result {
            errors.push(error);
        }
    }
}

/// The attributes the derive reads, one set per source.
pub(crate) struct Attrs {
    pub(crate) kube: ResourceAttrs,
    pub(crate) informer: ResourceAttrs,
}

impl Attrs {
    /// Reads every `#[kube]` and `#[informer]` attribute, recording each mistake in
    /// `errors` and keeping whatever could be read.
    pub(crate) fn parse(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let mut parsed = Self {
            kube: ResourceAttrs::new(Source::Kube),
            informer: ResourceAttrs::new(Source::Informer),
        };
        for attr in attrs {
            if attr.path().is_ident("kube") {
                parsed.kube.read(attr, errors);
            } else if attr.path().is_ident("informer") {
                parsed.informer.read(attr, errors);
            }
        }
        parsed
    }
}

fn unknown_key_message(meta: &ParseNestedMeta<'_>) -> String {
    let path = meta.path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>();
    let expected = INFORMER_KEYS.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>();
    format!(
        "unknown key `{}` in #[informer(...)]; expected one of {}",
        path.join("::"),
        expected.join(", ")
    )
}

fn duplicate<T>(
    slot: &Option<Spanned<T>>,
    meta: &ParseNestedMeta<'_>,
    key: &str,
    source: Source,
) -> Option<syn::Error> {
    slot.as_ref().map(|_| meta.error(format!("duplicate `{key}` in #[{}(...)]", source.name())))
}

/// `key = "value"`. The first occurrence wins and later ones are reported. A value of
/// another type is reported and stepped over, so the keys after it are still read.
fn read_string(
    slot: &mut Option<Spanned<String>>,
    meta: &ParseNestedMeta<'_>,
    key: &str,
    source: Source,
    errors: &mut Errors,
) -> syn::Result<Outcome> {
    let value: Expr = meta.value()?.parse()?;
    let Expr::Lit(ExprLit { lit: Lit::Str(literal), .. }) = value else {
        errors
            .push(syn::Error::new_spanned(value, format!("expected a string: `{key} = \"...\"`")));
        return Ok(Outcome::Malformed);
    };
    if let Some(error) = duplicate(slot, meta, key, source) {
        errors.push(error);
    } else {
        *slot = Some(Spanned { value: literal.value(), span: literal.span() });
    }
    Ok(Outcome::Read)
}

/// `key = "path"`, such as `crate = "my_informers"` or `crate = "::app::reexport"`.
fn read_path(
    slot: &mut Option<Spanned<syn::Path>>,
    meta: &ParseNestedMeta<'_>,
    key: &str,
    source: Source,
    errors: &mut Errors,
) -> syn::Result<Outcome> {
    let mut text = None;
    let outcome = read_string(&mut text, meta, key, source, errors)?;
    let Some(text) = text else { return Ok(outcome) };
    match syn::parse_str::<syn::Path>(&text.value) {
        Ok(path) if slot.is_none() => *slot = Some(Spanned { value: path, span: text.span }),
        Ok(_) => errors.push(meta.error(format!("duplicate `{key}` in #[{}(...)]", source.name()))),
        Err(_) => {
            errors.push(syn::Error::new(text.span, format!("expected a path: `{key} = \"...\"`")));
            return Ok(Outcome::Malformed);
        }
    }
    Ok(Outcome::Read)
}

/// `key` alone (true) or `key = true` / `key = false`.
fn read_flag(
    slot: &mut Option<Spanned<bool>>,
    meta: &ParseNestedMeta<'_>,
    key: &str,
    source: Source,
    errors: &mut Errors,
) -> syn::Result<Outcome> {
    let flag = if meta.input.peek(Token![=]) {
        let value: Expr = meta.value()?.parse()?;
        let Expr::Lit(ExprLit { lit: Lit::Bool(literal), .. }) = value else {
            errors.push(syn::Error::new_spanned(
                value,
                format!("expected `{key}`, `{key} = true` or `{key} = false`"),
            ));
            return Ok(Outcome::Malformed);
        };
        Spanned { value: literal.value, span: literal.span }
    } else {
        Spanned { value: true, span: meta.path.span() }
    };
    if let Some(error) = duplicate(slot, meta, key, source) {
        errors.push(error);
    } else {
        *slot = Some(flag);
    }
    Ok(Outcome::Read)
}

/// Whether a key's value could be read.
enum Outcome {
    Read,
    /// Reported, not stored.
    Malformed,
}

/// Steps over a key's value in any of kube's forms: `key`, `key = <expression>`, `key(...)`.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<Outcome> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.input.parse::<TokenTree>()?;
    }
    Ok(Outcome::Read)
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;

    fn parse(attrs: &[Attribute]) -> (Attrs, Vec<String>) {
        let mut errors = Errors::default();
        let parsed = Attrs::parse(attrs, &mut errors);
        let messages = match errors.finish() {
            Ok(()) => Vec::new(),
            Err(error) => error.into_iter().map(|e| e.to_string()).collect(),
        };
        (parsed, messages)
    }

    fn value(slot: &Option<Spanned<String>>) -> Option<&str> {
        slot.as_ref().map(|s| s.value.as_str())
    }

    #[test]
    fn reads_the_kube_keys_it_needs_and_skips_the_rest() {
        let attrs: Vec<Attribute> = vec![
            parse_quote!(#[kube(
                group = "example.com",
                version = "v1",
                kind = "Foo",
                singular = "foo",
                namespaced,
                shortname = "f",
                status = "FooStatus",
                derive = "PartialEq",
                printcolumn = r#"{"name":"Spec", "type":"string", "jsonPath":".spec.name"}"#,
                selectable = ".spec.name",
                scale(spec_replicas_path = ".spec.replicas", status_replicas_path = ".status.replicas"),
                category = "all",
                schema = "disabled",
                crates(kube_core = ::kube::core, serde = ::serde),
                validation = Rule::new("self.x > 0").message("x must be positive"),
                deprecated,
                storage = false,
                cel,
                annotation("a", "b"),
            )]),
            parse_quote!(#[serde(rename_all = "camelCase")]),
            parse_quote!(#[kube(plural = "foos", root = "FooRoot")]),
        ];
        let (parsed, errors) = parse(&attrs);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(value(&parsed.kube.group), Some("example.com"));
        assert_eq!(value(&parsed.kube.version), Some("v1"));
        assert_eq!(value(&parsed.kube.kind), Some("Foo"));
        assert_eq!(value(&parsed.kube.singular), Some("foo"));
        assert_eq!(value(&parsed.kube.plural), Some("foos"));
        assert_eq!(value(&parsed.kube.root), Some("FooRoot"));
        assert_eq!(parsed.kube.namespaced.as_ref().map(|n| n.value), Some(true));
        assert!(parsed.kube.is_present());
        assert!(!parsed.informer.is_present());
    }

    #[test]
    fn reads_informer_keys_and_explicit_flags() {
        let attrs: Vec<Attribute> = vec![parse_quote!(#[informer(
            group = "example.com", version = "v1", kind = "Foo", plural = "foos",
            namespaced = false, root = "Foo"
        )])];
        let (parsed, errors) = parse(&attrs);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(value(&parsed.informer.kind), Some("Foo"));
        assert_eq!(parsed.informer.namespaced.as_ref().map(|n| n.value), Some(false));
        assert!(!parsed.kube.is_present());
    }

    #[test]
    fn every_unknown_informer_key_is_reported_and_known_keys_still_read() {
        let attrs: Vec<Attribute> = vec![parse_quote!(#[informer(
            group = "example.com", shortname = "f", version = "v1", status(x), kind = "Foo"
        )])];
        let (parsed, errors) = parse(&attrs);
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].starts_with("unknown key `shortname` in #[informer(...)]"), "{errors:?}");
        assert!(errors[1].starts_with("unknown key `status`"), "{errors:?}");
        assert_eq!(value(&parsed.informer.version), Some("v1"));
        assert_eq!(value(&parsed.informer.kind), Some("Foo"));
    }

    #[test]
    fn singular_is_kube_only() {
        let attrs: Vec<Attribute> = vec![parse_quote!(#[informer(singular = "foo")])];
        let (_, errors) = parse(&attrs);
        assert_eq!(errors.len(), 1);
        assert!(errors[0].starts_with("unknown key `singular`"));
    }

    #[test]
    fn duplicates_are_reported_and_the_first_value_kept() {
        let attrs: Vec<Attribute> = vec![
            parse_quote!(#[informer(kind = "Foo")]),
            parse_quote!(#[informer(kind = "Bar", namespaced, namespaced)]),
        ];
        let (parsed, errors) = parse(&attrs);
        assert_eq!(
            errors,
            ["duplicate `kind` in #[informer(...)]", "duplicate `namespaced` in #[informer(...)]"]
        );
        assert_eq!(value(&parsed.informer.kind), Some("Foo"));
    }

    #[test]
    fn a_value_of_the_wrong_type_is_reported_and_the_next_keys_still_read() {
        let attrs: Vec<Attribute> = vec![parse_quote!(#[informer(
            group = 42, namespaced = "yes", version = "v1", kind = some::path
        )])];
        let (parsed, errors) = parse(&attrs);
        assert_eq!(
            errors,
            [
                "expected a string: `group = \"...\"`",
                "expected `namespaced`, `namespaced = true` or `namespaced = false`",
                "expected a string: `kind = \"...\"`",
            ]
        );
        assert!(parsed.informer.group.is_none());
        assert_eq!(value(&parsed.informer.version), Some("v1"));
        assert_eq!(parsed.informer.malformed, ["group", "namespaced", "kind"]);
    }
}
