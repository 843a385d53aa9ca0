//! One object that cannot be decoded does not freeze the cache (issue 17 item 3). A custom
//! resource whose schema keeps unknown fields (`x-kubernetes-preserve-unknown-fields`) holds
//! a value the Rust type rejects: a string where the struct has a `u32`. client-go fails
//! every list of such an informer and never syncs again (controller-runtime #2591: "a single
//! bad object will break the entire informer"; kube-rs #774). We skip that object, report it
//! once per list, keep every other object, apply every later change, and pick the object up
//! once it decodes. On testkit and on the real kube-apiserver.

// The types are public, as in a user's crate.
#![allow(unreachable_pub)]

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use futures::future::join_all;
use kube::CustomResource;
use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::GroupVersionKind;
use kube_informers_runtime::{DeletedObject, TypedInformerFactory, reflector::ReflectorError};
use kube_informers_tests::{Event, Outage, Recorder, eventually, next_event, on_both_servers};
use parking_lot::Mutex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The Rust side: `replicas` is a number.
#[derive(CustomResource, Deserialize, Serialize, Clone, Debug, JsonSchema)]
#[kube(group = "poison.example.com", version = "v1", kind = "Widget", namespaced)]
pub struct WidgetSpec {
    /// How many.
    pub replicas: u32,
}

const GOOD: usize = 1_000;
const NAMESPACE: &str = "poison";

/// The server side: `spec` keeps whatever it is given.
fn crd() -> serde_json::Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.poison.example.com"},
        "spec": {
            "group": "poison.example.com",
            "names": {"kind": "Widget", "plural": "widgets", "singular": "widget",
                      "listKind": "WidgetList"},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {"spec": {
                        "type": "object", "x-kubernetes-preserve-unknown-fields": true
                    }},
                }},
            }],
        },
    })
}

fn widget(name: &str, replicas: serde_json::Value) -> DynamicObject {
    let resource =
        ApiResource::from_gvk(&GroupVersionKind::gvk("poison.example.com", "v1", "Widget"));
    let mut obj = DynamicObject::new(name, &resource).within(NAMESPACE);
    obj.data = json!({"spec": {"replicas": replicas}});
    obj
}

fn key(name: &str) -> String {
    format!("{NAMESPACE}/{name}")
}

/// Sets `spec.replicas` of `name` to `replicas` (which may not be a number).
async fn set_replicas(api: &Api<DynamicObject>, name: &str, replicas: serde_json::Value) {
    let patch = json!({"spec": {"replicas": replicas}});
    api.patch(name, &PatchParams::default(), &Patch::Merge(&patch)).await.unwrap();
}

/// The keys of each `Undecodable` report the watch-error handler received, in order.
type Reports = Arc<Mutex<Vec<Vec<String>>>>;

