//! Checks the parsed input and resolves it into the [`Resource`] the code is generated for.
//!
//! Values may come from `#[kube]`, from `#[informer]`, or from both when they agree. When
//! `#[kube]` is present kube's `CustomResource` defines the type, so its rules decide the
//! defaults (root type named after the kind, kube's plural, cluster scope unless
//! `namespaced`).

use proc_macro2::Span;
use syn::{Error, Ident, Visibility};

use crate::ast::{Input, Shape};
use crate::attr::{ResourceAttrs, Spanned};
use crate::errors::Errors;
use crate::naming::{kube_plural, namespace_accessor};

/// Method names of the generated lister that the namespace accessor must not take.
const LISTER_METHODS: &[&str] = &["new", "list"];

/// A resource the derive can generate code for.
pub(crate) struct Resource {
    /// The visibility of the generated items: that of the annotated struct, which kube
    /// also gives the root type.
    pub(crate) vis: Visibility,
    /// The Rust type implementing `kube::Resource`.
    pub(crate) root: Ident,
    pub(crate) group: String,
    pub(crate) version: String,
    pub(crate) kind: String,
    /// The URL segment, such as `foos`.
    pub(crate) plural: String,
    pub(crate) scope: Scope,
    /// Where the scope was decided, to point at when the root type's scope disagrees.
    pub(crate) scope_span: Span,
    /// The path of `kube_informers` in the user's crate: `crate = "..."`, else
    /// `::kube_informers`.
    pub(crate) krate: syn::Path,
}

/// Whether objects live in namespaces, which decides the lister's shape.
pub(crate) enum Scope {
    /// The lister has a namespace accessor with this name, such as `foos`.
    Namespaced { accessor: Ident },
    /// The lister gets objects by name.
    Cluster,
}

impl Resource {
    /// `group/version`, or `version` alone for the core group.
    pub(crate) fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

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

#[cfg(test)]
mod tests {
    use quote::ToTokens;
    use syn::{DeriveInput, parse_quote};

    use super::*;

    fn validated(node: &DeriveInput) -> syn::Result<Resource> {
        let mut errors = Errors::default();
        let input = Input::from_syn(node, &mut errors);
        validate(&input, errors)
    }

    fn valid(node: DeriveInput) -> Resource {
        validated(&node).unwrap_or_else(|e| panic!("unexpected errors: {e}"))
    }

