//! `<group>/<version>/<kind>.rs`: `XxxInformer`, `XxxLister` and, for namespaced kinds,
//! `XxxNamespaceLister` (client-go: `informers/<group>/<version>/<kind>.go` and
//! `listers/<group>/<version>/<kind>.go`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::attrs::{doc, inner_doc};
use super::render::{Error, GeneratedFile, Result, render};
use crate::plan::{GroupPlan, ResourcePlan, VersionPlan};

/// Emits the file of one resource.
pub(super) fn emit(
    group: &GroupPlan,
    version: &VersionPlan,
    resource: &ResourcePlan,
) -> Result<GeneratedFile> {
    let path = format!("{}/{}/{}.rs", group.module, version.accessor, resource.module);
    let api = &resource.resource;
    let kind = &api.kind;
    let kind_path: syn::Path = syn::parse_str(&format!("::{}", api.rust_path_string()))
        .map_err(|source| Error::Syntax { path: path.clone(), source })?;
    let about = format!("`{}` ({})", kind, api.api_version());

    let module_doc = inner_doc(&format!("The informer and listers of {about}."));
    let informer = informer(resource, &about);
    let lister = lister(resource);
    let namespace_lister = if resource.is_namespaced() {
        namespace_lister(resource)
    } else {
        quote! {}
    };
    let tokens = quote! {
        #module_doc
        use #kind_path;
        #informer
        #lister
        #namespace_lister
    };
    render(&path, tokens)
}

fn informer(resource: &ResourcePlan, about: &str) -> TokenStream {
    let kind = format_ident!("{}", resource.resource.kind);
    let informer = format_ident!("{}", resource.informer_type);
    let lister = format_ident!("{}", resource.lister_type);
    let struct_doc = doc(&format!(
        "Access to the factory's shared informer of {about} and a lister over its cache \
         (client-go: `{}`).",
        resource.informer_type
    ));
    let new_doc = doc("An accessor over the factory's informers.");
    let informer_doc = doc(&format!(
        "The factory's shared informer of [`{}`], created with the factory's namespace, \
         list tweak and resync on first use.",
        resource.resource.kind
    ));
    let lister_doc = doc("A lister over the shared informer's cache.");
    let new_filtered_doc = doc(&format!(
        "A new informer of [`{kind}`] outside any factory (client-go: `NewFiltered{kind}Informer`).\n\
         \n\
         Prefer the factory's shared informer: sharing saves memory and connections to the API server.",
        kind = resource.resource.kind
    ));
    let (namespace_param, namespace_arg) = if resource.is_namespaced() {
        (quote! { namespace: Option<&str>, }, quote! { namespace })
    } else {
        (quote! {}, quote! { None })
    };
    quote! {
        #struct_doc
        #[derive(Clone)]
        pub struct #informer {
            factory: crate::SharedInformerFactory,
        }

        impl #informer {
            #new_doc
            pub(crate) fn new(factory: crate::SharedInformerFactory) -> Self {
                Self { factory }
            }

            #informer_doc
            #[inline]
            pub fn informer(&self) -> ::kube_informers_runtime::SharedIndexInformer<#kind> {
                self.factory.informer_for::<#kind>()
            }

            #lister_doc
            #[inline]
            pub fn lister(&self) -> #lister {
                #lister::new(self.informer().get_indexer())
            }

            #new_filtered_doc
            #[inline]
            pub fn new_filtered(
                client: ::kube::Client,
                #namespace_param
                resync: ::std::time::Duration,
                indexers: ::kube_informers_runtime::store::Indexers<#kind>,
                tweak: Option<::kube_informers_runtime::TweakListParams>,
            ) -> ::kube_informers_runtime::SharedIndexInformer<#kind> {
                ::kube_informers_runtime::new_filtered_informer::<#kind>(client, #namespace_arg, resync, indexers, tweak)
            }
        }
    }
}

fn lister(resource: &ResourcePlan) -> TokenStream {
    let kind_name = &resource.resource.kind;
    let kind = format_ident!("{}", kind_name);
    let lister = format_ident!("{}", resource.lister_type);
    let struct_doc = doc(&format!(
        "Lists [`{kind_name}`] objects from an informer's cache (client-go: `{}`).",
        resource.lister_type
    ));
    let new_doc =
        doc(&format!("A lister over `indexer` (client-go: `New{}`).", resource.lister_type));
    let list_doc = doc(&format!("Every cached [`{kind_name}`] whose labels match `selector`."));
    let scoped = if resource.is_namespaced() {
        let accessor = format_ident!("{}", resource.accessor);
        let namespace_lister = format_ident!("{}", resource.namespace_lister_type);
        let accessor_doc = doc(&format!("A lister of the [`{kind_name}`] objects in `namespace`."));
        quote! {
            #accessor_doc
            #[inline]
            pub fn #accessor(&self, namespace: &str) -> #namespace_lister {
                #namespace_lister { inner: self.inner.namespaced(namespace) }
            }
        }
    } else {
        let get_doc = doc(&format!("The cached [`{kind_name}`] named `name`."));
        quote! {
            #get_doc
            #[inline]
            pub fn get(&self, name: &str) -> Option<::std::sync::Arc<#kind>> {
                self.inner.get(name)
            }
        }
    };
    quote! {
        #struct_doc
        #[derive(Clone)]
        pub struct #lister {
            inner: ::kube_informers_runtime::lister::Lister<#kind>,
        }

        impl #lister {
            #new_doc
            #[inline]
            pub fn new(indexer: ::kube_informers_runtime::store::Indexer<#kind>) -> Self {
                Self { inner: ::kube_informers_runtime::lister::Lister::new(indexer) }
            }

            #list_doc
            #[inline]
            pub fn list(&self, selector: &::kube::core::Selector) -> Vec<::std::sync::Arc<#kind>> {
                self.inner.list(selector)
            }

            #scoped
        }
    }
}

fn namespace_lister(resource: &ResourcePlan) -> TokenStream {
    let kind_name = &resource.resource.kind;
    let kind = format_ident!("{}", kind_name);
    let namespace_lister = format_ident!("{}", resource.namespace_lister_type);
    let struct_doc = doc(&format!(
        "Lists and gets the [`{kind_name}`] objects of one namespace from an informer's cache \
         (client-go: `{}`).",
        resource.namespace_lister_type
    ));
    let list_doc = doc(&format!(
        "Every cached [`{kind_name}`] of the namespace whose labels match `selector`."
    ));
    let get_doc = doc(&format!("The cached [`{kind_name}`] of the namespace named `name`."));
    quote! {
        #struct_doc
        #[derive(Clone)]
        pub struct #namespace_lister {
            inner: ::kube_informers_runtime::lister::NamespaceLister<#kind>,
        }

        impl #namespace_lister {
            #list_doc
            #[inline]
            pub fn list(&self, selector: &::kube::core::Selector) -> Vec<::std::sync::Arc<#kind>> {
                self.inner.list(selector)
            }

            #get_doc
            #[inline]
            pub fn get(&self, name: &str) -> Option<::std::sync::Arc<#kind>> {
                self.inner.get(name)
            }
        }
    }
}
