//! The resource table: which resources the server knows, like a real apiserver knows its own.
//!
//! Built-ins are static data; custom resources are added at runtime (from a CRD object or
//! an [`ApiResource`]) and removed when their CRD is deleted.

use std::collections::BTreeMap;
use std::sync::Arc;

use kube::core::ApiResource;
use parking_lot::RwLock;
use serde_json::{Value, json};

/// Whether a resource lives in a namespace or at cluster scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Objects live in a namespace (`/namespaces/{ns}/...`).
    Namespaced,
    /// Objects are cluster-scoped.
    Cluster,
}

/// The verbs every ordinary resource supports.
const ALL_VERBS: &[&str] =
    &["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
/// Namespaces cannot be deleted as a collection.
const NO_COLLECTION_DELETE: &[&str] =
    &["create", "delete", "get", "list", "patch", "update", "watch"];
/// componentstatuses is read-only and cannot be watched.
const GET_LIST: &[&str] = &["get", "list"];

/// What the server knows about one resource (one entry of an `APIResourceList`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceInfo {
    /// API group, `""` for core.
    pub group: String,
    /// API version, e.g. `v1`.
    pub version: String,
    /// Kind, e.g. `Pod`.
    pub kind: String,
    /// Plural resource name, e.g. `pods`.
    pub plural: String,
    /// Singular name, e.g. `pod`.
    pub singular: String,
    /// Namespaced or cluster-scoped.
    pub scope: Scope,
    /// Supported verbs.
    pub verbs: Vec<String>,
    /// Kind of the list, e.g. `PodList`.
    pub list_kind: String,
    /// kubectl short names.
    pub short_names: Vec<String>,
    /// Whether the resource has a `status` subresource.
    pub has_status: bool,
}

impl ResourceInfo {
    /// `apiVersion` of objects of this resource (`v1` or `group/version`).
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// Whether the resource supports `verb`.
    pub fn supports(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == verb)
    }

    /// The storage key of the resource: group and plural (versions share storage).
    pub(crate) fn group_resource(&self) -> GroupResource {
        GroupResource { group: self.group.clone(), resource: self.plural.clone() }
    }

    /// The discovery document entries (resource and its status subresource).
    pub(crate) fn discovery_entries(&self) -> Vec<Value> {
        let mut main = json!({
            "name": self.plural,
            "singularName": self.singular,
            "namespaced": self.scope == Scope::Namespaced,
            "kind": self.kind,
            "verbs": self.verbs,
        });
        if !self.short_names.is_empty() {
            main["shortNames"] = json!(self.short_names);
        }
        let mut entries = vec![main];
        if self.has_status {
            entries.push(json!({
                "name": format!("{}/status", self.plural),
                "singularName": "",
                "namespaced": self.scope == Scope::Namespaced,
                "kind": self.kind,
                "verbs": ["get", "patch", "update"],
            }));
        }
        entries
    }
}

/// Storage identity of a resource: every version of a group/resource shares objects.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct GroupResource {
    pub(crate) group: String,
    pub(crate) resource: String,
}

/// One row of the built-in table: group, version, plural, kind, scope, verbs, short names,
/// status subresource.
type BuiltIn = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Scope,
    &'static [&'static str],
    &'static [&'static str],
    bool,
);

use Scope::{Cluster, Namespaced};

