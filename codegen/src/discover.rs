//! Discovery: find the k8s-openapi sources the workspace locks and collect, with syn, every
//! type that implements both `crate::Resource` and `crate::ListableResource` in each
//! Kubernetes version module (`src/v1_33/` … `src/v1_37/`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::model::{ApiResource, KubeVersion, Model, Scope};

/// The k8s-openapi release line this generator understands (`0.29.x`).
pub const SUPPORTED_K8S_OPENAPI: &str = "0.29";

/// Errors of discovery.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `cargo metadata` could not be started.
    #[error("could not run `cargo metadata`")]
    CargoMetadataSpawn(#[source] std::io::Error),
    /// `cargo metadata` exited unsuccessfully.
    #[error("`cargo metadata` failed: {stderr}")]
    CargoMetadataFailed {
        /// What cargo printed on stderr.
        stderr: String,
    },
    /// `cargo metadata` printed something that is not the expected JSON.
    #[error("`cargo metadata` printed unexpected JSON")]
    MetadataJson(#[source] serde_json::Error),
    /// The workspace does not depend on a supported k8s-openapi.
    #[error("the workspace does not lock k8s-openapi {SUPPORTED_K8S_OPENAPI}.x")]
    K8sOpenapiNotLocked,
    /// A file or directory could not be read.
    #[error("could not read {}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A k8s-openapi source file is not valid Rust.
    #[error("could not parse {}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: syn::Error,
    },
    /// The source directory has no `v1_*` version modules.
    #[error("no v1_* version directories under {}", .0.display())]
    NoVersions(PathBuf),
    /// An `impl Resource` block lacks an item the generator needs or has an unexpected one.
    #[error("{}: `impl Resource for {ty}`: {problem}", path.display())]
    MalformedResource {
        /// The file.
        path: PathBuf,
        /// The implementing type.
        ty: String,
        /// What is wrong.
        problem: String,
    },
    /// The same group/version/kind differs between two Kubernetes versions.
    #[error(
        "{kind} ({api_version}) has {what} {first:?} in Kubernetes {first_version} but {second:?} in {second_version}"
    )]
    Inconsistent {
        /// The kind.
        kind: String,
        /// Its `apiVersion`.
        api_version: String,
        /// Which property differs.
        what: &'static str,
        /// The value seen first.
        first: String,
        /// The Kubernetes version it was seen in.
        first_version: KubeVersion,
        /// The value seen later.
        second: String,
        /// The Kubernetes version it was seen in.
        second_version: KubeVersion,
    },
}

/// Result of discovery.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Runs `cargo metadata` on the workspace of `manifest_path` and returns the `src/`
/// directory of the k8s-openapi package it locks.
pub fn locate_k8s_openapi(manifest_path: &Path) -> Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(manifest_path)
        .output()
        .map_err(Error::CargoMetadataSpawn)?;
    if !output.status.success() {
        return Err(Error::CargoMetadataFailed {
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        });
    }
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).map_err(Error::MetadataJson)?;
    k8s_openapi_src(&metadata)
}

/// Finds the `src/` directory of k8s-openapi `0.29.x` in `cargo metadata` output.
pub fn k8s_openapi_src(metadata: &serde_json::Value) -> Result<PathBuf> {
    let packages = metadata.get("packages").and_then(|p| p.as_array());
    let wanted_prefix = format!("{SUPPORTED_K8S_OPENAPI}.");
    packages
        .into_iter()
        .flatten()
        .filter(|p| p.get("name").and_then(|n| n.as_str()) == Some("k8s-openapi"))
        .filter(|p| {
            p.get("version").and_then(|v| v.as_str()).is_some_and(|v| v.starts_with(&wanted_prefix))
        })
        .find_map(|p| p.get("manifest_path").and_then(|m| m.as_str()))
        .and_then(|manifest| Path::new(manifest).parent().map(|dir| dir.join("src")))
        .ok_or(Error::K8sOpenapiNotLocked)
}

/// Parses every `v1_*` module under k8s-openapi's `src/` directory into a [`Model`].
pub fn discover(src: &Path) -> Result<Model> {
    let mut kube_versions = BTreeSet::new();
    for entry in read_dir_sorted(src)? {
        if let Some(version) =
            entry.file_name().and_then(|n| n.to_str()).and_then(KubeVersion::from_module_name)
            && entry.is_dir()
        {
            kube_versions.insert(version);
        }
    }
    if kube_versions.is_empty() {
        return Err(Error::NoVersions(src.to_owned()));
    }

    let mut merged = Merged::default();
    for &version in &kube_versions {
        let dir = src.join(format!("v1_{}", version.minor));
        for found in discover_version_dir(&dir)? {
            merged.add(found, version)?;
        }
    }
    Ok(Model { kube_versions, resources: merged.into_resources() })
}

