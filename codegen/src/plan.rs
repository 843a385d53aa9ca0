//! Planning: turns the discovered model into the tree the emitter walks (groups, versions,
//! resources) with every generated name and version gate decided.

use std::collections::{BTreeMap, BTreeSet};

use crate::gate::{Gating, gating};
use crate::model::{ApiResource, KubeVersion, Model, Scope};
use crate::naming;
use crate::watchable::is_watchable;

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
    /// The version and namespace-lister accessor, such as `network_policies`.
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
    /// Plans every watchable resource of `model`.
    pub fn new(model: &Model) -> Result<Self> {
        let (watchable, not_watchable): (Vec<&ApiResource>, Vec<&ApiResource>) =
            model.resources.iter().partition(|r| is_watchable(&r.group, &r.kind));

        let mut groups: BTreeMap<String, GroupPlan> = BTreeMap::new();
        let mut accessor_owner: BTreeMap<String, String> = BTreeMap::new();
        let mut module_owner: BTreeMap<String, String> = BTreeMap::new();
        for resource in watchable {
            let planned = plan_resource(resource)?;
            let group_module = group_module(resource)?;
            let accessor = naming::group_accessor(&resource.group);
            check_ident(resource, &accessor)?;
            check_ident(resource, &group_module)?;
            for (owners, name) in
                [(&mut accessor_owner, &accessor), (&mut module_owner, &group_module)]
            {
                let owner = owners.entry(name.clone()).or_insert_with(|| resource.group.clone());
                if *owner != resource.group {
                    return Err(Error::GroupCollision {
                        name: name.clone(),
                        first: owner.clone(),
                        second: resource.group.clone(),
                    });
                }
            }
            let group = groups.entry(accessor.clone()).or_insert_with(|| GroupPlan {
                group: resource.group.clone(),
                accessor,
                module: group_module,
                kube_versions: BTreeSet::new(),
                versions: Vec::new(),
            });
            group.kube_versions.extend(resource.kube_versions.iter().copied());
            let version_accessor = naming::version_accessor(&resource.version);
            check_ident(resource, &version_accessor)?;
            let version =
                match group.versions.iter_mut().position(|v| v.version == resource.version) {
                    Some(index) => &mut group.versions[index],
                    None => {
                        group.versions.push(VersionPlan {
                            version: resource.version.clone(),
                            accessor: version_accessor,
                            kube_versions: BTreeSet::new(),
                            resources: Vec::new(),
                        });
                        group.versions.last_mut().expect("just pushed")
                    }
                };
            version.kube_versions.extend(resource.kube_versions.iter().copied());
            version.resources.push(planned);
        }

        let mut groups: Vec<GroupPlan> = groups.into_values().collect();
        for group in &mut groups {
            group.versions.sort_by(|a, b| a.accessor.cmp(&b.accessor));
            for version in &mut group.versions {
                version.resources.sort_by(|a, b| a.resource.kind.cmp(&b.resource.kind));
                check_resource_collisions(version)?;
            }
        }
        Ok(Plan {
            kube_versions: model.kube_versions.clone(),
            groups,
            not_watchable: not_watchable.into_iter().cloned().collect(),
        })
    }

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

fn plan_resource(resource: &ApiResource) -> Result<ResourcePlan> {
    let accessor = naming::resource_accessor(&resource.kind);
    if !naming::accessor_matches_plural(&accessor, &resource.plural) {
        return Err(Error::PluralMismatch {
            kind: resource.kind.clone(),
            api_version: resource.api_version(),
            accessor,
            plural: resource.plural.clone(),
        });
    }
    let module = naming::kind_snake(&resource.kind);
    check_ident(resource, &accessor)?;
    check_ident(resource, &module)?;
    Ok(ResourcePlan {
        resource: resource.clone(),
        accessor,
        client_go_accessor: naming::client_go_resource_accessor(&resource.kind),
        module,
        informer_type: format!("{}Informer", resource.kind),
        lister_type: format!("{}Lister", resource.kind),
        namespace_lister_type: format!("{}NamespaceLister", resource.kind),
    })
}

/// The k8s-openapi module of the group: the path segment before the version
/// (`api::apps::v1::Deployment` -> `apps`).
fn group_module(resource: &ApiResource) -> Result<String> {
    match resource.rust_path.as_slice() {
        [.., group, version, kind] if *version == resource.version && *kind == resource.kind => {
            Ok(group.clone())
        }
        _ => Err(Error::UnexpectedPath {
            kind: resource.kind.clone(),
            api_version: resource.api_version(),
            path: resource.rust_path_string(),
        }),
    }
}

fn check_ident(resource: &ApiResource, name: &str) -> Result<()> {
    if naming::is_plain_ident(name) {
        Ok(())
    } else {
        Err(Error::NotAnIdentifier {
            kind: resource.kind.clone(),
            api_version: resource.api_version(),
            name: name.to_owned(),
        })
    }
}

