use futures::StreamExt;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::api::{ListParams, WatchEvent, WatchParams};
use kube::{Api, ResourceExt};
use kube_informers_testkit::{SeedKind, seed};
use serde_json::json;

use crate::server_with_cms;

#[test]
fn generated_pod_deserializes_into_k8s_openapi_pod() {
    let value = seed::pod("default", "p-1", 1);
    let size = serde_json::to_vec(&value).expect("json").len();
    assert!((10_000..=12_500).contains(&size), "pod is {size} bytes");
    let pod: Pod = serde_json::from_value(value).expect("a valid Pod");
    let spec = pod.spec.expect("spec");
    assert_eq!(spec.containers.len(), 2);
    assert!(spec.containers[0].liveness_probe.is_some());
    assert!(spec.volumes.unwrap_or_default().iter().any(|v| v.projected.is_some()));
    assert_eq!(spec.tolerations.map(|t| t.len()), Some(2));
    let status = pod.status.expect("status");
    assert_eq!(status.phase.as_deref(), Some("Running"));
    assert_eq!(status.container_statuses.map(|c| c.len()), Some(2));
    assert_eq!(pod.metadata.managed_fields.map(|m| m.len()), Some(2));
    assert_eq!(
        pod.metadata.owner_references.map(|o| o[0].kind.clone()).as_deref(),
        Some("ReplicaSet")
    );

    let _: Deployment =
        serde_json::from_value(seed::deployment("default", "d", 1)).expect("a valid Deployment");
    let _: ConfigMap =
        serde_json::from_value(seed::config_map("default", "c", 1)).expect("a valid ConfigMap");
}

#[tokio::test]
async fn seeded_objects_are_served_typed_and_unique() {
    let (server, _) = server_with_cms().await;
    let client = server.client().expect("client");
    let first = server.seed().objects(SeedKind::Pods, "default", 100).expect("seed");
    let second = server.seed().pods("default", 50).expect("seed again");
    assert_eq!(first.names, Some(("pod-0".into(), "pod-99".into())));
    assert_eq!(second.names, Some(("pod-100".into(), "pod-149".into())));
    assert_eq!(server.resource_version(), second.resource_version);
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let list = pods.list(&ListParams::default()).await.expect("typed list");
    assert_eq!(list.items.len(), 150);
    let uids: std::collections::BTreeSet<_> =
        list.items.iter().filter_map(|p| p.metadata.uid.clone()).collect();
    assert_eq!(uids.len(), 150);
    let app3 = pods
        .list(&ListParams::default().labels("app=app-3"))
        .await
        .expect("selector on seeded labels");
    assert_eq!(app3.items.len(), 15);

    server.seed().deployments("default", 5).expect("deployments");
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    assert_eq!(deployments.list(&ListParams::default()).await.expect("list").items.len(), 5);
    server.seed().config_maps("kube-system", 7).expect("configmaps");
    assert_eq!(server.object_count("configmaps"), 7);
    server.shutdown().await;
}

#[tokio::test]
async fn seeding_notifies_open_watches_and_values_seed_any_resource() {
    let (server, api) = server_with_cms().await;
    let mut stream =
        api.watch(&WatchParams::default().disable_bookmarks(), "0").await.expect("watch").boxed();
    server.seed().config_maps("default", 3).expect("seed");
    let mut names = Vec::new();
    while names.len() < 3 {
        match stream.next().await.expect("open").expect("event") {
            WatchEvent::Added(cm) => names.push(cm.name_any()),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(names, ["config-0", "config-1", "config-2"]);

    let report = server
        .seed()
        .values(
            "configmaps",
            (0..4).map(
                |i| json!({"metadata": {"name": format!("custom-{i}"), "namespace": "other"}}),
            ),
        )
        .expect("values");
    assert_eq!(report.count, 4);
    let other: Api<ConfigMap> = Api::namespaced(server.client().expect("client"), "other");
    let stored = other.get("custom-3").await.expect("get");
    assert!(stored.metadata.uid.is_some() && stored.metadata.resource_version.is_some());
    assert!(
        server
            .seed()
            .values("configmaps", [json!({"metadata": {"name": "custom-0", "namespace": "other"}})])
            .is_err()
    );
    server.shutdown().await;
}
