//! Names of generated items, following client-go's informer-gen namer converted to snake case
//! with heck.
//!
//! informer-gen pluralizes the kind with gengo's `pluralNamer` (with the exception
//! `Endpoints` -> `Endpoints`) and uses the first DNS label of the group as the group's name.
//! Pluralizing the snake-cased kind rather than the kind itself keeps acronyms whole:
//! `ServiceCIDR` -> `service_cidrs`, where `ServiceCIDRs` would snake-case to `service_cid_rs`.
//! The docs name client-go's own accessor too, which informer-gen derives from the Go type
//! name: [`client_go_resource_accessor`] pluralizes the kind itself, so it keeps Kubernetes'
//! acronyms upper case (`ServiceCIDRs()`, not `ServiceCidrs()`).

use heck::ToSnakeCase;

/// Kinds whose plural informer-gen does not derive by rule (code-generator's
/// `pluralExceptions`): the kind is already plural.
const PLURAL_EXCEPTIONS: &[&str] = &["Endpoints"];

/// The accessor of an API group: `""` -> `core`, else the first DNS label of the group
/// (`rbac.authorization.k8s.io` -> `rbac`, `internal.apiserver.k8s.io` -> `internal`).
pub fn group_accessor(group: &str) -> String {
    if group.is_empty() {
        return "core".to_owned();
    }
    let first_label = group.split('.').next().unwrap_or(group);
    first_label.to_snake_case()
}

/// The accessor of an API version: `v1beta1` -> `v1beta1`.
pub fn version_accessor(version: &str) -> String {
    version.to_snake_case().replace('_', "")
}

/// The snake-case form of a kind, used for its file and module: `CSIDriver` -> `csi_driver`.
pub fn kind_snake(kind: &str) -> String {
    kind.to_snake_case()
}

/// The resource accessor: the snake-case plural of the kind per informer-gen's pluralizer
/// (`NetworkPolicy` -> `network_policies`, `Endpoints` -> `endpoints`,
/// `ComponentStatus` -> `component_statuses`).
pub fn resource_accessor(kind: &str) -> String {
    let snake = kind_snake(kind);
    if PLURAL_EXCEPTIONS.contains(&kind) {
        return snake;
    }
    pluralize(&snake)
}

/// The resource accessor client-go's informer-gen generates: the plural of the Go type
/// name, which is the kind (`CSIDriver` -> `CSIDrivers`, `ServiceCIDR` -> `ServiceCIDRs`,
/// `Endpoints` -> `Endpoints`). Upper-camel-casing [`resource_accessor`] instead would lose
/// the acronyms (`CsiDrivers`), naming a method client-go does not have.
pub fn client_go_resource_accessor(kind: &str) -> String {
    if PLURAL_EXCEPTIONS.contains(&kind) {
        return kind.to_owned();
    }
    pluralize(kind)
}

/// gengo's `pluralNamer` rules. They are case-sensitive, as gengo's are: a Go type name
/// ending in an acronym (`ServiceCIDR`) just takes an `s`.
pub fn pluralize(singular: &str) -> String {
    let chars: Vec<char> = singular.chars().collect();
    let [.., before_last, last] = chars.as_slice() else {
        return singular.to_owned();
    };
    let stem = || chars[..chars.len() - 1].iter().collect::<String>();
    match last {
        's' | 'x' | 'z' => format!("{singular}es"),
        'y' if is_consonant(*before_last) => format!("{}ies", stem()),
        'h' if matches!(before_last, 'c' | 's') => format!("{singular}es"),
        'e' if *before_last == 'f' => {
            let without_fe: String = chars[..chars.len() - 2].iter().collect();
            format!("{without_fe}ves")
        }
        'f' => format!("{}ves", stem()),
        _ => format!("{singular}s"),
    }
}

/// gengo's `isConsonant`: anything but a lowercase vowel.
fn is_consonant(c: char) -> bool {
    !matches!(c, 'a' | 'e' | 'i' | 'o' | 'u')
}

/// Whether a resource accessor spells the server's plural (`URL_PATH_SEGMENT`): equal once
/// underscores are removed (`network_policies` ~ `networkpolicies`).
pub fn accessor_matches_plural(accessor: &str, plural: &str) -> bool {
    accessor.replace('_', "") == plural
}

