//! Turns a validated [`Resource`] into `FooInformer`, `FooLister` and, for namespaced
//! kinds, `FooNamespaceLister`, shaped like the generated built-in informers.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::DeriveInput;

use crate::ast::Input;
use crate::errors::Errors;
use crate::resource::{Resource, Scope};
use crate::valid;

/// The derive: parse, validate, expand; on mistakes, every error plus a fallback.
pub(crate) fn derive(node: &DeriveInput) -> TokenStream {
    let mut errors = Errors::default();
    let input = Input::from_syn(node, &mut errors);
    match valid::validate(&input, errors) {
        Ok(resource) => expand(&resource),
        Err(error) => {
            let errors = error.into_compile_error();
            let fallback = fallback(&input);
            quote! { #errors #fallback }
        }
    }
}

/// Names of the generated items.
struct Names {
    informer: Ident,
    lister: Ident,
    namespace_lister: Ident,
}

impl Names {
    fn of(root: &Ident) -> Self {
        Self {
            informer: format_ident!("{root}Informer"),
            lister: format_ident!("{root}Lister"),
            namespace_lister: format_ident!("{root}NamespaceLister"),
        }
    }
}

/// Empty stand-ins for the generated types, emitted next to the errors: code that names
/// `FooLister` then gets no "cannot find type" error on top of the real one. They name no
/// path of ours, so the errors stand alone even where `kube_informers` cannot be found.
fn fallback(input: &Input<'_>) -> TokenStream {
    let Some(root) = valid::fallback_root(input) else {
        return TokenStream::new();
    };
    let vis = input.vis;
    let Names { informer, lister, namespace_lister } = Names::of(&root);
    let doc = doc(format!(
        "Stands in for a type of `#[derive(Informer)]` on `{root}` until its errors are fixed."
    ));
    quote! {
        #doc
        #[allow(dead_code)]
        #vis struct #informer;
        #doc
        #[allow(dead_code)]
        #vis struct #lister;
        #doc
        #[allow(dead_code)]
        #vis struct #namespace_lister;
    }
}

/// The generated code for `resource`.
pub(crate) fn expand(resource: &Resource) -> TokenStream {
    let informer = informer(resource);
    let lister = lister(resource);
    let scope_check = scope_check(resource);
    quote! {
        #informer
        #lister
        #scope_check
    }
}

/// A doc line, spaced as `///` writes it.
fn doc(text: impl AsRef<str>) -> TokenStream {
    let text = text.as_ref();
    let line = format!(" {text}");
    quote!(#[doc = #line])
}

/// The re-exports the generated code names everything through, under the crate path the
/// user chose (`crate = "..."`), so a renamed dependency needs no other name in scope.
fn private(resource: &Resource) -> TokenStream {
    let krate = &resource.krate;
    quote!(#krate::__private)
}

fn informer(resource: &Resource) -> TokenStream {
    let p = private(resource);
    let Resource { vis, root, kind, plural, .. } = resource;
    let Names { informer, lister, .. } = Names::of(root);
    let api_version = resource.api_version();
    let struct_doc = doc(format!(
        "The shared informer and lister of `{root}` (kind `{kind}` of `{api_version}`, resource \
         `{plural}`) in a shared informer factory."
    ));
    let struct_doc_detail = doc(format!(
        "Every `{informer}` of one factory shares the factory's single `{root}` informer: one \
         watch and one cache."
    ));
    let new_doc = doc(format!(
        "Access to the `{root}` informer of `factory`; the informer is created on first use."
    ));
    let informer_doc = doc(format!(
        "The factory's shared informer for `{root}`, registered on first use so that the \
         factory's next `start` runs it (client-go's `Informer()`)."
    ));
    let lister_doc = doc(format!(
        "A lister over the shared `{root}` informer's cache (client-go's `Lister()`)."
    ));
    let new_filtered_doc = doc(format!(
        "A `{root}` informer of its own, outside any factory (client-go's \
         `NewFiltered{root}Informer`); `namespace` is ignored for cluster-scoped kinds."
    ));
    let new_filtered_doc_detail =
        doc("Prefer `informer()`: each informer made here opens its own \
                                   watch and keeps its own cache.");
    quote! {
        #struct_doc
        #[doc = ""]
        #struct_doc_detail
        #[derive(::core::clone::Clone)]
        #[allow(dead_code)]
        #vis struct #informer {
            factory: #p::SharedInformerFactory,
        }

        impl ::core::fmt::Debug for #informer {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct(::core::stringify!(#informer)).finish_non_exhaustive()
            }
        }

        #[allow(dead_code)]
        impl #informer {
            #new_doc
            #vis fn new(factory: &#p::SharedInformerFactory) -> Self {
                Self { factory: ::core::clone::Clone::clone(factory) }
            }

            #informer_doc
            #vis fn informer(&self) -> #p::SharedIndexInformer<#root> {
                self.factory.informer_for::<#root>()
            }

            #lister_doc
            #vis fn lister(&self) -> #lister {
                #lister::new(self.informer().get_indexer())
            }

            #new_filtered_doc
            #[doc = ""]
            #new_filtered_doc_detail
            #vis fn new_filtered(
                client: #p::Client,
                namespace: ::core::option::Option<&str>,
                resync: #p::Duration,
                indexers: #p::Indexers<#root>,
                tweak: ::core::option::Option<#p::TweakListParams>,
            ) -> #p::SharedIndexInformer<#root> {
                #p::new_filtered_informer::<#root>(client, namespace, resync, indexers, tweak)
            }
        }
    }
}