#[rustfmt::skip]
const BUILT_INS: &[BuiltIn] = &[
    ("", "v1", "pods", "Pod", Namespaced, ALL_VERBS, &["po"], true),
    ("", "v1", "configmaps", "ConfigMap", Namespaced, ALL_VERBS, &["cm"], false),
    ("", "v1", "secrets", "Secret", Namespaced, ALL_VERBS, &[], false),
    ("", "v1", "services", "Service", Namespaced, NO_COLLECTION_DELETE, &["svc"], true),
    ("", "v1", "namespaces", "Namespace", Cluster, NO_COLLECTION_DELETE, &["ns"], true),
    ("", "v1", "nodes", "Node", Cluster, ALL_VERBS, &["no"], true),
    ("", "v1", "endpoints", "Endpoints", Namespaced, ALL_VERBS, &["ep"], false),
    ("", "v1", "events", "Event", Namespaced, ALL_VERBS, &["ev"], false),
    ("", "v1", "serviceaccounts", "ServiceAccount", Namespaced, ALL_VERBS, &["sa"], false),
    ("", "v1", "persistentvolumes", "PersistentVolume", Cluster, ALL_VERBS, &["pv"], true),
    ("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", Namespaced, ALL_VERBS, &["pvc"], true),
    ("", "v1", "componentstatuses", "ComponentStatus", Cluster, GET_LIST, &["cs"], false),
    ("", "v1", "replicationcontrollers", "ReplicationController", Namespaced, ALL_VERBS, &["rc"], true),
    ("", "v1", "limitranges", "LimitRange", Namespaced, ALL_VERBS, &["limits"], false),
    ("", "v1", "resourcequotas", "ResourceQuota", Namespaced, ALL_VERBS, &["quota"], true),
    ("", "v1", "podtemplates", "PodTemplate", Namespaced, ALL_VERBS, &[], false),
    ("apps", "v1", "deployments", "Deployment", Namespaced, ALL_VERBS, &["deploy"], true),
    ("apps", "v1", "replicasets", "ReplicaSet", Namespaced, ALL_VERBS, &["rs"], true),
    ("apps", "v1", "statefulsets", "StatefulSet", Namespaced, ALL_VERBS, &["sts"], true),
    ("apps", "v1", "daemonsets", "DaemonSet", Namespaced, ALL_VERBS, &["ds"], true),
    ("apps", "v1", "controllerrevisions", "ControllerRevision", Namespaced, ALL_VERBS, &[], false),
    ("batch", "v1", "jobs", "Job", Namespaced, ALL_VERBS, &[], true),
    ("batch", "v1", "cronjobs", "CronJob", Namespaced, ALL_VERBS, &["cj"], true),
    ("networking.k8s.io", "v1", "ingresses", "Ingress", Namespaced, ALL_VERBS, &["ing"], true),
    ("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", Namespaced, ALL_VERBS, &["netpol"], false),
    ("networking.k8s.io", "v1", "ingressclasses", "IngressClass", Cluster, ALL_VERBS, &[], false),
    ("rbac.authorization.k8s.io", "v1", "roles", "Role", Namespaced, ALL_VERBS, &[], false),
    ("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", Namespaced, ALL_VERBS, &[], false),
    ("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", Cluster, ALL_VERBS, &[], false),
    ("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", Cluster, ALL_VERBS, &[], false),
    ("coordination.k8s.io", "v1", "leases", "Lease", Namespaced, ALL_VERBS, &[], false),
    ("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", Cluster, ALL_VERBS, &["crd", "crds"], true),
    ("storage.k8s.io", "v1", "storageclasses", "StorageClass", Cluster, ALL_VERBS, &["sc"], false),
    ("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", Namespaced, ALL_VERBS, &["pdb"], true),
    ("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", Namespaced, ALL_VERBS, &[], false),
    ("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", Cluster, ALL_VERBS, &["pc"], false),
    ("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", Namespaced, ALL_VERBS, &["hpa"], true),
];

/// Whether `group`/`plural` is a built-in resource (not a custom resource).
pub(crate) fn is_built_in(group: &str, plural: &str) -> bool {
    BUILT_INS.iter().any(|&(g, _, p, ..)| g == group && p == plural)
}

/// (group, version) -> resources of that group version.
type ByGroupVersion = BTreeMap<(String, String), Vec<Arc<ResourceInfo>>>;

/// The set of served resources, built-ins plus registered custom resources.
#[derive(Debug)]
pub(crate) struct Registry {
    /// (group, version) -> resources, in registration order.
    by_group_version: RwLock<ByGroupVersion>,
}

impl Registry {
    /// A registry holding the built-in resources.
    pub(crate) fn with_built_ins() -> Self {
        let registry = Registry { by_group_version: RwLock::new(BTreeMap::new()) };
        for &(group, version, plural, kind, scope, verbs, short, has_status) in BUILT_INS {
            registry.register(ResourceInfo {
                group: group.into(),
                version: version.into(),
                kind: kind.into(),
                plural: plural.into(),
                singular: kind.to_ascii_lowercase(),
                scope,
                verbs: verbs.iter().map(|v| v.to_string()).collect(),
                list_kind: format!("{kind}List"),
                short_names: short.iter().map(|s| s.to_string()).collect(),
                has_status,
            });
        }
        registry
    }

    /// Adds (or replaces) a resource.
    pub(crate) fn register(&self, info: ResourceInfo) {
        let mut map = self.by_group_version.write();
        let list = map.entry((info.group.clone(), info.version.clone())).or_default();
        list.retain(|r| r.plural != info.plural);
        list.push(Arc::new(info));
    }

    /// Removes every version of `group`/`plural`; returns whether anything was removed.
    pub(crate) fn unregister(&self, group: &str, plural: &str) -> bool {
        let mut map = self.by_group_version.write();
        let mut removed = false;
        for ((g, _), list) in map.iter_mut() {
            if g == group {
                let before = list.len();
                list.retain(|r| r.plural != plural);
                removed |= list.len() != before;
            }
        }
        map.retain(|_, list| !list.is_empty());
        removed
    }

    /// Looks a resource up by group, version and plural.
    pub(crate) fn get(
        &self,
        group: &str,
        version: &str,
        plural: &str,
    ) -> Option<Arc<ResourceInfo>> {
        let map = self.by_group_version.read();
        map.get(&(group.to_string(), version.to_string()))?
            .iter()
            .find(|r| r.plural == plural)
            .cloned()
    }

