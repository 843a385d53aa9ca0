//! `RealApiServer`: the upstream etcd + kube-apiserver as child processes, as envtest starts
//! them (controller-runtime pkg/envtest: TestEnvironment Start/Stop).

use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, ListParams, PostParams};
use kube_informers_testkit::real::{RealApiServer, UNPRIVILEGED_USER};

fn config_map(name: &str) -> ConfigMap {
    let mut cm = ConfigMap::default();
    cm.metadata.name = Some(name.into());
    cm.data = Some([("k".to_string(), "v".to_string())].into());
    cm
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_server_serves_an_admin_and_denies_an_unprivileged_user() {
    let server = RealApiServer::start().await.unwrap();
    let admin = server.client();
    let version = admin.apiserver_version().await.unwrap();
    assert_eq!(version.minor, "36", "{version:?}");
    let default: Namespace = Api::all(admin.clone()).get("default").await.unwrap();
    assert_eq!(default.metadata.name.as_deref(), Some("default"));

    let cms = Api::<ConfigMap>::namespaced(admin.clone(), "default");
    let created = cms.create(&PostParams::default(), &config_map("a")).await.unwrap();
    assert!(created.metadata.resource_version.is_some());

    let denied = Api::<ConfigMap>::namespaced(server.unprivileged_client(), "default")
        .list(&ListParams::default())
        .await
        .unwrap_err();
    match denied {
        kube::Error::Api(status) => {
            assert_eq!(status.code, 403);
            assert!(status.message.contains(UNPRIVILEGED_USER), "{}", status.message);
        }
        other => panic!("expected 403, got {other:?}"),
    }

    // The kubeconfig names both users, for tools that need a file.
    let kubeconfig = std::fs::read_to_string(server.kubeconfig()).unwrap();
    assert!(kubeconfig.contains("current-context: admin"));
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_apiserver_restarts_over_the_same_etcd_and_compaction_expires_old_versions() {
    let server = RealApiServer::start().await.unwrap();
    let cms = Api::<ConfigMap>::namespaced(server.client(), "default");
    let first = cms.create(&PostParams::default(), &config_map("before")).await.unwrap();
    let old_rv = first.metadata.resource_version.clone().unwrap();
    cms.create(&PostParams::default(), &config_map("later")).await.unwrap();

    server.kill_apiserver().await;
    assert!(cms.get("before").await.is_err(), "a killed apiserver answers nothing");
    server.start_apiserver().await.unwrap();
    let kept = cms.get("before").await.unwrap();
    assert_eq!(kept.metadata.resource_version.as_deref(), Some(old_rv.as_str()));

    let revision = server.compact_etcd().await.unwrap();
    assert!(revision > old_rv.parse::<i64>().unwrap());
    // An exact read of a compacted revision comes from etcd and is gone.
    let params = ListParams::default().at(&old_rv).matching(kube::api::VersionMatch::Exact);
    match cms.list(&params).await.unwrap_err() {
        kube::Error::Api(status) => assert_eq!(status.code, 410, "{status:?}"),
        other => panic!("expected 410, got {other:?}"),
    }
    server.shutdown().await;
}

/// An informer's first list (`resourceVersion="0"`) is answered from the watch cache as it
/// stands; after `wait_for_watch_cache` it holds every write up to the version waited for,
/// even for a resource whose cache was created a moment ago.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_server_watch_cache_wait_makes_the_next_zero_version_list_current() {
    let server = RealApiServer::start().await.unwrap();
    let crd = serde_json::json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "gizmos.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"kind": "Gizmo", "plural": "gizmos", "singular": "gizmo", "listKind": "GizmoList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}],
        },
    });
    server.register_crd(&crd).await.unwrap();
    let resource = ApiResource::from_gvk(&GroupVersionKind::gvk("example.com", "v1", "Gizmo"));
    let gizmos = Api::<DynamicObject>::namespaced_with(server.client(), "default", &resource);
    for i in 0..10 {
        let name = format!("gizmo-{i}");
        let created = gizmos
            .create(&PostParams::default(), &DynamicObject::new(&name, &resource))
            .await
            .unwrap();
        let rv: u64 = created.metadata.resource_version.unwrap().parse().unwrap();
        server.wait_for_watch_cache(gizmos.resource_url(), rv).await.unwrap();
        let listed = gizmos.list(&ListParams::default().match_any()).await.unwrap();
        let listed_rv: u64 = listed.metadata.resource_version.unwrap().parse().unwrap();
        assert!(listed_rv >= rv, "a resourceVersion=0 list at {listed_rv} after waiting for {rv}");
        assert_eq!(listed.items.len(), i + 1, "{name} and every earlier gizmo are listed");
    }

    // A collection that does not exist is an error at once, not 30 s of retries.
    let started = std::time::Instant::now();
    let missing = server.wait_for_watch_cache("/apis/example.com/v1/nothings", 1).await;
    assert!(missing.is_err());
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
    server.shutdown().await;
}