fn lister(resource: &Resource) -> TokenStream {
    let p = private(resource);
    let Resource { vis, root, .. } = resource;
    let Names { lister, namespace_lister, .. } = Names::of(root);
    let struct_doc = doc(format!("Lists and gets `{root}` objects from an informer's cache."));
    let new_doc = doc(format!("A lister over `indexer`, the cache of a `{root}` informer."));
    let list_doc = doc(format!(
        "Every `{root}` in the cache, in any namespace, whose labels match `selector`; an empty \
         selector matches all."
    ));
    let (scoped_method, namespace_lister) = match &resource.scope {
        Scope::Namespaced { accessor } => {
            let accessor_doc =
                doc(format!("A lister for the `{root}` objects of `namespace` (`\"\"`: all)."));
            let struct_doc = doc(format!("Lists and gets `{root}` objects of one namespace."));
            let list_doc = doc(format!(
                "The `{root}` objects of this namespace whose labels match `selector`."
            ));
            let get_doc = doc(format!("The `{root}` named `name` in this namespace, if cached."));
            let accessor = quote! {
                #accessor_doc
                #vis fn #accessor(&self, namespace: &str) -> #namespace_lister {
                    #namespace_lister { inner: self.inner.namespaced(namespace) }
                }
            };
            let namespace_lister = quote! {
                #struct_doc
                #[derive(::core::clone::Clone, ::core::fmt::Debug)]
                #[allow(dead_code)]
                #vis struct #namespace_lister {
                    inner: #p::NamespaceLister<#root>,
                }

                #[allow(dead_code)]
                impl #namespace_lister {
                    #list_doc
                    #vis fn list(&self, selector: &#p::Selector) -> ::std::vec::Vec<#p::Arc<#root>> {
                        self.inner.list(selector)
                    }

                    #get_doc
                    #vis fn get(&self, name: &str) -> ::core::option::Option<#p::Arc<#root>> {
                        self.inner.get(name)
                    }
                }
            };
            (accessor, namespace_lister)
        }
        Scope::Cluster => {
            let get_doc = doc(format!("The `{root}` named `name`, if cached."));
            let get = quote! {
                #get_doc
                #vis fn get(&self, name: &str) -> ::core::option::Option<#p::Arc<#root>> {
                    self.inner.get(name)
                }
            };
            (get, TokenStream::new())
        }
    };
    quote! {
        #struct_doc
        #[derive(::core::clone::Clone, ::core::fmt::Debug)]
        #[allow(dead_code)]
        #vis struct #lister {
            inner: #p::Lister<#root>,
        }

        #[allow(dead_code)]
        impl #lister {
            #new_doc
            #vis fn new(indexer: #p::Indexer<#root>) -> Self {
                Self { inner: #p::Lister::new(indexer) }
            }

            #list_doc
            #vis fn list(&self, selector: &#p::Selector) -> ::std::vec::Vec<#p::Arc<#root>> {
                self.inner.list(selector)
            }

            #scoped_method
        }

        #namespace_lister
    }
}

