//! The resolved resource the derive generates code for, as validation hands it to expansion.

use proc_macro2::Span;
use syn::{Ident, Visibility};

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
