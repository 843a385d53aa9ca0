//! Turning a GroupVersionResource into what `kube::Api` needs to build URLs.

use kube::Client;
use kube::core::{ApiResource, GroupVersion, GroupVersionResource};
use kube::discovery::{self, Scope};

use super::error::{DynamicError, Result};

/// Where a resource lives, as far as a dynamic factory knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResolvedResource {
    pub(crate) api_resource: ApiResource,
    /// `None` when unknown (no discovery): the factory's namespace decides the URL, as in
    /// client-go's dynamic client.
    pub(crate) scope: Option<Scope>,
}

/// The GVR with its derived `api_version`, so that GVRs built or deserialized in different
/// ways compare equal (the field is private and skipped when missing from JSON).
pub(crate) fn normalize(gvr: &GroupVersionResource) -> GroupVersionResource {
    GroupVersionResource::gvr(&gvr.group, &gvr.version, &gvr.resource)
}

/// The `ApiResource` client-go's dynamic client would use: everything comes from the GVR,
/// and the kind stays empty since no URL needs it.
pub(crate) fn from_gvr(gvr: &GroupVersionResource) -> ResolvedResource {
    let gv = GroupVersion::gv(&gvr.group, &gvr.version);
    ResolvedResource {
        api_resource: ApiResource {
            group: gvr.group.clone(),
            version: gvr.version.clone(),
            api_version: gv.api_version(),
            kind: String::new(),
            plural: gvr.resource.clone(),
        },
        scope: None,
    }
}

/// Asks the API server's discovery endpoint for the kind and scope of `gvr`.
pub(crate) async fn discover(
    client: &Client,
    gvr: &GroupVersionResource,
) -> Result<ResolvedResource> {
    let gv = GroupVersion::gv(&gvr.group, &gvr.version);
    let group = discovery::pinned_group(client, &gv).await.map_err(|source| {
        DynamicError::Discovery { group: gvr.group.clone(), version: gvr.version.clone(), source }
    })?;
    group
        .versioned_resources(&gvr.version)
        .into_iter()
        .find(|(resource, _)| resource.plural == gvr.resource)
        .map(|(api_resource, capabilities)| ResolvedResource {
            api_resource,
            scope: Some(capabilities.scope),
        })
        .ok_or_else(|| DynamicError::not_served(gvr))
}