/// Collects the listable resources of one version directory such as `src/v1_37`.
pub fn discover_version_dir(dir: &Path) -> Result<Vec<FoundResource>> {
    let mut found = Vec::new();
    let mut pending = vec![(dir.to_owned(), Vec::<String>::new())];
    while let Some((current, module)) = pending.pop() {
        for path in read_dir_sorted(&current)? {
            let Some(name) = path.file_name().and_then(|n| n.to_str()).map(str::to_owned) else {
                continue;
            };
            if path.is_dir() {
                let mut child = module.clone();
                child.push(name);
                pending.push((path, child));
            } else if name.ends_with(".rs") {
                let text = std::fs::read_to_string(&path)
                    .map_err(|source| Error::Io { path: path.clone(), source })?;
                // Any impl of the trait names it; most files are plain structs, and parsing
                // those is most of the time discovery would take.
                if !text.contains("ListableResource") {
                    continue;
                }
                let impls = trait_impls(&text)
                    .map_err(|source| Error::Parse { path: path.clone(), source })?;
                found.extend(resources_in_impls(&impls, &module, &path)?);
            }
        }
    }
    found.sort_by(|a, b| a.rust_path.cmp(&b.rust_path));
    Ok(found)
}

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

/// Merges the per-version findings into one entry per group/version/kind.
#[derive(Default)]
struct Merged {
    by_gvk: BTreeMap<(String, String, String), (ApiResource, KubeVersion)>,
}

impl Merged {
    fn add(&mut self, found: FoundResource, version: KubeVersion) -> Result<()> {
        let key = (found.group.clone(), found.version.clone(), found.kind.clone());
        let Some((existing, first_version)) = self.by_gvk.get_mut(&key) else {
            let resource = ApiResource {
                group: found.group,
                version: found.version,
                kind: found.kind,
                plural: found.plural,
                scope: found.scope,
                rust_path: found.rust_path,
                kube_versions: BTreeSet::from([version]),
            };
            self.by_gvk.insert(key, (resource, version));
            return Ok(());
        };
        let differs = |what: &'static str, first: String, second: String| Error::Inconsistent {
            kind: existing.kind.clone(),
            api_version: existing.api_version(),
            what,
            first,
            first_version: *first_version,
            second,
            second_version: version,
        };
        if existing.plural != found.plural {
            return Err(differs("plural", existing.plural.clone(), found.plural));
        }
        if existing.scope != found.scope {
            return Err(differs(
                "scope",
                format!("{:?}", existing.scope),
                format!("{:?}", found.scope),
            ));
        }
        if existing.rust_path != found.rust_path {
            return Err(differs(
                "Rust path",
                existing.rust_path.join("::"),
                found.rust_path.join("::"),
            ));
        }
        existing.kube_versions.insert(version);
        Ok(())
    }

    fn into_resources(self) -> Vec<ApiResource> {
        self.by_gvk.into_values().map(|(resource, _)| resource).collect()
    }
}

