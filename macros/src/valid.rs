//! Checks the parsed input and resolves it into the [`Resource`] the code is generated for.
//!
//! Values may come from `#[kube]`, from `#[informer]`, or from both when they agree. When
//! `#[kube]` is present kube's `CustomResource` defines the type, so its rules decide the
//! defaults (root type named after the kind, kube's plural, cluster scope unless
//! `namespaced`).

#[cfg(test)]
mod tests;

use proc_macro2::Span;
use syn::{Error, Ident};

use crate::ast::{Input, Shape};
use crate::attr::{ResourceAttrs, Spanned};
use crate::errors::Errors;
use crate::naming::{kube_plural, namespace_accessor};
use crate::resource::{Resource, Scope};

/// Method names of the generated lister that the namespace accessor must not take.
const LISTER_METHODS: &[&str] = &["new", "list"];

/// Resolves `input`, reporting every mistake (together with those already in `errors`).
pub(crate) fn validate(input: &Input<'_>, mut errors: Errors) -> syn::Result<Resource> {
    if let Shape::NotStruct { keyword, span } = input.shape {
        errors.push(Error::new(
            span,
            format!(
                "#[derive(Informer)] only supports structs, not {keyword}s: put it on the spec \
                 struct next to #[derive(CustomResource)], or on a struct that implements \
                 kube::Resource"
            ),
        ));
    }
    let (kube, informer) = (&input.attrs.kube, &input.attrs.informer);
    if !kube.is_present() && !informer.is_present() {
        return Err(errors.fail(Error::new_spanned(
            input.ident,
            "#[derive(Informer)] needs the resource's group, version and kind: use it next to \
             #[derive(CustomResource)] and #[kube(group = \"...\", version = \"...\", kind = \
             \"...\")], or add #[informer(group = \"...\", version = \"...\", kind = \"...\")] \
             to a type that implements kube::Resource",
        )));
    }

    let group = agree("group", &kube.group, &informer.group, &mut errors);
    let version = agree("version", &kube.version, &informer.version, &mut errors);
    let kind = agree("kind", &kube.kind, &informer.kind, &mut errors);
    let group = require(group, "group", input, &mut errors);
    let version = require(version, "version", input, &mut errors);
    let kind = require(kind, "kind", input, &mut errors);
    for (key, value) in [("version", &version), ("kind", &kind)] {
        if let Some(value) = value
            && value.value.is_empty()
        {
            errors.push(Error::new(value.span, format!("`{key}` must not be empty")));
        }
    }

    let plural = kind.as_ref().map(|kind| resolve_plural(kind, input, &mut errors));
    let namespaced = resolve_scope(input, &mut errors);
    let root = resolve_root(input, &mut errors);
    let scope = match (namespaced.value, &kind, &plural) {
        (false, _, _) => Some(Scope::Cluster),
        (true, Some(kind), Some(plural)) => accessor(kind, plural, input, &mut errors)
            .map(|accessor| Scope::Namespaced { accessor }),
        (true, _, _) => None,
    };

    errors.finish()?;
    let resource = || {
        Some(Resource {
            vis: input.vis.clone(),
            root: root?,
            group: group?.value,
            version: version?.value,
            kind: kind?.value,
            plural: plural?.value,
            scope: scope?,
            scope_span: namespaced.span,
            krate: informer
                .krate
                .as_ref()
                .map_or_else(|| syn::parse_quote!(::kube_informers), |krate| krate.value.clone()),
        })
    };
    resource().ok_or_else(|| {
        Error::new_spanned(
            input.ident,
            "#[derive(Informer)]: internal error: no diagnostic for an unresolved value",
        )
    })
}

/// The root type's name as far as it can be told, valid or not: `root`, else the kind when
/// kube's `CustomResource` generates the type, else the annotated struct itself.
fn root_candidate(input: &Input<'_>) -> Option<Spanned<String>> {
    let (kube, informer) = (&input.attrs.kube, &input.attrs.informer);
    if kube.is_present() {
        kube.root.clone().or_else(|| kube.kind.clone()).or_else(|| informer.kind.clone())
    } else {
        Some(informer.root.clone().unwrap_or_else(|| Spanned {
            value: input.ident.to_string(),
            span: input.ident.span(),
        }))
    }
}

/// The root type's name for the fallback output emitted next to errors, when it is known
/// and valid.
pub(crate) fn fallback_root(input: &Input<'_>) -> Option<Ident> {
    let name = root_candidate(input)?;
    syn::parse_str::<Ident>(&name.value).ok().map(|_| Ident::new(&name.value, input.ident.span()))
}

