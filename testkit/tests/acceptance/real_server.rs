//! `RealApiServer`: the upstream etcd + kube-apiserver as child processes, as envtest starts
//! them (controller-runtime pkg/envtest: TestEnvironment Start/Stop).

use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, ListParams, PostParams};
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
