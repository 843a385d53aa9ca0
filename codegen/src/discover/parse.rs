//! Reading one k8s-openapi source file: the listable resources its `impl crate::Resource`
//! and `impl crate::ListableResource` blocks declare.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::error::{Error, Result};
use crate::model::Scope;

/// A listable resource found in one file of one Kubernetes version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundResource {
    /// `GROUP`.
    pub group: String,
    /// `VERSION`.
    pub version: String,
    /// `KIND`.
    pub kind: String,
    /// `URL_PATH_SEGMENT`.
    pub plural: String,
    /// `type Scope`.
    pub scope: Scope,
    /// The module path of the file plus the type name.
    pub rust_path: Vec<String>,
}

/// The top-level `impl` blocks of a source file that mention `Resource` or
/// `ListableResource`, parsed with syn.
///
/// The file is tokenized whole but only those impls are parsed into syntax trees: the
/// serde impls that make up most of each file are skipped, which makes discovery several
/// times faster.
pub fn trait_impls(source: &str) -> syn::Result<Vec<syn::ItemImpl>> {
    let tokens: proc_macro2::TokenStream = source.parse()?;
    let mut impls = Vec::new();
    let mut current: Option<Vec<proc_macro2::TokenTree>> = None;
    for token in tokens {
        match (&mut current, &token) {
            (None, proc_macro2::TokenTree::Ident(ident)) if ident == "impl" => {
                current = Some(vec![token])
            }
            (None, _) => {}
            (Some(item), proc_macro2::TokenTree::Group(group))
                if group.delimiter() == proc_macro2::Delimiter::Brace =>
            {
                item.push(token);
                let item: proc_macro2::TokenStream = current.take().into_iter().flatten().collect();
                let mentions_trait = item.clone().into_iter().any(|t| {
                    matches!(&t, proc_macro2::TokenTree::Ident(i) if i == "Resource" || i == "ListableResource")
                });
                if mentions_trait {
                    impls.push(syn::parse2(item)?);
                }
            }
            (Some(item), _) => item.push(token),
        }
    }
    Ok(impls)
}

/// Collects the types that implement both `crate::Resource` and `crate::ListableResource`
/// among the `impls` of one file (whose module path below the version module is `module`).
///
/// Generic impls (`impl<T> Resource for List<T>`) and subresources
/// (`SubResourceScope`, such as `Scale`) are not informer material and are skipped.
pub fn resources_in_impls(
    impls: &[syn::ItemImpl],
    module: &[String],
    path: &Path,
) -> Result<Vec<FoundResource>> {
    let mut resources = BTreeMap::new();
    let mut listable = BTreeSet::new();
    for item in impls {
        let Some((trait_name, ty)) = crate_trait_impl(item) else { continue };
        match trait_name.as_str() {
            "Resource" => {
                if let Some(found) = parse_resource_impl(item, &ty, module, path)? {
                    resources.insert(ty, found);
                }
            }
            "ListableResource" => {
                listable.insert(ty);
            }
            _ => {}
        }
    }
    Ok(resources
        .into_iter()
        .filter(|(ty, _)| listable.contains(ty))
        .map(|(_, found)| found)
        .collect())
}

/// For `impl crate::Trait for Type` (no generics), returns `("Trait", "Type")`.
fn crate_trait_impl(item: &syn::ItemImpl) -> Option<(String, String)> {
    if !item.generics.params.is_empty() {
        return None;
    }
    let (trait_path, _) = item.trait_.as_ref()?;
    let segments: Vec<_> = trait_path.segments.iter().collect();
    let [krate, trait_name] = segments.as_slice() else { return None };
    if krate.ident != "crate" {
        return None;
    }
    let syn::Type::Path(self_ty) = item.self_ty.as_ref() else { return None };
    if self_ty.qself.is_some() || self_ty.path.segments.len() != 1 {
        return None;
    }
    let segment = &self_ty.path.segments[0];
    if !segment.arguments.is_none() {
        return None;
    }
    Some((trait_name.ident.to_string(), segment.ident.to_string()))
}

fn parse_resource_impl(
    item: &syn::ItemImpl,
    ty: &str,
    module: &[String],
    path: &Path,
) -> Result<Option<FoundResource>> {
    let malformed = |problem: String| Error::MalformedResource {
        path: path.to_owned(),
        ty: ty.to_owned(),
        problem,
    };
    let mut consts = BTreeMap::new();
    let mut scope = None;
    for impl_item in &item.items {
        match impl_item {
            syn::ImplItem::Const(c) => {
                let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(value), .. }) = &c.expr else {
                    return Err(malformed(format!("`{}` is not a string literal", c.ident)));
                };
                consts.insert(c.ident.to_string(), value.value());
            }
            syn::ImplItem::Type(t) if t.ident == "Scope" => {
                let syn::Type::Path(scope_path) = &t.ty else {
                    return Err(malformed("`Scope` is not a path".into()));
                };
                let last = scope_path.path.segments.last().map(|s| s.ident.to_string());
                scope = Some(match last.as_deref() {
                    Some("NamespaceResourceScope") => Some(Scope::Namespaced),
                    Some("ClusterResourceScope") => Some(Scope::Cluster),
                    Some("SubResourceScope") => None,
                    other => return Err(malformed(format!("unknown scope {other:?}"))),
                });
            }
            _ => {}
        }
    }
    let Some(scope) = scope.ok_or_else(|| malformed("no `type Scope`".into()))? else {
        return Ok(None);
    };
    let mut take =
        |name: &str| consts.remove(name).ok_or_else(|| malformed(format!("no `{name}`")));
    let found = FoundResource {
        group: take("GROUP")?,
        version: take("VERSION")?,
        kind: take("KIND")?,
        plural: take("URL_PATH_SEGMENT")?,
        scope,
        rust_path: module.iter().cloned().chain([ty.to_owned()]).collect(),
    };
    let api_version = take("API_VERSION")?;
    let expected = if found.group.is_empty() {
        found.version.clone()
    } else {
        format!("{}/{}", found.group, found.version)
    };
    if api_version != expected {
        return Err(malformed(format!(
            "API_VERSION {api_version:?} is not GROUP/VERSION {expected:?}"
        )));
    }
    Ok(Some(found))
}
