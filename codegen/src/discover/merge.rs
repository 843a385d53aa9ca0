//! Merging the findings of every Kubernetes version into one [`ApiResource`] per
//! group/version/kind, with the versions that ship it.

use std::collections::{BTreeMap, BTreeSet};

use super::error::{Error, Result};
use super::parse::FoundResource;
use crate::model::{ApiResource, KubeVersion};

/// Merges the per-version findings into one entry per group/version/kind.
#[derive(Default)]
pub(super) struct Merged {
    by_gvk: BTreeMap<(String, String, String), (ApiResource, KubeVersion)>,
}

impl Merged {
    /// Adds `found`, seen in Kubernetes `version`: an error when its plural, scope or Rust
    /// path differs from an earlier version's.
    pub(super) fn add(&mut self, found: FoundResource, version: KubeVersion) -> Result<()> {
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

    /// One resource per group/version/kind, sorted by them.
    pub(super) fn into_resources(self) -> Vec<ApiResource> {
        self.by_gvk.into_values().map(|(resource, _)| resource).collect()
    }
}
