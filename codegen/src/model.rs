//! The plain model discovery produces: one entry per listable API resource of k8s-openapi.

use std::collections::BTreeSet;
use std::fmt;

/// A Kubernetes minor version as k8s-openapi names its version features (`v1_33` is `1.33`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion {
    /// The minor number: `33` for Kubernetes 1.33.
    pub minor: u32,
}

impl KubeVersion {
    /// Parses a k8s-openapi version directory or feature name such as `v1_33`.
    pub fn from_module_name(name: &str) -> Option<Self> {
        let minor = name.strip_prefix("v1_")?;
        if minor.is_empty() || !minor.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        minor.parse().ok().map(|minor| Self { minor })
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor)
    }
}

/// Whether objects of a resource live in a namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// `crate::NamespaceResourceScope`: keys are `namespace/name`.
    Namespaced,
    /// `crate::ClusterResourceScope`: keys are `name`.
    Cluster,
}

/// One listable API resource (a type implementing both `Resource` and `ListableResource`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiResource {
    /// The API group, `""` for the core group.
    pub group: String,
    /// The API version within the group, such as `v1beta1`.
    pub version: String,
    /// The kind, such as `Deployment`; also the Rust type name in k8s-openapi.
    pub kind: String,
    /// The plural resource name in URLs (`URL_PATH_SEGMENT`), such as `deployments`.
    pub plural: String,
    /// Namespaced or cluster-scoped.
    pub scope: Scope,
    /// The public path of the type below `k8s_openapi`, such as `["api", "apps", "v1", "Deployment"]`.
    pub rust_path: Vec<String>,
    /// The Kubernetes versions whose k8s-openapi module ships this resource.
    pub kube_versions: BTreeSet<KubeVersion>,
}

impl ApiResource {
    /// `group/version`, or just `version` for the core group (the `apiVersion` field).
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The type's full path, such as `k8s_openapi::api::apps::v1::Deployment`.
    pub fn rust_path_string(&self) -> String {
        let mut path = String::from("k8s_openapi");
        for segment in &self.rust_path {
            path.push_str("::");
            path.push_str(segment);
        }
        path
    }
}

/// Every listable resource found, with the Kubernetes versions k8s-openapi ships.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Model {
    /// Every Kubernetes version k8s-openapi has a module for, oldest first.
    pub kube_versions: BTreeSet<KubeVersion>,
    /// Listable resources, sorted by group, version and kind.
    pub resources: Vec<ApiResource>,
}

impl Model {
    /// The newest Kubernetes version shipped (k8s-openapi's `latest` feature).
    pub fn latest(&self) -> Option<KubeVersion> {
        self.kube_versions.last().copied()
    }

    /// The oldest Kubernetes version shipped (k8s-openapi's `earliest` feature).
    pub fn earliest(&self) -> Option<KubeVersion> {
        self.kube_versions.first().copied()
    }

    /// Resources that exist in Kubernetes version `version`.
    pub fn resources_in(&self, version: KubeVersion) -> impl Iterator<Item = &ApiResource> {
        self.resources.iter().filter(move |r| r.kube_versions.contains(&version))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_version_module_names() {
        assert_eq!(KubeVersion::from_module_name("v1_33"), Some(KubeVersion { minor: 33 }));
        assert_eq!(KubeVersion::from_module_name("v1_7"), Some(KubeVersion { minor: 7 }));
        assert_eq!(KubeVersion::from_module_name("v2_33"), None);
        assert_eq!(KubeVersion::from_module_name("v1_"), None);
        assert_eq!(KubeVersion::from_module_name("v1_3x"), None);
        assert_eq!(KubeVersion { minor: 37 }.to_string(), "1.37");
    }

    #[test]
    fn api_version_omits_the_core_group() {
        let mut pod = ApiResource {
            group: String::new(),
            version: "v1".into(),
            kind: "Pod".into(),
            plural: "pods".into(),
            scope: Scope::Namespaced,
            rust_path: vec!["api".into(), "core".into(), "v1".into(), "Pod".into()],
            kube_versions: BTreeSet::new(),
        };
        assert_eq!(pod.api_version(), "v1");
        assert_eq!(pod.rust_path_string(), "k8s_openapi::api::core::v1::Pod");
        pod.group = "apps".into();
        assert_eq!(pod.api_version(), "apps/v1");
    }
}