fn check_resource_collisions(version: &VersionPlan) -> Result<()> {
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    for resource in &version.resources {
        for name in [resource.accessor.as_str(), resource.module.as_str()] {
            if let Some(first) = seen.insert(name, &resource.resource.kind)
                && first != resource.resource.kind
            {
                return Err(Error::ResourceCollision {
                    api_version: resource.resource.api_version(),
                    name: name.to_owned(),
                    first: first.to_owned(),
                    second: resource.resource.kind.clone(),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Condition;

    fn versions(minors: &[u32]) -> BTreeSet<KubeVersion> {
        minors.iter().map(|&minor| KubeVersion { minor }).collect()
    }

    fn resource(
        group: &str,
        module: &str,
        version: &str,
        kind: &str,
        plural: &str,
        minors: &[u32],
    ) -> ApiResource {
        ApiResource {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
            plural: plural.into(),
            scope: Scope::Namespaced,
            rust_path: vec!["api".into(), module.into(), version.into(), kind.into()],
            kube_versions: versions(minors),
        }
    }

    fn model(resources: Vec<ApiResource>) -> Model {
        Model { kube_versions: versions(&[33, 34, 35, 36, 37]), resources }
    }

    const ALL: &[u32] = &[33, 34, 35, 36, 37];

    #[test]
    fn builds_the_group_version_resource_tree() {
        let plan = Plan::new(&model(vec![
            resource("", "core", "v1", "Pod", "pods", ALL),
            resource("", "core", "v1", "ComponentStatus", "componentstatuses", ALL),
            resource(
                "networking.k8s.io",
                "networking",
                "v1",
                "NetworkPolicy",
                "networkpolicies",
                ALL,
            ),
            resource("apps", "apps", "v1", "Deployment", "deployments", ALL),
            resource("apps", "apps", "v1", "DaemonSet", "daemonsets", ALL),
        ]))
        .unwrap();
        let names: Vec<_> = plan
            .resources()
            .map(|(g, v, r)| format!("{}.{}.{}:{}", g.accessor, v.accessor, r.accessor, r.module))
            .collect();
        assert_eq!(
            names,
            [
                "apps.v1.daemon_sets:daemon_set",
                "apps.v1.deployments:deployment",
                "core.v1.pods:pod",
                "networking.v1.network_policies:network_policy",
            ]
        );
        let (_, _, policy) = plan.resources().last().unwrap();
        assert_eq!(policy.client_go_accessor, "NetworkPolicies");
        assert_eq!(policy.informer_type, "NetworkPolicyInformer");
        assert_eq!(policy.lister_type, "NetworkPolicyLister");
        assert_eq!(policy.namespace_lister_type, "NetworkPolicyNamespaceLister");
        // ComponentStatus is listable but not watchable: reported, not planned.
        assert_eq!(plan.not_watchable.len(), 1);
        assert_eq!(plan.not_watchable[0].kind, "ComponentStatus");
    }

    #[test]
    fn gates_nest_from_group_to_resource() {
        let plan = Plan::new(&model(vec![
            resource(
                "resource.k8s.io",
                "resource",
                "v1",
                "DeviceClass",
                "deviceclasses",
                &[34, 35, 36, 37],
            ),
            resource(
                "resource.k8s.io",
                "resource",
                "v1",
                "DeviceTaintRule",
                "devicetaintrules",
                &[36, 37],
            ),
            resource(
                "resource.k8s.io",
                "resource",
                "v1beta1",
                "DeviceClass",
                "deviceclasses",
                &[33, 34],
            ),
        ]))
        .unwrap();
        let group = &plan.groups[0];
        assert_eq!(plan.group_gating(group), Gating::Always);
        let v1 = &group.versions[0];
        let v1beta1 = &group.versions[1];
        let ge = |minor| Condition::AtLeast(KubeVersion { minor });
        let le = |minor| Condition::AtMost(KubeVersion { minor });
        assert_eq!(group.version_gating(v1), Gating::Alternatives(vec![vec![ge(34)]]));
        assert_eq!(group.version_gating(v1beta1), Gating::Alternatives(vec![vec![le(34)]]));
        // DeviceClass spans all of v1's versions; DeviceTaintRule only 1.36+.
        assert_eq!(v1.resource_gating(&v1.resources[0]), Gating::Always);
        assert_eq!(v1.resource_gating(&v1.resources[1]), Gating::Alternatives(vec![vec![ge(36)]]));
    }

    #[test]
    fn a_wrong_plural_is_rejected() {
        let err =
            Plan::new(&model(vec![resource("", "core", "v1", "Endpoints", "endpointses", ALL)]))
                .unwrap_err();
        assert!(matches!(err, Error::PluralMismatch { .. }), "{err}");
    }

    #[test]
    fn groups_sharing_a_first_label_collide() {
        let err = Plan::new(&model(vec![
            resource("storage.k8s.io", "storage", "v1", "StorageClass", "storageclasses", ALL),
            resource("storage.example.com", "storage", "v1", "Bucket", "buckets", ALL),
        ]))
        .unwrap_err();
        assert!(
            matches!(err, Error::GroupCollision { ref name, .. } if name == "storage"),
            "{err}"
        );
    }

    #[test]
    fn paths_must_end_in_group_version_kind() {
        let mut odd = resource("apps", "apps", "v1", "Deployment", "deployments", ALL);
        odd.rust_path = vec!["Deployment".into()];
        let err = Plan::new(&model(vec![odd])).unwrap_err();
        assert!(matches!(err, Error::UnexpectedPath { .. }), "{err}");
    }
}
