use super::*;
use crate::gate::Condition;
use crate::model::Model;

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
        resource("networking.k8s.io", "networking", "v1", "NetworkPolicy", "networkpolicies", ALL),
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
    let err = Plan::new(&model(vec![resource("", "core", "v1", "Endpoints", "endpointses", ALL)]))
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
    assert!(matches!(err, Error::GroupCollision { ref name, .. } if name == "storage"), "{err}");
}

#[test]
fn paths_must_end_in_group_version_kind() {
    let mut odd = resource("apps", "apps", "v1", "Deployment", "deployments", ALL);
    odd.rust_path = vec!["Deployment".into()];
    let err = Plan::new(&model(vec![odd])).unwrap_err();
    assert!(matches!(err, Error::UnexpectedPath { .. }), "{err}");
}
