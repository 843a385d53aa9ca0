//! Discovery: find the k8s-openapi sources the workspace locks and collect, with syn, every
//! type that implements both `crate::Resource` and `crate::ListableResource` in each
//! Kubernetes version module (`src/v1_33/` … `src/v1_37/`).

mod error;
mod locate;
mod merge;
mod parse;
mod scan;

#[cfg(test)]
mod tests;

use std::collections::BTreeSet;
use std::path::Path;

use crate::model::{KubeVersion, Model};

pub use error::{Error, Result, SUPPORTED_K8S_OPENAPI};
pub use locate::{k8s_openapi_src, locate_k8s_openapi};
pub use parse::{FoundResource, resources_in_impls, trait_impls};
pub use scan::discover_version_dir;

use merge::Merged;
use scan::read_dir_sorted;

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
