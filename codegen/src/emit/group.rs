//! `<group>/mod.rs`: the version accessors of one API group
//! (client-go: `informers/<group>/interface.go`).

use quote::{format_ident, quote};

use super::attrs::{doc, gated, inner_doc};
use super::render::{GeneratedFile, Result, render};
use crate::plan::GroupPlan;

/// Emits the module of one API group.
pub(super) fn emit(group: &GroupPlan) -> Result<GeneratedFile> {
    let path = format!("{}/mod.rs", group.module);
    let name = display_group(&group.group);
    let module_doc = inner_doc(&format!("The informers and listers of the {name} API group."));
    let mut modules = Vec::new();
    let mut accessors = Vec::new();
    for version in &group.versions {
        let gating = group.version_gating(version);
        let module = format_ident!("{}", version.accessor);
        let module_tokens = quote! { pub mod #module; };
        modules.push(gated(&gating, &module_tokens));
        let accessor_doc = doc(&format!(
            "The informers of `{}` (client-go: `{}()`).",
            api_version(&group.group, &version.version),
            heck::ToUpperCamelCase::to_upper_camel_case(version.accessor.as_str()),
        ));
        accessors.push(gated(
            &gating,
            &quote! {
                #accessor_doc
                pub fn #module(&self) -> #module::Version {
                    #module::Version::new(self.factory.clone())
                }
            },
        ));
    }
    let struct_doc = doc(&format!(
        "The informers of the {name} API group, one accessor per version (client-go: `{}.Interface`).",
        group.module
    ));
    let new_doc = doc("The accessors over `factory`'s informers.");
    let tokens = quote! {
        #module_doc
        #(#modules)*

        #struct_doc
        #[derive(Clone)]
        pub struct Group {
            factory: crate::SharedInformerFactory,
        }

        impl Group {
            #new_doc
            pub(crate) fn new(factory: crate::SharedInformerFactory) -> Self {
                Self { factory }
            }

            #(#accessors)*
        }
    };
    render(&path, tokens)
}

/// `` `apps` ``, or `core` for the empty group.
pub(super) fn display_group(group: &str) -> String {
    if group.is_empty() { "core (`\"\"`)".to_owned() } else { format!("`{group}`") }
}

/// `apps/v1`, or `v1` for the core group.
pub(super) fn api_version(group: &str, version: &str) -> String {
    if group.is_empty() { version.to_owned() } else { format!("{group}/{version}") }
}