    /// Finds a resource by a user-facing name: `pods`, `deployments.apps`, `Pod` or a
    /// short name. The first match in group order wins (core first).
    pub(crate) fn find(&self, name: &str) -> Option<Arc<ResourceInfo>> {
        let (plural, group) = match name.split_once('.') {
            Some((p, g)) => (p, Some(g)),
            None => (name, None),
        };
        let map = self.by_group_version.read();
        map.iter()
            .filter(|((g, _), _)| group.is_none_or(|want| want == g))
            .flat_map(|(_, list)| list.iter())
            .find(|r| {
                r.plural == plural
                    || r.kind.eq_ignore_ascii_case(plural)
                    || r.short_names.iter().any(|s| s == plural)
            })
            .cloned()
    }

    /// Whether `group/version` is served.
    pub(crate) fn has_group_version(&self, group: &str, version: &str) -> bool {
        self.by_group_version.read().contains_key(&(group.to_string(), version.to_string()))
    }

    /// Resources of one group version.
    pub(crate) fn resources(&self, group: &str, version: &str) -> Vec<Arc<ResourceInfo>> {
        self.by_group_version
            .read()
            .get(&(group.to_string(), version.to_string()))
            .cloned()
            .unwrap_or_default()
    }

    /// Non-core groups with their versions, in name order.
    pub(crate) fn groups(&self) -> Vec<(String, Vec<String>)> {
        let map = self.by_group_version.read();
        let mut groups: Vec<(String, Vec<String>)> = Vec::new();
        for (g, v) in map.keys() {
            if g.is_empty() {
                continue;
            }
            match groups.last_mut() {
                Some((last, versions)) if last == g => versions.push(v.clone()),
                _ => groups.push((g.clone(), vec![v.clone()])),
            }
        }
        groups
    }
}

/// Builds resource infos for every served version of a CRD object.
pub(crate) fn from_crd(crd: &Value) -> Option<Vec<ResourceInfo>> {
    let spec = crd.get("spec")?;
    let group = spec.get("group")?.as_str()?.to_string();
    let names = spec.get("names")?;
    let kind = names.get("kind")?.as_str()?.to_string();
    let plural = names.get("plural")?.as_str()?.to_string();
    let singular = names
        .get("singular")
        .and_then(Value::as_str)
        .map_or_else(|| kind.to_ascii_lowercase(), str::to_string);
    let list_kind = names
        .get("listKind")
        .and_then(Value::as_str)
        .map_or_else(|| format!("{kind}List"), str::to_string);
    let short_names: Vec<String> = names
        .get("shortNames")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    let scope = match spec.get("scope").and_then(Value::as_str) {
        Some("Cluster") => Scope::Cluster,
        _ => Scope::Namespaced,
    };
    let versions = spec.get("versions")?.as_array()?;
    let infos = versions
        .iter()
        .filter(|v| v.get("served").and_then(Value::as_bool).unwrap_or(true))
        .filter_map(|v| {
            Some(ResourceInfo {
                group: group.clone(),
                version: v.get("name")?.as_str()?.to_string(),
                kind: kind.clone(),
                plural: plural.clone(),
                singular: singular.clone(),
                scope,
                verbs: ALL_VERBS.iter().map(|v| v.to_string()).collect(),
                list_kind: list_kind.clone(),
                short_names: short_names.clone(),
                has_status: v.pointer("/subresources/status").is_some(),
            })
        })
        .collect();
    Some(infos)
}

/// Builds a resource info from a kube [`ApiResource`].
pub(crate) fn from_api_resource(ar: &ApiResource, scope: Scope) -> ResourceInfo {
    ResourceInfo {
        group: ar.group.clone(),
        version: ar.version.clone(),
        kind: ar.kind.clone(),
        plural: ar.plural.clone(),
        singular: ar.kind.to_ascii_lowercase(),
        scope,
        verbs: ALL_VERBS.iter().map(|v| v.to_string()).collect(),
        list_kind: format!("{}List", ar.kind),
        short_names: Vec::new(),
        has_status: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_by_plural_group_kind_and_short_name() {
        let r = Registry::with_built_ins();
        assert_eq!(r.find("pods").map(|i| i.kind.clone()), Some("Pod".into()));
        assert_eq!(r.find("deploy").map(|i| i.group.clone()), Some("apps".into()));
        assert_eq!(
            r.find("deployments.apps").map(|i| i.plural.clone()),
            Some("deployments".into())
        );
        assert!(r.find("deployments.batch").is_none());
        assert_eq!(r.find("crd").map(|i| i.scope), Some(Scope::Cluster));
    }

    #[test]
    fn crd_registration_round_trip() {
        let r = Registry::with_built_ins();
        let crd = json!({"spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"kind": "Foo", "plural": "foos"},
            "versions": [{"name": "v1", "served": true, "storage": true}, {"name": "v2", "served": false}]}});
        for info in from_crd(&crd).expect("valid crd") {
            r.register(info);
        }
        assert!(r.get("example.com", "v1", "foos").is_some());
        assert!(r.get("example.com", "v2", "foos").is_none());
        assert!(r.unregister("example.com", "foos"));
        assert!(!r.has_group_version("example.com", "v1"));
    }
}
