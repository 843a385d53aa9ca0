//! Planning: turns the discovered model into the tree the emitter walks (groups, versions,
//! resources) with every generated name and version gate decided. This file holds the tree;
//! [`Plan::new`] builds it (`plan/from_model.rs`).

mod from_model;

#[cfg(test)]
mod tests;

use std::collections::BTreeSet;

use crate::gate::{Gating, gating};
use crate::model::{ApiResource, KubeVersion, Scope};

/// Errors of planning.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Two API groups would get the same accessor or module.
    #[error("API groups {first:?} and {second:?} both map to `{name}`")]
    GroupCollision {
        /// The shared name.
        name: String,
        /// One group.
        first: String,
        /// The other group.
        second: String,
    },
    /// Two resources of one group/version would get the same accessor or module.
    #[error("kinds {first} and {second} of {api_version} both map to `{name}`")]
    ResourceCollision {
        /// The group/version.
        api_version: String,
        /// The shared name.
        name: String,
        /// One kind.
        first: String,
        /// The other kind.
        second: String,
    },
    /// The pluralizer disagrees with the server's plural.
    #[error(
        "{kind} ({api_version}): accessor `{accessor}` does not spell the URL plural {plural:?}"
    )]
    PluralMismatch {
        /// The kind.
        kind: String,
        /// Its `apiVersion`.
        api_version: String,
        /// The accessor the namer produced.
        accessor: String,
        /// `URL_PATH_SEGMENT`.
        plural: String,
    },
    /// A generated name is not a plain identifier (a keyword, say).
    #[error("{kind} ({api_version}): `{name}` is not a plain Rust identifier")]
    NotAnIdentifier {
        /// The kind.
        kind: String,
        /// Its `apiVersion`.
        api_version: String,
        /// The name.
        name: String,
    },
    /// The type's path does not end in `<group module>::<version>::<Kind>`.
    #[error("{kind} ({api_version}): unexpected k8s-openapi path {path}")]
    UnexpectedPath {
        /// The kind.
        kind: String,
        /// Its `apiVersion`.
        api_version: String,
        /// The path.
        path: String,
    },
}

/// Result of planning.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything the emitter generates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Every Kubernetes version k8s-openapi ships (the crate's outermost scope).
    pub kube_versions: BTreeSet<KubeVersion>,
    /// API groups, sorted by accessor.
    pub groups: Vec<GroupPlan>,
    /// Listable resources left out because they cannot be watched.
    pub not_watchable: Vec<ApiResource>,
}

/// One API group: `generated/<module>/mod.rs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupPlan {
    /// The API group, `""` for core.
    pub group: String,
    /// The factory accessor, such as `rbac`.
    pub accessor: String,
    /// The module, named like k8s-openapi's and client-go's package (`apiserverinternal`).
    pub module: String,
    /// Kubernetes versions with at least one resource of the group.
    pub kube_versions: BTreeSet<KubeVersion>,
    /// Versions, sorted by name.
    pub versions: Vec<VersionPlan>,
}

/// One group/version: `generated/<group>/<version>/mod.rs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionPlan {
    /// The API version, such as `v1beta1`.
    pub version: String,
    /// The accessor and module name.
    pub accessor: String,
    /// Kubernetes versions with at least one resource of this group/version.
    pub kube_versions: BTreeSet<KubeVersion>,
    /// Resources, sorted by kind.
    pub resources: Vec<ResourcePlan>,
}

/// One resource: `generated/<group>/<version>/<module>.rs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourcePlan {
    /// The discovered resource.
    pub resource: ApiResource,
    /// The accessor of the version's informers and the lister's namespace accessor, such as
    /// `network_policies`.
    pub accessor: String,
    /// client-go's accessor for the docs, such as `NetworkPolicies` or `CSIDrivers`.
    pub client_go_accessor: String,
    /// The file and module name, such as `network_policy`.
    pub module: String,
    /// `XxxInformer`.
    pub informer_type: String,
    /// `XxxLister`.
    pub lister_type: String,
    /// `XxxNamespaceLister` (generated for namespaced kinds only).
    pub namespace_lister_type: String,
}

impl ResourcePlan {
    /// Whether objects live in namespaces.
    pub fn is_namespaced(&self) -> bool {
        self.resource.scope == Scope::Namespaced
    }
}

impl Plan {
    /// Every planned resource with its group and version.
    pub fn resources(&self) -> impl Iterator<Item = (&GroupPlan, &VersionPlan, &ResourcePlan)> {
        self.groups.iter().flat_map(|g| {
            g.versions.iter().flat_map(move |v| v.resources.iter().map(move |r| (g, v, r)))
        })
    }

    /// How a group is gated at the crate root.
    pub fn group_gating(&self, group: &GroupPlan) -> Gating {
        gating(&group.kube_versions, &self.kube_versions)
    }
}

impl GroupPlan {
    /// How a version is gated inside its group.
    pub fn version_gating(&self, version: &VersionPlan) -> Gating {
        gating(&version.kube_versions, &self.kube_versions)
    }
}

impl VersionPlan {
    /// How a resource is gated inside its version.
    pub fn resource_gating(&self, resource: &ResourcePlan) -> Gating {
        gating(&resource.resource.kube_versions, &self.kube_versions)
    }
}
