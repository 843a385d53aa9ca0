//! kube-runtime's watcher + reflector, a client we did not write, against the server.

use std::time::Duration;

use futures::{Stream, StreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{DeleteParams, Patch, PatchParams};
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::watcher;
use kube::{Api, Resource};
use serde_json::json;

use crate::{create_cm, server_with_cms};

/// Drives the reflector's event stream until `done` holds for the store.
async fn drive_until<K, S>(stream: &mut S, store: &Store<K>, done: impl Fn(&Store<K>) -> bool)
where
    K: Resource + Clone + 'static,
    K::DynamicType: std::hash::Hash + Eq + Clone,
    S: Stream<Item = Result<watcher::Event<K>, watcher::Error>> + Unpin,
{
    while !done(store) {
        tokio::time::timeout(Duration::from_secs(30), stream.next())
            .await
            .expect("progress in time")
            .expect("stream open")
            .expect("no watcher error");
    }
}

#[tokio::test]
async fn reflector_syncs_5000_objects_and_follows_changes() {
    let (server, _) = server_with_cms().await;
    server.seed().config_maps("default", 2_500).expect("seed");
    server.seed().config_maps("kube-system", 2_500).expect("seed");
    let all: Api<ConfigMap> = Api::all(server.client().expect("client"));
    let (store, writer) = reflector::store();
    // Default config: paginated lists of 500, then a watch with bookmarks.
    let mut stream = reflector::reflector(writer, watcher(all, watcher::Config::default())).boxed();
    drive_until(&mut stream, &store, |s| s.len() == 5_000).await;
    assert!(server.request_count("list", "configmaps") >= 10, "paginated with limit 500");

    let default_ns: Api<ConfigMap> = Api::namespaced(server.client().expect("client"), "default");
    default_ns.delete("config-0", &DeleteParams::default()).await.expect("delete");
    default_ns
        .patch(
            "config-1",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"changed": "yes"}}})),
        )
        .await
        .expect("patch");
    let changed = |s: &Store<ConfigMap>| {
        let key = ObjectRef::new("config-1").within("default");
        s.len() == 4_999
            && s.get(&key)
                .and_then(|p| p.metadata.labels.clone())
                .is_some_and(|l| l.contains_key("changed"))
    };
    drive_until(&mut stream, &store, changed).await;
    server.shutdown().await;
}

#[tokio::test]
async fn streaming_list_watcher_recovers_from_dropped_watches_and_compaction() {
    let (server, api) = server_with_cms().await;
    for i in 0..20 {
        create_cm(&api, &format!("cm-{i}"), &[]).await;
    }
    let (store, writer) = reflector::store();
    let config = watcher::Config::default().streaming_lists();
    let mut stream = reflector::reflector(writer, watcher(api.clone(), config)).boxed();
    drive_until(&mut stream, &store, |s| s.len() == 20).await;

    server.faults().drop_watches();
    server.compact();
    create_cm(&api, "after-drop", &[]).await;
    let key = ObjectRef::<ConfigMap>::new("after-drop").within("default");
    drive_until(&mut stream, &store, |s| s.get(&key).is_some()).await;
    assert_eq!(store.len(), 21);
    assert!(server.request_count("watch", "configmaps") >= 2, "the watcher re-watched");
    server.shutdown().await;
}
