//! Building the plan from the model: leaves out what cannot be watched, names every group,
//! version and resource, and rejects what it cannot name (names that collide or are not
//! plain identifiers, an accessor that does not spell the URL plural, a type path that does
//! not end in `<group>::<version>::<Kind>`).

use std::collections::{BTreeMap, BTreeSet};

use super::{Error, GroupPlan, Plan, ResourcePlan, Result, VersionPlan};
use crate::model::{ApiResource, Model};
use crate::naming;
use crate::watchable::is_watchable;

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
