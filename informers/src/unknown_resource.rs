//! The error of `for_resource` for a resource without a typed informer.

use kube::core::GroupVersionResource;

/// [`SharedInformerFactory::for_resource`](crate::SharedInformerFactory::for_resource) was
/// asked for a resource that has no typed informer in this build: not a built-in
/// resource, not one that can be watched, or not in the Kubernetes version k8s-openapi is
/// built for. Dynamic informers serve any resource.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "no typed informer for resource {:?} of group {:?}, version {:?}",
    gvr.resource,
    gvr.group,
    gvr.version
)]
pub struct UnknownResourceError {
    gvr: GroupVersionResource,
}

impl UnknownResourceError {
    /// The error for `gvr`.
    pub fn new(gvr: &GroupVersionResource) -> Self {
        Self { gvr: gvr.clone() }
    }

    /// The resource asked for.
    pub fn gvr(&self) -> &GroupVersionResource {
        &self.gvr
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_names_the_resource() {
        let err =
            UnknownResourceError::new(&GroupVersionResource::gvr("example.com", "v1", "widgets"));
        assert_eq!(
            err.to_string(),
            r#"no typed informer for resource "widgets" of group "example.com", version "v1""#
        );
        assert_eq!(err.gvr().resource, "widgets");
    }
}
