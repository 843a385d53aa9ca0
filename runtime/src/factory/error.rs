//! Errors of the dynamic and metadata informer factories.

use kube::core::GroupVersionResource;

/// What can go wrong when a dynamic factory looks a resource up through discovery.
#[derive(Debug, thiserror::Error)]
pub enum DynamicError {
    /// The discovery request failed (network, 403, 404 for an unknown group/version...).
    #[error("discovery of {group}/{version} failed")]
    Discovery {
        /// The API group asked for (`""` for core).
        group: String,
        /// The API version asked for.
        version: String,
        /// What the API server or the transport said.
        #[source]
        source: kube::Error,
    },
    /// Discovery succeeded but the group/version does not serve this resource.
    #[error("the API server does not serve resource {resource:?} in {group}/{version}")]
    NotServed {
        /// The API group asked for (`""` for core).
        group: String,
        /// The API version asked for.
        version: String,
        /// The plural resource name asked for.
        resource: String,
    },
}

impl DynamicError {
    pub(crate) fn not_served(gvr: &GroupVersionResource) -> Self {
        Self::NotServed {
            group: gvr.group.clone(),
            version: gvr.version.clone(),
            resource: gvr.resource.clone(),
        }
    }
}

/// The result of a discovery-backed dynamic factory call.
pub type Result<T, E = DynamicError> = std::result::Result<T, E>;
