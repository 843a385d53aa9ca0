//! `<group>/<version>/mod.rs`: the resource accessors of one group/version
//! (client-go: `informers/<group>/<version>/interface.go`).

use quote::{format_ident, quote};

use super::attrs::{doc, gated, inner_doc};
use super::render::{GeneratedFile, Result, render};
use crate::plan::{GroupPlan, VersionPlan};

/// Emits the module of one group/version.
pub(super) fn emit(group: &GroupPlan, version: &VersionPlan) -> Result<GeneratedFile> {
    let path = format!("{}/{}/mod.rs", group.module, version.accessor);
    let api_version = super::group::api_version(&group.group, &version.version);
    let module_doc = inner_doc(&format!("The informers and listers of `{api_version}`."));
    let mut modules = Vec::new();
    let mut accessors = Vec::new();
    for resource in &version.resources {
        let gating = version.resource_gating(resource);
        let module = format_ident!("{}", resource.module);
        let informer = format_ident!("{}", resource.informer_type);
        let lister = format_ident!("{}", resource.lister_type);
        let exports = if resource.is_namespaced() {
            let namespace_lister = format_ident!("{}", resource.namespace_lister_type);
            quote! { pub use #module::{#informer, #lister, #namespace_lister}; }
        } else {
            quote! { pub use #module::{#informer, #lister}; }
        };
        modules.push(gated(&gating, &quote! { mod #module; }));
        modules.push(gated(&gating, &exports));
        let accessor = format_ident!("{}", resource.accessor);
        let accessor_doc = doc(&format!(
            "The informer of `{}` (client-go: `{}()`).",
            resource.resource.plural, resource.client_go_accessor,
        ));
        accessors.push(gated(
            &gating,
            &quote! {
                #accessor_doc
                pub fn #accessor(&self) -> #informer {
                    #informer::new(self.factory.clone())
                }
            },
        ));
    }
    let struct_doc = doc(&format!(
        "The informers of `{api_version}`, one accessor per resource (client-go: `{}/{}.Interface`).",
        group.module, version.accessor
    ));
    let new_doc = doc("The accessors over `factory`'s informers.");
    let tokens = quote! {
        #module_doc
        #(#modules)*

        #struct_doc
        #[derive(Clone)]
        pub struct Version {
            factory: crate::SharedInformerFactory,
        }

        impl Version {
            #new_doc
            pub(crate) fn new(factory: crate::SharedInformerFactory) -> Self {
                Self { factory }
            }

            #(#accessors)*
        }
    };
    render(&path, tokens)
}
