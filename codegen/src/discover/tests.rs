use std::path::Path;

use super::*;
use crate::model::Scope;

const DEPLOYMENT: &str = r#"
    pub struct Deployment {}
    impl crate::Resource for Deployment {
        const API_VERSION: &'static str = "apps/v1";
        const GROUP: &'static str = "apps";
        const KIND: &'static str = "Deployment";
        const VERSION: &'static str = "v1";
        const URL_PATH_SEGMENT: &'static str = "deployments";
        type Scope = crate::NamespaceResourceScope;
    }
    impl crate::ListableResource for Deployment {
        const LIST_KIND: &'static str = "DeploymentList";
    }
"#;

const SCALE: &str = r#"
    impl crate::Resource for Scale {
        const API_VERSION: &'static str = "autoscaling/v1";
        const GROUP: &'static str = "autoscaling";
        const KIND: &'static str = "Scale";
        const VERSION: &'static str = "v1";
        const URL_PATH_SEGMENT: &'static str = "scale";
        type Scope = crate::SubResourceScope;
    }
"#;

const BINDING: &str = r#"
    impl crate::Resource for Binding {
        const API_VERSION: &'static str = "v1";
        const GROUP: &'static str = "";
        const KIND: &'static str = "Binding";
        const VERSION: &'static str = "v1";
        const URL_PATH_SEGMENT: &'static str = "bindings";
        type Scope = crate::NamespaceResourceScope;
    }
"#;

const LIST: &str = r#"
    impl<T> crate::Resource for List<T> where T: crate::ListableResource {
        const API_VERSION: &'static str = <T as crate::Resource>::API_VERSION;
        type Scope = <T as crate::Resource>::Scope;
    }
    impl<T> crate::ListableResource for List<T> { const LIST_KIND: &'static str = ""; }
"#;

fn parse(source: &str, module: &[&str]) -> Result<Vec<FoundResource>> {
    let impls = trait_impls(source).unwrap();
    let module: Vec<String> = module.iter().map(|s| s.to_string()).collect();
    resources_in_impls(&impls, &module, Path::new("test.rs"))
}

#[test]
fn finds_resource_and_listable_types() {
    let found = parse(DEPLOYMENT, &["api", "apps", "v1"]).unwrap();
    assert_eq!(
        found,
        [FoundResource {
            group: "apps".into(),
            version: "v1".into(),
            kind: "Deployment".into(),
            plural: "deployments".into(),
            scope: Scope::Namespaced,
            rust_path: vec!["api".into(), "apps".into(), "v1".into(), "Deployment".into()],
        }]
    );
}

#[test]
fn skips_unlistable_generic_and_subresource_types() {
    assert_eq!(parse(BINDING, &["api", "core", "v1"]).unwrap(), []);
    assert_eq!(parse(SCALE, &["api", "autoscaling", "v1"]).unwrap(), []);
    assert_eq!(parse(LIST, &[]).unwrap(), []);
}

#[test]
fn rejects_an_api_version_that_is_not_group_slash_version() {
    let broken = DEPLOYMENT.replace(r#""apps/v1""#, r#""apps/v2""#);
    let err = parse(&broken, &["api", "apps", "v1"]).unwrap_err();
    assert!(matches!(err, Error::MalformedResource { .. }), "{err}");
}

#[test]
fn reads_the_k8s_openapi_source_dir_from_cargo_metadata() {
    let metadata = serde_json::json!({"packages": [
        {"name": "k8s-openapi", "version": "0.28.1", "manifest_path": "/reg/k8s-openapi-0.28.1/Cargo.toml"},
        {"name": "kube", "version": "5.0.0", "manifest_path": "/reg/kube-5.0.0/Cargo.toml"},
        {"name": "k8s-openapi", "version": "0.29.0", "manifest_path": "/reg/k8s-openapi-0.29.0/Cargo.toml"},
    ]});
    assert_eq!(k8s_openapi_src(&metadata).unwrap(), Path::new("/reg/k8s-openapi-0.29.0/src"));
    let without = serde_json::json!({"packages": [{"name": "kube", "version": "5.0.0"}]});
    assert!(matches!(k8s_openapi_src(&without), Err(Error::K8sOpenapiNotLocked)));
}

fn write(root: &Path, relative: &str, contents: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

#[test]
fn merges_versions_into_version_sets() {
    let src = tempfile::tempdir().unwrap();
    write(src.path(), "lib.rs", "");
    write(src.path(), "v1_33/api/apps/v1/deployment.rs", DEPLOYMENT);
    write(src.path(), "v1_34/api/apps/v1/deployment.rs", DEPLOYMENT);
    write(src.path(), "v1_34/api/core/v1/binding.rs", BINDING);
    write(src.path(), "v1_35/api/core/v1/mod.rs", "");
    let model = discover(src.path()).unwrap();
    let all: Vec<u32> = model.kube_versions.iter().map(|v| v.minor).collect();
    assert_eq!(all, [33, 34, 35]);
    assert_eq!(model.resources.len(), 1);
    let deployment = &model.resources[0];
    assert_eq!(deployment.rust_path_string(), "k8s_openapi::api::apps::v1::Deployment");
    let present: Vec<u32> = deployment.kube_versions.iter().map(|v| v.minor).collect();
    assert_eq!(present, [33, 34]);
}

#[test]
fn a_resource_that_changes_between_versions_is_an_error() {
    let src = tempfile::tempdir().unwrap();
    write(src.path(), "v1_33/api/apps/v1/deployment.rs", DEPLOYMENT);
    let cluster_scoped = DEPLOYMENT.replace("NamespaceResourceScope", "ClusterResourceScope");
    write(src.path(), "v1_34/api/apps/v1/deployment.rs", &cluster_scoped);
    let err = discover(src.path()).unwrap_err();
    assert!(matches!(err, Error::Inconsistent { what: "scope", .. }), "{err}");
}

#[test]
fn a_directory_without_versions_is_an_error() {
    let src = tempfile::tempdir().unwrap();
    write(src.path(), "lib.rs", "");
    assert!(matches!(discover(src.path()), Err(Error::NoVersions(_))));
}