/// Fails to compile when the root type's `kube::Resource::Scope` disagrees with the
/// declared scope, which would otherwise give a lister whose lookups silently miss (keys
/// are `namespace/name` for namespaced kinds and `name` for cluster-scoped ones). kube's
/// `CustomResource` always agrees; a hand-written `Resource` impl may not.
fn scope_check(resource: &Resource) -> TokenStream {
    let p = private(resource);
    let span = resource.scope_span;
    let root = Ident::new(&resource.root.to_string(), span);
    let (check, scope) = match resource.scope {
        Scope::Namespaced { .. } => {
            (format_ident!("scope_is_namespaced"), quote!(#p::NamespaceResourceScope))
        }
        Scope::Cluster => (format_ident!("scope_is_cluster"), quote!(#p::ClusterResourceScope)),
    };
    let call = quote_spanned!(span=> #check::<#root>);
    quote! {
        const _: () = {
            fn #check<K: #p::Resource<Scope = #scope>>() {}
            let _ = #call;
        };
    }
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;

    #[test]
    fn mistakes_come_with_empty_stand_ins_that_name_no_path_of_ours() {
        let output = derive(&parse_quote! {
            #[kube(group = "example.com", version = "v1", kind = "Foo")]
            #[informer(plurals = "foos")]
            pub struct FooSpec { replicas: u32 }
        })
        .to_string();
        assert!(output.contains("compile_error"), "{output}");
        for name in ["FooInformer", "FooLister", "FooNamespaceLister"] {
            assert!(output.contains(&format!("pub struct {name} ;")), "{name}: {output}");
        }
        assert!(!output.contains("kube_informers"), "{output}");
    }

    #[test]
    fn every_generated_path_goes_through_the_chosen_crate() {
        let output = derive(&parse_quote! {
            // kube's `crates(...)` names kube's crates, not ours, and is skipped.
            #[kube(group = "example.com", version = "v1", kind = "Foo", namespaced,
                   crates(kube_core = ::kube::core))]
            #[informer(crate = "crate::reexport")]
            pub struct FooSpec { replicas: u32 }
        })
        .to_string();
        assert!(!output.contains("compile_error"), "{output}");
        assert!(
            output.contains("crate :: reexport :: __private :: SharedInformerFactory"),
            "{output}"
        );
        assert!(!output.contains("kube_informers"), "{output}");
    }

    #[test]
    fn a_crate_that_is_no_path_or_given_twice_is_reported() {
        let output = derive(&parse_quote! {
            #[kube(group = "example.com", version = "v1", kind = "Foo")]
            #[informer(crate = "not a path", crate = "a", crate = "b")]
            pub struct FooSpec { replicas: u32 }
        })
        .to_string();
        assert!(output.contains(r#"expected a path: `crate = \"...\"`"#), "{output}");
        assert!(output.contains("duplicate `crate` in #[informer(...)]"), "{output}");
    }

    #[test]
    fn the_scope_check_demands_the_declared_scope_at_its_span() {
        for (attr, check, scope) in [
            (quote!(namespaced), "scope_is_namespaced", "NamespaceResourceScope"),
            (quote!(namespaced = false), "scope_is_cluster", "ClusterResourceScope"),
        ] {
            let node: DeriveInput = parse_quote! {
                #[informer(group = "", version = "v1", kind = "Pod", #attr)]
                pub struct MyPod {}
            };
            let mut errors = Errors::default();
            let resource = valid::validate(&Input::from_syn(&node, &mut errors), errors).unwrap();
            let output = scope_check(&resource).to_string();
            let bound = format!(
                "fn {check} < K : :: kube_informers :: __private :: Resource < Scope = :: kube_informers :: __private :: {scope} >> () {{ }}"
            );
            assert!(output.contains(&bound), "{output}");
            assert!(output.contains(&format!("let _ = {check} :: < MyPod >")), "{output}");
        }
    }

    #[test]
    fn a_cluster_scoped_lister_gets_by_name_and_has_no_namespace_lister() {
        let output = derive(&parse_quote! {
            #[kube(group = "example.com", version = "v1", kind = "Foo")]
            pub struct FooSpec { replicas: u32 }
        })
        .to_string();
        assert!(!output.contains("compile_error"), "{output}");
        assert!(!output.contains("FooNamespaceLister"), "{output}");
        assert!(output.contains("fn get"), "{output}");
        assert!(output.contains("ClusterResourceScope"), "{output}");
    }
}
