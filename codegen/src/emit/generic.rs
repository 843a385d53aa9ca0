//! `generic.rs`: `for_resource`, from a GroupVersionResource to its typed shared informer
//! (client-go: `informers/generic.go`), and the list of every typed resource.

use quote::{format_ident, quote};

use super::attrs::{doc, gated, inner_doc};
use super::render::{GeneratedFile, Result, render};
use crate::gate::gating;
use crate::plan::Plan;

/// Emits `generic.rs`.
pub(super) fn emit(plan: &Plan) -> Result<GeneratedFile> {
    let mut gated_lookups = Vec::new();
    let mut arms = Vec::new();
    let mut always_listed = Vec::new();
    let mut gated_pushes = Vec::new();
    for (group, version, resource) in plan.resources() {
        let api = &resource.resource;
        let (g, v, r) = (api.group.as_str(), api.version.as_str(), api.plural.as_str());
        let group_accessor = format_ident!("{}", group.accessor);
        let version_accessor = format_ident!("{}", version.accessor);
        let resource_accessor = format_ident!("{}", resource.accessor);
        let informer = quote! {
            ::kube_informers_runtime::ErasedInformer::new(
                self.#group_accessor().#version_accessor().#resource_accessor().informer(),
                gvr.clone(),
            )
        };
        let gvr = quote! { ::kube::core::GroupVersionResource::gvr(#g, #v, #r) };
        let present = gating(&api.kube_versions, &plan.kube_versions);
        if present == crate::gate::Gating::Always {
            arms.push(quote! { (#g, #v, #r) => Ok(#informer), });
            always_listed.push(gvr);
        } else {
            gated_lookups.push(gated(
                &present,
                &quote! {
                    if key == (#g, #v, #r) {
                        return Ok(#informer);
                    }
                },
            ));
            gated_pushes.push(gated(&present, &quote! { resources.push(#gvr); }));
        }
    }
    let module_doc = inner_doc(
        "From a GroupVersionResource to its typed shared informer (client-go: `informers/generic.go`).",
    );
    let for_resource_doc =
        doc("The factory's shared informer of `gvr`, type-erased (client-go: `ForResource`).\n\
         \n\
         The informer is the same one the typed accessor returns, so both share one watch.\n\
         \n\
         # Errors\n\
         \n\
         [`UnknownResourceError`](crate::UnknownResourceError), naming `gvr`, when no typed \
         informer exists for it in this build.");
    let typed_resources_doc = doc(
        "The GroupVersionResource of every typed informer of this build, which \
         [`SharedInformerFactory::for_resource`](crate::SharedInformerFactory::for_resource) accepts.",
    );
    let tokens = quote! {
        #module_doc

        impl crate::SharedInformerFactory {
            #for_resource_doc
            #[inline]
            pub fn for_resource(
                &self,
                gvr: &::kube::core::GroupVersionResource,
            ) -> Result<::kube_informers_runtime::ErasedInformer, crate::UnknownResourceError> {
                let key = (gvr.group.as_str(), gvr.version.as_str(), gvr.resource.as_str());
                #(#gated_lookups)*
                match key {
                    #(#arms)*
                    _ => Err(crate::UnknownResourceError::new(gvr)),
                }
            }
        }

        #typed_resources_doc
        #[inline]
        pub fn typed_resources() -> Vec<::kube::core::GroupVersionResource> {
            #[allow(unused_mut)]
            let mut resources = vec![#(#always_listed),*];
            #(#gated_pushes)*
            resources
        }
    };
    render("generic.rs", tokens)
}