on_both_servers! {
async fn a_poison_object_is_skipped_reported_once_per_list_and_picked_up_once_fixed(server) {
    if let Some(real) = server.real() {
        real.create_namespace(NAMESPACE).await.unwrap();
    }
    server.register_crd(&crd()).await.unwrap();
    let resource = ApiResource::from_gvk(&GroupVersionKind::gvk("poison.example.com", "v1", "Widget"));
    let api = Api::<DynamicObject>::namespaced_with(server.client().unwrap(), NAMESPACE, &resource);
    for chunk in (0..GOOD).collect::<Vec<_>>().chunks(50) {
        join_all(chunk.iter().map(|i| {
            let api = api.clone();
            async move {
                let good = widget(&format!("good-{i:04}"), json!(*i as u32));
                api.create(&PostParams::default(), &good).await.unwrap();
            }
        }))
        .await;
    }
    let bad = api.create(&PostParams::default(), &widget("bad", json!("three"))).await.unwrap();
    // Written last: once the watch cache has it, the first list sees every widget.
    let rv = bad.metadata.resource_version.unwrap();
    server.wait_for_watch_cache(api.resource_url(), &rv).await.expect("watch cache");

    let outage = Outage::prepare(&server).await;
    let factory = TypedInformerFactory::builder(outage.client(&server)).namespace(NAMESPACE).build();
    let informer = factory.informer_for::<Widget>();
    let reports: Reports = Arc::default();
    let sink = reports.clone();
    informer
        .set_watch_error_handler(move |err| {
            if let ReflectorError::Undecodable(skipped) = err {
                sink.lock().push(skipped.iter().map(|s| s.key.clone()).collect());
            }
        })
        .unwrap();
    let (recorder, mut events) = Recorder::new();
    informer.add_event_handler(recorder).unwrap();
    factory.start();

    // Synced: every decodable object is cached, the bad one is not, and it was reported once.
    let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(60)).await;
    assert!(synced.values().all(|ok| *ok), "one poison object must not stop the sync");
    assert!(informer.has_synced());
    let cached: BTreeSet<String> = informer.get_indexer().list_keys().into_iter().collect();
    assert_eq!(cached.len(), GOOD);
    assert!(!cached.contains(&key("bad")));
    assert_eq!(*reports.lock(), [vec![key("bad")]]);
    assert_eq!(informer.stats().reflector.undecodable_objects, 1);
    for _ in 0..GOOD {
        assert!(matches!(next_event(&mut events).await, Event::Add(_, true)));
    }

    // Later changes are applied, before and after a change to the bad object.
    set_replicas(&api, "good-0001", json!(11)).await;
    match next_event(&mut events).await {
        Event::Update(_, new) => assert_eq!(new.spec.replicas, 11),
        other => panic!("expected the update, got {other:?}"),
    }
    // Fixed: it decodes now, and arrives as an add.
    set_replicas(&api, "bad", json!(3)).await;
    match next_event(&mut events).await {
        Event::Add(obj, false) => {
            assert_eq!(obj.metadata.name.as_deref(), Some("bad"));
            assert_eq!(obj.spec.replicas, 3);
        }
        other => panic!("expected the fixed object's add, got {other:?}"),
    }
    // A good object turned bad by a watch event: reported, and dropped from the cache with
    // a tombstone, as a relist without it would.
    set_replicas(&api, "good-0002", json!("two")).await;
    match next_event(&mut events).await {
        Event::Delete(DeletedObject::DeletedFinalStateUnknown(tombstone)) => {
            assert_eq!(tombstone.key, key("good-0002"));
            assert_eq!(tombstone.object.spec.replicas, 2, "the last decodable state");
        }
        other => panic!("expected a tombstone for the object that turned bad, got {other:?}"),
    }
    assert_eq!(*reports.lock(), [vec![key("bad")], vec![key("good-0002")]]);
    set_replicas(&api, "good-0003", json!(33)).await;
    match next_event(&mut events).await {
        Event::Update(_, new) => assert_eq!(new.spec.replicas, 33),
        other => panic!("expected the update, got {other:?}"),
    }

    // A relist reports it once more: once per list, not once per retry.
    let replaces = informer.stats().reflector.replaces;
    outage.expire_next_watch(&server);
    eventually(Duration::from_secs(30), "the informer relists", || {
        let relisted = informer.stats().reflector.replaces > replaces;
        async move { relisted }
    })
    .await;
    eventually(Duration::from_secs(10), "the relist's report", || {
        let reported = reports.lock().len() == 3;
        async move { reported }
    })
    .await;
    assert_eq!(reports.lock()[2], [key("good-0002")]);
    assert_eq!(informer.stats().reflector.undecodable_objects, 3);
    let cached: BTreeSet<String> = informer.get_indexer().list_keys().into_iter().collect();
    assert_eq!(cached.len(), GOOD, "999 good ones and the fixed one");
    assert!(cached.contains(&key("bad")) && !cached.contains(&key("good-0002")));

    factory.shutdown().await;
    outage.shutdown().await;
    server.shutdown().await;
}
}