fn resolve_root(input: &Input<'_>, errors: &mut Errors) -> Option<Ident> {
    let name = root_candidate(input)?;
    if input.attrs.kube.is_present()
        && let Some(root) = &input.attrs.informer.root
        && root.value != name.value
    {
        errors.push(conflict("root", &root.value, &name.value, root.span));
    }
    if syn::parse_str::<Ident>(&name.value).is_err() {
        errors.push(Error::new(
            name.span,
            format!(
                "`{}` is not a valid Rust type name for the root type; set `root = \"...\"` to \
                 the name of the type that implements kube::Resource",
                name.value
            ),
        ));
        return None;
    }
    if *input.ident == name.value && !input.generics.params.is_empty() {
        errors.push(Error::new_spanned(
            input.generics,
            "#[derive(Informer)] does not support generic resource types",
        ));
    }
    Some(Ident::new(&name.value, input.ident.span()))
}

/// kube's plural when `#[kube]` is present (it names the URL), else `#[informer]`'s.
fn resolve_plural(
    kind: &Spanned<String>,
    input: &Input<'_>,
    errors: &mut Errors,
) -> Spanned<String> {
    let (kube, informer) = (&input.attrs.kube, &input.attrs.informer);
    let by_rule = |attrs: &ResourceAttrs| {
        let singular = attrs
            .singular
            .as_ref()
            .map_or_else(|| kind.value.to_ascii_lowercase(), |singular| singular.value.clone());
        Spanned { value: kube_plural(&singular), span: kind.span }
    };
    if !kube.is_present() {
        return informer.plural.clone().unwrap_or_else(|| by_rule(informer));
    }
    let plural = kube.plural.clone().unwrap_or_else(|| by_rule(kube));
    if let Some(theirs) = &informer.plural
        && theirs.value != plural.value
    {
        errors.push(if kube.plural.is_some() {
            conflict("plural", &theirs.value, &plural.value, theirs.span)
        } else {
            Error::new(
                theirs.span,
                format!(
                    "conflicting `plural`: #[informer] has {:?} but kube's CustomResource derives \
                     {:?} from #[kube]; set `plural = {:?}` in #[kube(...)] instead",
                    theirs.value, plural.value, theirs.value
                ),
            )
        });
    }
    plural
}

fn resolve_scope(input: &Input<'_>, errors: &mut Errors) -> Spanned<bool> {
    let (kube, informer) = (&input.attrs.kube, &input.attrs.informer);
    let unstated = Spanned { value: false, span: input.ident.span() };
    if !kube.is_present() {
        return informer.namespaced.clone().unwrap_or(unstated);
    }
    let declared = kube.namespaced.clone().unwrap_or(unstated);
    if let Some(theirs) = &informer.namespaced
        && theirs.value != declared.value
    {
        let scope = |namespaced| if namespaced { "namespaced" } else { "cluster-scoped" };
        errors.push(Error::new(
            theirs.span,
            format!(
                "conflicting scope: #[informer] declares a {} resource but #[kube] declares a {} \
                 one; remove one or make them agree",
                scope(theirs.value),
                scope(declared.value)
            ),
        ));
    }
    declared
}

fn accessor(
    kind: &Spanned<String>,
    plural: &Spanned<String>,
    input: &Input<'_>,
    errors: &mut Errors,
) -> Option<Ident> {
    let name = namespace_accessor(&kind.value, &plural.value);
    if syn::parse_str::<Ident>(&name).is_err() || LISTER_METHODS.contains(&name.as_str()) {
        errors.push(Error::new(
            plural.span,
            format!(
                "plural \"{}\" gives the lister accessor `{name}`, which is not a usable method \
                 name",
                plural.value
            ),
        ));
        return None;
    }
    Some(Ident::new(&name, input.ident.span()))
}

/// One value from both attributes; when they disagree the error points at `#[informer]`'s.
fn agree(
    key: &str,
    kube: &Option<Spanned<String>>,
    informer: &Option<Spanned<String>>,
    errors: &mut Errors,
) -> Option<Spanned<String>> {
    if let (Some(kube), Some(informer)) = (kube, informer)
        && kube.value != informer.value
    {
        errors.push(conflict(key, &informer.value, &kube.value, informer.span));
    }
    kube.clone().or_else(|| informer.clone())
}

fn conflict(key: &str, informer: &str, kube: &str, span: Span) -> Error {
    Error::new(
        span,
        format!(
            "conflicting `{key}`: #[informer] has {informer:?} but #[kube] has {kube:?}; remove \
             one or make them agree"
        ),
    )
}

fn require(
    value: Option<Spanned<String>>,
    key: &str,
    input: &Input<'_>,
    errors: &mut Errors,
) -> Option<Spanned<String>> {
    let (kube, informer) = (&input.attrs.kube, &input.attrs.informer);
    let malformed = |attrs: &ResourceAttrs| attrs.malformed.iter().any(|k| k == key);
    if value.is_none() && !malformed(kube) && !malformed(informer) {
        let attrs =
            if input.attrs.kube.is_present() { &input.attrs.kube } else { &input.attrs.informer };
        let message = format!(
            "missing `{key} = \"...\"` in #[{}(...)]: #[derive(Informer)] needs group, version \
             and kind",
            attrs.source.name()
        );
        errors.push(match &attrs.first {
            Some(attr) => Error::new_spanned(attr, message),
            None => Error::new_spanned(input.ident, message),
        });
    }
    value
}
