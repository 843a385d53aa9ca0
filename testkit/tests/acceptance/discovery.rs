use k8s_openapi::api::core::v1::Namespace;
use kube::Api;
use kube::discovery::{Discovery, Scope};

use crate::server_with_cms;

#[tokio::test]
async fn kube_discovery_sees_built_in_groups() {
    let (server, _) = server_with_cms().await;
    let client = server.client().expect("client");
    let version = client.apiserver_version().await.expect("version");
    assert_eq!(version.major, "1");
    let discovery = Discovery::new(client.clone()).run().await.expect("discovery");
    for group in [
        "",
        "apps",
        "batch",
        "networking.k8s.io",
        "rbac.authorization.k8s.io",
        "coordination.k8s.io",
        "apiextensions.k8s.io",
    ] {
        assert!(discovery.has_group(group), "group {group:?} missing");
    }
    let core = discovery.get("").expect("core group");
    let (pods, caps) = core.recommended_kind("Pod").expect("pods");
    assert_eq!(pods.plural, "pods");
    assert_eq!(caps.scope, Scope::Namespaced);
    let (_, node_caps) = core.recommended_kind("Node").expect("nodes");
    assert_eq!(node_caps.scope, Scope::Cluster);
    let (_, cs_caps) = core.recommended_kind("ComponentStatus").expect("componentstatuses");
    assert!(!cs_caps.supports_operation("watch"));

    let namespaces: Api<Namespace> = Api::all(client);
    let names: Vec<String> = namespaces
        .list(&Default::default())
        .await
        .expect("list")
        .items
        .into_iter()
        .filter_map(|n| n.metadata.name)
        .collect();
    assert!(names.contains(&"default".to_string()) && names.contains(&"kube-system".to_string()));
    server.shutdown().await;
}

#[tokio::test]
async fn unknown_paths_are_not_found() {
    let (server, _) = server_with_cms().await;
    let client = server.client().expect("client");
    let request =
        http::Request::get("/apis/nope.example.com/v1/things").body(Vec::new()).expect("request");
    let err = client.request::<serde_json::Value>(request).await.expect_err("404");
    assert!(matches!(err, kube::Error::Api(ref s) if s.code == 404), "{err:?}");
    server.shutdown().await;
}
