//! The generated typed informers sync from the test API server and their listers answer,
//! for a namespaced and a cluster-scoped resource of each major group (client-go:
//! informers/<group>/<version>/<kind>.go + listers/<group>/<version>/<kind>.go).

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{Node, Pod};
use k8s_openapi::api::networking::v1::NetworkPolicy;
use k8s_openapi::api::rbac::v1::ClusterRole;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PostParams};
use kube::core::{ObjectMeta, Resource};
use kube_informers::{
    GroupVersionResource, InformerScope, Selector, SharedInformerFactory, labels,
};
use kube_informers_testkit::SeedKind;
use kube_informers_tests::on_both_servers;
use serde_json::json;

fn meta(name: &str, namespace: Option<&str>) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.into()),
        namespace: namespace.map(Into::into),
        labels: Some([("team".to_string(), "a".to_string())].into()),
        ..ObjectMeta::default()
    }
}

/// Creates `obj` and returns its collection's URL with the resourceVersion it was given.
async fn create<K>(client: &kube::Client, obj: K) -> (String, String)
where
    K: Resource<DynamicType = ()>
        + Clone
        + serde::Serialize
        + serde::de::DeserializeOwned
        + std::fmt::Debug,
    K::Scope: InformerScope,
{
    let api: Api<K> = K::Scope::api(client.clone(), obj.meta().namespace.as_deref());
    let created = api.create(&PostParams::default(), &obj).await.unwrap();
    (api.resource_url().to_owned(), created.meta().resource_version.clone().unwrap())
}

/// A Job the real apiserver accepts (a template with a container and a restart policy).
fn job(name: &str) -> Job {
    let mut job: Job = serde_json::from_value(json!({
        "spec": {"template": {"spec": {
            "restartPolicy": "Never",
            "containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10"}],
        }}},
    }))
    .unwrap();
    job.metadata = meta(name, Some("prod"));
    job
}

on_both_servers! {
async fn seven_generated_informers_sync_and_list(server) {
    let client = server.client().unwrap();
    server.seed(SeedKind::Pods, "prod", 30).await.unwrap();
    server.seed(SeedKind::Deployments, "prod", 5).await.unwrap();
    let mut created = vec![
        create(&client, Node { metadata: meta("node-1", None), ..Node::default() }).await,
        create(&client, job("backup")).await,
        create(&client, ClusterRole { metadata: meta("reader", None), ..ClusterRole::default() })
            .await,
    ];
    let mut deny_all: NetworkPolicy =
        serde_json::from_value(json!({"spec": {"podSelector": {}}})).unwrap();
    deny_all.metadata = meta("deny-all", Some("prod"));
    created.push(create(&client, deny_all).await);
    let crd: CustomResourceDefinition = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true,
                          "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]
        }
    }))
    .unwrap();
    created.push(create(&client, crd).await);
    // Each resource's watch cache must hold the last write before the initial lists.
    let last = created.last().unwrap().1.clone();
    for (url, _) in &created {
        server.wait_for_watch_cache(url, &last).await.expect("watch cache");
    }

    let factory = SharedInformerFactory::new(client.clone(), Duration::ZERO);
    let pods = factory.core().v1().pods();
    let nodes = factory.core().v1().nodes();
    let deployments = factory.apps().v1().deployments();
    let jobs = factory.batch().v1().jobs();
    let cluster_roles = factory.rbac().v1().cluster_roles();
    let network_policies = factory.networking().v1().network_policies();
    let crds = factory.apiextensions().v1().custom_resource_definitions();
    for informer in [
        pods.informer().get_indexer().len(),
        nodes.informer().get_indexer().len(),
        deployments.informer().get_indexer().len(),
        jobs.informer().get_indexer().len(),
        cluster_roles.informer().get_indexer().len(),
        network_policies.informer().get_indexer().len(),
        crds.informer().get_indexer().len(),
    ] {
        assert_eq!(informer, 0, "nothing is cached before start");
    }
    factory.start();
    let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(60)).await;
    assert_eq!(synced.len(), 7);
    assert!(synced.values().all(|ok| *ok), "{synced:?}");
    assert!(synced.contains_key(&GroupVersionResource::gvr(
        "networking.k8s.io",
        "v1",
        "networkpolicies"
    )));

    let everything = Selector::default();
    let team_a = labels::parse("team=a").unwrap();
    assert_eq!(pods.lister().list(&everything).len(), 30);
    assert_eq!(pods.lister().pods("prod").list(&everything).len(), 30);
    assert!(pods.lister().pods("prod").get("pod-0").is_some());
    assert!(pods.lister().pods("dev").get("pod-0").is_none());
    assert_eq!(deployments.lister().deployments("prod").list(&everything).len(), 5);
    assert_eq!(nodes.lister().get("node-1").unwrap().metadata.name.as_deref(), Some("node-1"));
    assert_eq!(nodes.lister().list(&team_a).len(), 1);
    assert!(jobs.lister().jobs("prod").get("backup").is_some());
    assert!(cluster_roles.lister().get("reader").is_some());
    assert_eq!(network_policies.lister().network_policies("prod").list(&team_a).len(), 1);
    assert_eq!(crds.lister().get("widgets.example.com").unwrap().spec.names.kind, "Widget");

    // for_resource hands out the same shared informer as the typed accessor.
    let erased = factory.for_resource(&GroupVersionResource::gvr("", "v1", "pods")).unwrap();
    let typed = erased.downcast::<Pod>().expect("a Pod informer");
    assert_eq!(typed.get_indexer().len(), 30);
    assert!(erased.downcast::<Deployment>().is_none());
    let unknown = factory.for_resource(&GroupVersionResource::gvr("example.com", "v1", "gadgets"));
    assert!(unknown.unwrap_err().to_string().contains("gadgets"));
    factory.shutdown().await;
    server.shutdown().await;
}
}
