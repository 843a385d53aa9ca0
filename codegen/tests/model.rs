//! Discovery and planning over the k8s-openapi sources the workspace locks.

mod common;

use codegen::model::Scope;
use codegen::plan::Plan;
use common::{find, minors, real_model};

#[test]
fn discovers_every_kubernetes_version_module() {
    let model = real_model();
    assert_eq!(minors(&model.kube_versions), [33, 34, 35, 36, 37]);
}

#[test]
fn counts_listable_and_watchable_resources_per_version() {
    let model = real_model();
    let plan = Plan::new(&model).unwrap();
    let latest = model.latest().unwrap();
    let earliest = model.earliest().unwrap();
    assert_eq!(model.resources_in(latest).count(), 93, "listable in 1.37");
    assert_eq!(model.resources_in(earliest).count(), 81, "listable in 1.33");
    let watchable_in = |version| {
        plan.resources().filter(|(_, _, r)| r.resource.kube_versions.contains(&version)).count()
    };
    // Everything listable is watchable except ComponentStatus.
    assert_eq!(watchable_in(latest), 92, "informers in 1.37");
    assert_eq!(watchable_in(earliest), 80, "informers in 1.33");
    assert_eq!(model.resources.len(), 109, "listable in any version");
    assert_eq!(plan.resources().count(), 108, "informers in any version");
    let skipped: Vec<_> = plan.not_watchable.iter().map(|r| r.kind.as_str()).collect();
    assert_eq!(skipped, ["ComponentStatus"]);
}

#[test]
fn records_group_version_plural_scope_and_path() {
    let model = real_model();
    let deployment = find(&model, "apps", "v1", "Deployment");
    assert_eq!(deployment.plural, "deployments");
    assert_eq!(deployment.scope, Scope::Namespaced);
    assert_eq!(deployment.rust_path_string(), "k8s_openapi::api::apps::v1::Deployment");
    assert_eq!(minors(&deployment.kube_versions), [33, 34, 35, 36, 37]);

    let node = find(&model, "", "v1", "Node");
    assert_eq!(node.scope, Scope::Cluster);
    assert_eq!(node.api_version(), "v1");

    let crd = find(&model, "apiextensions.k8s.io", "v1", "CustomResourceDefinition");
    assert_eq!(
        crd.rust_path_string(),
        "k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition"
    );
    let api_service = find(&model, "apiregistration.k8s.io", "v1", "APIService");
    assert_eq!(api_service.plural, "apiservices");
}

#[test]
fn records_the_kubernetes_versions_each_resource_exists_in() {
    let model = real_model();
    // Graduated in 1.34: resource.k8s.io/v1 DeviceClass; new in 1.37: lifecycle.k8s.io.
    assert_eq!(
        minors(&find(&model, "resource.k8s.io", "v1", "DeviceClass").kube_versions),
        [34, 35, 36, 37]
    );
    assert_eq!(
        minors(&find(&model, "lifecycle.k8s.io", "v1alpha1", "Eviction").kube_versions),
        [37]
    );
    assert_eq!(
        minors(
            &find(&model, "storagemigration.k8s.io", "v1alpha1", "StorageVersionMigration")
                .kube_versions
        ),
        [33, 34]
    );
    assert_eq!(
        minors(&find(&model, "scheduling.k8s.io", "v1alpha1", "Workload").kube_versions),
        [35]
    );
}

#[test]
fn names_follow_client_go_for_every_real_resource() {
    let plan = Plan::new(&real_model()).unwrap();
    let names: Vec<String> = plan
        .resources()
        .map(|(g, v, r)| format!("{}().{}().{}()", g.accessor, v.accessor, r.accessor))
        .collect();
    for expected in [
        "core().v1().endpoints()",
        "core().v1().pods()",
        "core().v1().nodes()",
        "apps().v1().replica_sets()",
        "batch().v1().jobs()",
        "rbac().v1().cluster_roles()",
        "networking().v1().network_policies()",
        "networking().v1().ingress_classes()",
        "networking().v1().ip_addresses()",
        "networking().v1().service_cidrs()",
        "discovery().v1().endpoint_slices()",
        "storage().v1().storage_classes()",
        "storage().v1().csi_drivers()",
        "storage().v1().csi_storage_capacities()",
        "apiextensions().v1().custom_resource_definitions()",
        "apiregistration().v1().api_services()",
        "internal().v1alpha1().storage_versions()",
        "flowcontrol().v1().priority_level_configurations()",
        "autoscaling().v2().horizontal_pod_autoscalers()",
    ] {
        assert!(names.contains(&expected.to_owned()), "missing {expected}");
    }
    assert!(
        !names.iter().any(|n| n.contains("component_statuses")),
        "ComponentStatus cannot be watched"
    );
    // Group modules are named like client-go's packages.
    let internal = plan.groups.iter().find(|g| g.accessor == "internal").unwrap();
    assert_eq!(internal.module, "apiserverinternal");
}