/// Whether `name` can be used as a plain Rust identifier (not a keyword, not `r#`-escaped).
pub fn is_plain_ident(name: &str) -> bool {
    syn::parse_str::<syn::Ident>(name).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_accessor_is_the_first_dns_label() {
        // client-go: informers/factory.go exposes Core(), Apps(), Rbac(), Flowcontrol(), Internal()...
        assert_eq!(group_accessor(""), "core");
        assert_eq!(group_accessor("apps"), "apps");
        assert_eq!(group_accessor("rbac.authorization.k8s.io"), "rbac");
        assert_eq!(group_accessor("flowcontrol.apiserver.k8s.io"), "flowcontrol");
        assert_eq!(group_accessor("internal.apiserver.k8s.io"), "internal");
        assert_eq!(group_accessor("admissionregistration.k8s.io"), "admissionregistration");
        assert_eq!(group_accessor("apiextensions.k8s.io"), "apiextensions");
    }

    #[test]
    fn version_accessor_keeps_the_version() {
        assert_eq!(version_accessor("v1"), "v1");
        assert_eq!(version_accessor("v1beta1"), "v1beta1");
        assert_eq!(version_accessor("v1alpha3"), "v1alpha3");
        assert_eq!(version_accessor("v2"), "v2");
    }

    #[test]
    fn resource_accessor_follows_the_informer_gen_pluralizer() {
        // client-go: informers/core/v1/interface.go Endpoints(), ComponentStatuses(), ...
        let cases = [
            ("Endpoints", "endpoints"),
            ("ComponentStatus", "component_statuses"),
            ("NetworkPolicy", "network_policies"),
            ("IngressClass", "ingress_classes"),
            ("Ingress", "ingresses"),
            ("EndpointSlice", "endpoint_slices"),
            ("StorageClass", "storage_classes"),
            ("CSIDriver", "csi_drivers"),
            ("CSIStorageCapacity", "csi_storage_capacities"),
            ("IPAddress", "ip_addresses"),
            ("ServiceCIDR", "service_cidrs"),
            ("APIService", "api_services"),
            ("ReplicaSet", "replica_sets"),
            ("Deployment", "deployments"),
            ("Gateway", "gateways"),
            ("Mesh", "meshes"),
            ("Batch", "batches"),
            ("Box", "boxes"),
            ("Leaf", "leaves"),
            ("Knife", "knives"),
            ("Quiz", "quizes"),
            ("Graph", "graphs"),
        ];
        for (kind, accessor) in cases {
            assert_eq!(resource_accessor(kind), accessor, "kind {kind}");
        }
    }

    #[test]
    fn client_go_accessor_keeps_the_go_acronyms() {
        // client-go: informers/storage/v1/interface.go CSIDrivers(), CSINodes(),
        // CSIStorageCapacities(); networking/v1 IPAddresses(), ServiceCIDRs(); the
        // aggregator's apiregistration/v1 APIServices().
        let cases = [
            ("CSIDriver", "CSIDrivers"),
            ("CSINode", "CSINodes"),
            ("CSIStorageCapacity", "CSIStorageCapacities"),
            ("IPAddress", "IPAddresses"),
            ("ServiceCIDR", "ServiceCIDRs"),
            ("APIService", "APIServices"),
            ("CustomResourceDefinition", "CustomResourceDefinitions"),
            ("MutatingWebhookConfiguration", "MutatingWebhookConfigurations"),
            ("PodCertificateRequest", "PodCertificateRequests"),
            ("Deployment", "Deployments"),
            ("Ingress", "Ingresses"),
            ("NetworkPolicy", "NetworkPolicies"),
            ("Endpoints", "Endpoints"),
        ];
        for (kind, accessor) in cases {
            assert_eq!(client_go_resource_accessor(kind), accessor, "kind {kind}");
        }
    }

    #[test]
    fn short_words_are_left_alone() {
        assert_eq!(pluralize("a"), "a");
        assert_eq!(pluralize(""), "");
    }

    #[test]
    fn kind_snake_keeps_acronyms_together() {
        assert_eq!(kind_snake("CSIDriver"), "csi_driver");
        assert_eq!(kind_snake("APIService"), "api_service");
        assert_eq!(kind_snake("HorizontalPodAutoscaler"), "horizontal_pod_autoscaler");
        assert_eq!(kind_snake("ServiceCIDR"), "service_cidr");
    }

    #[test]
    fn accessor_is_checked_against_the_url_plural() {
        assert!(accessor_matches_plural("network_policies", "networkpolicies"));
        assert!(accessor_matches_plural("endpoints", "endpoints"));
        assert!(!accessor_matches_plural("endpointses", "endpoints"));
    }

    #[test]
    fn keywords_are_not_plain_identifiers() {
        assert!(is_plain_ident("deployments"));
        assert!(!is_plain_ident("type"));
        assert!(!is_plain_ident("mod"));
    }
}
