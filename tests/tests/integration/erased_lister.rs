//! `ErasedInformer::lister`: code that knows a resource only by its GroupVersionResource
//! lists and gets a typed informer's objects as `DynamicObject`s (client-go's
//! `GenericInformer.Lister()`), for a built-in resource from `for_resource` and for a
//! derived CRD informer found among the factory's informers. The CRD's derive names
//! kube-informers through a renamed path (`#[informer(crate = "...")]`), as a user who
//! renamed the dependency would. On testkit.

// The types are public, as in a user's crate; the derives give their items the same visibility.
#![allow(unreachable_pub)]

use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ObjectMeta, PostParams};
use kube::{CustomResource, CustomResourceExt};
use kube_informers::{GroupVersionResource, Informer, Selector, SharedInformerFactory, labels};
use kube_informers_testkit::{Cluster, ServerKind};
use kube_informers_tests::{init_tracing, start_cluster};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// kube-informers under another name, which `Gadget`'s derive is told to use.
use ::kube_informers as renamed;

/// A namespaced custom resource whose derive reaches kube-informers through `renamed`.
#[derive(CustomResource, Informer, Deserialize, Serialize, Clone, Debug, JsonSchema)]
#[kube(group = "erased.example.com", version = "v1", kind = "Gadget", namespaced)]
#[informer(crate = "crate::erased_lister::renamed")]
pub struct GadgetSpec {
    /// How big.
    pub size: u32,
}

fn meta(namespace: &str, name: &str, app: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.into()),
        namespace: Some(namespace.into()),
        labels: Some([("app".to_string(), app.to_string())].into()),
        ..ObjectMeta::default()
    }
}

async fn testkit() -> Cluster {
    init_tracing();
    start_cluster(ServerKind::Testkit).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typed_informer_from_for_resource_lists_and_gets_dynamic_objects() {
    let server = testkit().await;
    let client = server.client().unwrap();
    for (namespace, name, app) in
        [("a", "web-1", "web"), ("a", "db-1", "db"), ("b", "web-2", "web")]
    {
        let config_map = ConfigMap {
            metadata: meta(namespace, name, app),
            data: Some([("owner".to_string(), name.to_string())].into()),
            ..ConfigMap::default()
        };
        let api = Api::<ConfigMap>::namespaced(client.clone(), namespace);
        api.create(&PostParams::default(), &config_map).await.unwrap();
    }

    let factory = SharedInformerFactory::new(client, Duration::ZERO);
    let gvr = GroupVersionResource::gvr("", "v1", "configmaps");
    let erased = factory.for_resource(&gvr).unwrap();
    factory.start();
    let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await;
    assert_eq!(synced.get(&gvr), Some(&true), "{synced:?}");

    let lister = erased.lister();
    assert_eq!(lister.gvr(), &gvr);
    let web = labels::parse("app=web").unwrap();
    let mut names: Vec<_> =
        lister.list(&web).iter().map(|obj| obj.metadata.name.clone().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["web-1", "web-2"]);

    let web_1 = lister.get("a/web-1").expect("a/web-1 is cached");
    let types = web_1.types.as_ref().expect("apiVersion and kind");
    assert_eq!((types.api_version.as_str(), types.kind.as_str()), ("v1", "ConfigMap"));
    assert_eq!(web_1.metadata.namespace.as_deref(), Some("a"));
    assert_eq!(web_1.data["data"], json!({ "owner": "web-1" }));
    assert!(lister.get("b/web-1").is_none());

    let in_a = lister.by_namespace("a");
    assert_eq!(in_a.namespace(), "a");
    assert_eq!(in_a.list(&Selector::default()).len(), 2);
    assert_eq!(in_a.list(&web).len(), 1);
    assert!(in_a.get("db-1").is_some());
    assert!(in_a.get("web-2").is_none());
    assert_eq!(lister.by_namespace("").list(&web).len(), 2);
    factory.shutdown().await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_derived_crd_informer_lists_and_gets_dynamic_objects() {
    let server = testkit().await;
    let client = server.client().unwrap();
    server.register_crd(&serde_json::to_value(Gadget::crd()).unwrap()).await.unwrap();
    let gadgets = Api::<Gadget>::namespaced(client.clone(), "lab");
    for (name, app, size) in [("small", "toy", 1), ("large", "tool", 3)] {
        let mut gadget = Gadget::new(name, GadgetSpec { size });
        gadget.metadata = meta("lab", name, app);
        gadgets.create(&PostParams::default(), &gadget).await.unwrap();
    }

    let factory = SharedInformerFactory::new(client, Duration::ZERO);
    let typed = GadgetInformer::new(&factory);
    typed.informer();
    factory.start();
    let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await;
    assert!(synced.values().all(|ok| *ok), "{synced:?}");
    let gvr = GroupVersionResource::gvr("erased.example.com", "v1", "gadgets");
    let erased = factory
        .informers()
        .into_iter()
        .find(|informer| informer.gvr() == &gvr)
        .expect("the factory lists the derived informer");

    let lister = erased.lister();
    assert_eq!(lister.list(&Selector::default()).len(), 2);
    let large = lister.get("lab/large").expect("lab/large is cached");
    let types = large.types.as_ref().expect("apiVersion and kind");
    assert_eq!(
        (types.api_version.as_str(), types.kind.as_str()),
        ("erased.example.com/v1", "Gadget")
    );
    assert_eq!(large.data["spec"], json!({ "size": 3 }));
    let lab = lister.by_namespace("lab");
    assert_eq!(lab.list(&labels::parse("app=toy").unwrap()).len(), 1);
    assert_eq!(lab.get("small").unwrap().data["spec"]["size"], 1);
    assert!(lister.by_namespace("elsewhere").get("small").is_none());
    // The typed lister, through the renamed crate path, reads the same cache.
    assert_eq!(typed.lister().gadgets("lab").get("large").unwrap().spec.size, 3);
    factory.shutdown().await;
    server.shutdown().await;
}