fn read_dir_sorted(dir: &Path) -> Result<Vec<PathBuf>> {
    let io_error = |source| Error::Io { path: dir.to_owned(), source };
    let mut paths = std::fs::read_dir(dir)
        .map_err(io_error)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(io_error)?;
    paths.sort();
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEPLOYMENT: &str = r#"
        pub struct Deployment {}
        impl crate::Resource for Deployment {
            const API_VERSION: &'static str = "apps/v1";
            const GROUP: &'static str = "apps";
            const KIND: &'static str = "Deployment";
            const VERSION: &'static str = "v1";
            const URL_PATH_SEGMENT: &'static str = "deployments";
            type Scope = crate::NamespaceResourceScope;
        }
        impl crate::ListableResource for Deployment {
            const LIST_KIND: &'static str = "DeploymentList";
        }
    "#;

    const SCALE: &str = r#"
        impl crate::Resource for Scale {
            const API_VERSION: &'static str = "autoscaling/v1";
            const GROUP: &'static str = "autoscaling";
            const KIND: &'static str = "Scale";
            const VERSION: &'static str = "v1";
            const URL_PATH_SEGMENT: &'static str = "scale";
            type Scope = crate::SubResourceScope;
        }
    "#;

    const BINDING: &str = r#"
        impl crate::Resource for Binding {
            const API_VERSION: &'static str = "v1";
            const GROUP: &'static str = "";
            const KIND: &'static str = "Binding";
            const VERSION: &'static str = "v1";
            const URL_PATH_SEGMENT: &'static str = "bindings";
            type Scope = crate::NamespaceResourceScope;
        }
    "#;

    const LIST: &str = r#"
        impl<T> crate::Resource for List<T> where T: crate::ListableResource {
            const API_VERSION: &'static str = <T as crate::Resource>::API_VERSION;
            type Scope = <T as crate::Resource>::Scope;
        }
        impl<T> crate::ListableResource for List<T> { const LIST_KIND: &'static str = ""; }
    "#;

    fn parse(source: &str, module: &[&str]) -> Result<Vec<FoundResource>> {
        let impls = trait_impls(source).unwrap();
        let module: Vec<String> = module.iter().map(|s| s.to_string()).collect();
        resources_in_impls(&impls, &module, Path::new("test.rs"))
    }

    #[test]
    fn finds_resource_and_listable_types() {
        let found = parse(DEPLOYMENT, &["api", "apps", "v1"]).unwrap();
        assert_eq!(
            found,
            [FoundResource {
                group: "apps".into(),
                version: "v1".into(),
                kind: "Deployment".into(),
                plural: "deployments".into(),
                scope: Scope::Namespaced,
                rust_path: vec!["api".into(), "apps".into(), "v1".into(), "Deployment".into()],
            }]
        );
    }

    #[test]
    fn skips_unlistable_generic_and_subresource_types() {
        assert_eq!(parse(BINDING, &["api", "core", "v1"]).unwrap(), []);
        assert_eq!(parse(SCALE, &["api", "autoscaling", "v1"]).unwrap(), []);
        assert_eq!(parse(LIST, &[]).unwrap(), []);
    }

    #[test]
    fn rejects_an_api_version_that_is_not_group_slash_version() {
        let broken = DEPLOYMENT.replace(r#""apps/v1""#, r#""apps/v2""#);
        let err = parse(&broken, &["api", "apps", "v1"]).unwrap_err();
        assert!(matches!(err, Error::MalformedResource { .. }), "{err}");
    }

    #[test]
    fn reads_the_k8s_openapi_source_dir_from_cargo_metadata() {
        let metadata = serde_json::json!({"packages": [
            {"name": "k8s-openapi", "version": "0.28.1", "manifest_path": "/reg/k8s-openapi-0.28.1/Cargo.toml"},
            {"name": "kube", "version": "5.0.0", "manifest_path": "/reg/kube-5.0.0/Cargo.toml"},
            {"name": "k8s-openapi", "version": "0.29.0", "manifest_path": "/reg/k8s-openapi-0.29.0/Cargo.toml"},
        ]});
        assert_eq!(k8s_openapi_src(&metadata).unwrap(), Path::new("/reg/k8s-openapi-0.29.0/src"));
        let without = serde_json::json!({"packages": [{"name": "kube", "version": "5.0.0"}]});
        assert!(matches!(k8s_openapi_src(&without), Err(Error::K8sOpenapiNotLocked)));
    }

    fn write(root: &Path, relative: &str, contents: &str) {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
    }

    #[test]
    fn merges_versions_into_version_sets() {
        let src = tempfile::tempdir().unwrap();
        write(src.path(), "lib.rs", "");
        write(src.path(), "v1_33/api/apps/v1/deployment.rs", DEPLOYMENT);
        write(src.path(), "v1_34/api/apps/v1/deployment.rs", DEPLOYMENT);
        write(src.path(), "v1_34/api/core/v1/binding.rs", BINDING);
        write(src.path(), "v1_35/api/core/v1/mod.rs", "");
        let model = discover(src.path()).unwrap();
        let all: Vec<u32> = model.kube_versions.iter().map(|v| v.minor).collect();
        assert_eq!(all, [33, 34, 35]);
        assert_eq!(model.resources.len(), 1);
        let deployment = &model.resources[0];
        assert_eq!(deployment.rust_path_string(), "k8s_openapi::api::apps::v1::Deployment");
        let present: Vec<u32> = deployment.kube_versions.iter().map(|v| v.minor).collect();
        assert_eq!(present, [33, 34]);
    }

    #[test]
    fn a_resource_that_changes_between_versions_is_an_error() {
        let src = tempfile::tempdir().unwrap();
        write(src.path(), "v1_33/api/apps/v1/deployment.rs", DEPLOYMENT);
        let cluster_scoped = DEPLOYMENT.replace("NamespaceResourceScope", "ClusterResourceScope");
        write(src.path(), "v1_34/api/apps/v1/deployment.rs", &cluster_scoped);
        let err = discover(src.path()).unwrap_err();
        assert!(matches!(err, Error::Inconsistent { what: "scope", .. }), "{err}");
    }

    #[test]
    fn a_directory_without_versions_is_an_error() {
        let src = tempfile::tempdir().unwrap();
        write(src.path(), "lib.rs", "");
        assert!(matches!(discover(src.path()), Err(Error::NoVersions(_))));
    }
}