    fn messages(node: DeriveInput) -> Vec<String> {
        match validated(&node) {
            Ok(_) => Vec::new(),
            Err(error) => error.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    fn accessor(resource: &Resource) -> Option<String> {
        match &resource.scope {
            Scope::Namespaced { accessor } => Some(accessor.to_string()),
            Scope::Cluster => None,
        }
    }

    #[test]
    fn a_custom_resource_is_named_after_its_kind_with_kubes_plural() {
        let resource = valid(parse_quote! {
            #[kube(group = "example.com", version = "v1", kind = "CronTab", namespaced)]
            pub struct CronTabSpec { schedule: String }
        });
        assert_eq!(resource.root, "CronTab");
        assert_eq!(resource.plural, "crontabs");
        assert_eq!(resource.api_version(), "example.com/v1");
        assert_eq!(accessor(&resource).as_deref(), Some("cron_tabs"));
        assert_eq!(resource.vis.to_token_stream().to_string(), "pub");
    }

    #[test]
    fn kubes_singular_and_plural_decide_the_plural() {
        let from_singular = valid(parse_quote! {
            #[kube(group = "example.com", version = "v1", kind = "Policy", singular = "polly")]
            struct PolicySpec {}
        });
        assert_eq!(from_singular.plural, "pollies");
        let explicit = valid(parse_quote! {
            #[kube(group = "example.com", version = "v1", kind = "Foot", plural = "feet", namespaced)]
            struct FootSpec {}
        });
        assert_eq!(explicit.plural, "feet");
        assert_eq!(accessor(&explicit).as_deref(), Some("feet"));
        let by_rule = valid(parse_quote! {
            #[kube(group = "example.com", version = "v1", kind = "Gateway")]
            struct GatewaySpec {}
        });
        assert_eq!(by_rule.plural, "gateways");
    }

    #[test]
    fn root_is_kubes_root_or_kind_else_the_annotated_struct() {
        let kube_root = valid(parse_quote! {
            #[kube(group = "example.com", version = "v1", kind = "Foo", root = "FooResource")]
            pub(crate) struct FooSpec {}
        });
        assert_eq!(kube_root.root, "FooResource");
        assert_eq!(kube_root.kind, "Foo");
        assert_eq!(kube_root.vis.to_token_stream().to_string(), "pub (crate)");
        let hand_written = valid(parse_quote! {
            #[informer(group = "example.com", version = "v1", kind = "Foo")]
            pub struct MyFoo { metadata: ObjectMeta }
        });
        assert_eq!(hand_written.root, "MyFoo");
        assert_eq!(hand_written.plural, "foos");
        let elsewhere = valid(parse_quote! {
            #[informer(group = "example.com", version = "v1", kind = "Foo", root = "Foo")]
            pub struct FooSpec {}
        });
        assert_eq!(elsewhere.root, "Foo");
    }

    #[test]
    fn scope_is_cluster_unless_namespaced() {
        let cluster = valid(parse_quote! {
            #[kube(group = "example.com", version = "v1", kind = "Foo")]
            struct FooSpec {}
        });
        assert!(accessor(&cluster).is_none());
        let informer_cluster = valid(parse_quote! {
            #[informer(group = "example.com", version = "v1", kind = "Foo", namespaced = false)]
            struct Foo {}
        });
        assert!(accessor(&informer_cluster).is_none());
        let informer_namespaced = valid(parse_quote! {
            #[informer(group = "", version = "v1", kind = "Pod", plural = "pods", namespaced)]
            struct MyPod {}
        });
        assert_eq!(accessor(&informer_namespaced).as_deref(), Some("pods"));
        assert_eq!(informer_namespaced.api_version(), "v1");
    }

    #[test]
    fn agreeing_attributes_are_accepted() {
        let resource = valid(parse_quote! {
            #[kube(group = "example.com", version = "v1", kind = "Foo", namespaced)]
            #[informer(group = "example.com", kind = "Foo", plural = "foos", namespaced, root = "Foo")]
            struct FooSpec {}
        });
        assert_eq!(resource.root, "Foo");
        assert_eq!(resource.plural, "foos");
        assert_eq!(accessor(&resource).as_deref(), Some("foos"));
    }

    #[test]
    fn every_conflict_is_reported() {
        let errors = messages(parse_quote! {
            #[kube(group = "example.com", version = "v1", kind = "Foo", plural = "foos")]
            #[informer(group = "example.org", version = "v2", kind = "Foo", plural = "fooz", namespaced, root = "Bar")]
            struct FooSpec {}
        });
        assert_eq!(errors.len(), 5, "{errors:#?}");
        for key in ["`group`", "`version`", "`plural`", "scope", "`root`"] {
            assert!(
                errors.iter().any(|e| e.starts_with(&format!("conflicting {key}"))),
                "{key}: {errors:#?}"
            );
        }
    }

    #[test]
    fn every_missing_key_is_reported() {
        let errors = messages(parse_quote! {
            #[informer(namespaced)]
            struct Foo {}
        });
        assert_eq!(errors.len(), 3, "{errors:#?}");
        for key in ["group", "version", "kind"] {
            assert!(
                errors.iter().any(|e| e.starts_with(&format!("missing `{key} = "))),
                "{errors:#?}"
            );
        }
    }

    #[test]
    fn the_core_group_may_be_empty_but_version_and_kind_may_not() {
        let errors = messages(parse_quote! {
            #[informer(group = "", version = "", kind = "")]
            struct Foo {}
        });
        assert_eq!(errors, ["`version` must not be empty", "`kind` must not be empty"]);
    }

    #[test]
    fn not_a_struct_is_reported_with_the_other_mistakes() {
        let errors = messages(parse_quote! {
            #[kube(group = "example.com", version = "v1")]
            enum FooSpec { A }
        });
        assert_eq!(errors.len(), 2, "{errors:#?}");
        assert!(errors[0].contains("only supports structs, not enums"));
        assert!(errors[1].starts_with("missing `kind = "));
    }

    #[test]
    fn fallback_root_is_known_only_when_valid() {
        let root = |node: DeriveInput| {
            let input = Input::from_syn(&node, &mut Errors::default());
            fallback_root(&input).map(|ident| ident.to_string())
        };
        assert_eq!(
            root(parse_quote!(
                #[kube(kind = "Foo")]
                struct FooSpec;
            ))
            .as_deref(),
            Some("Foo")
        );
        assert_eq!(
            root(parse_quote!(
                #[kube(kind = "a-b")]
                struct FooSpec;
            )),
            None
        );
        assert_eq!(
            root(parse_quote!(
                #[kube(group = "g")]
                struct FooSpec;
            )),
            None
        );
        assert_eq!(
            root(parse_quote!(
                #[informer(kind = "Foo")]
                struct MyFoo;
            ))
            .as_deref(),
            Some("MyFoo")
        );
    }
}
