//! `#[derive(Informer)]` next to kube's `CustomResource`: a namespaced and a cluster-scoped
//! CRD get typed informers and listers shared through the factory, sync from the test API
//! server, list, get, and deliver events (client-go: informer-gen's output for a CRD). On
//! testkit and on the real kube-apiserver (which also checks the derived CRD schemas).

// The types are public, as in a user's crate; the derives give their items the same visibility.
#![allow(unreachable_pub)]

use std::time::Duration;

use kube::api::{Api, DeleteParams, PostParams};
use kube::{CustomResource, CustomResourceExt};
use kube_informers::{Informer, Selector, SharedInformerFactory, labels};
use kube_informers_tests::{Event, Recorder, next_event, on_both_servers};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A namespaced custom resource.
#[derive(CustomResource, Informer, Deserialize, Serialize, Clone, Debug, JsonSchema)]
#[kube(group = "stable.example.com", version = "v1", kind = "CronTab", namespaced)]
pub struct CronTabSpec {
    /// When to run.
    pub schedule: String,
}

/// A cluster-scoped custom resource.
#[derive(CustomResource, Informer, Deserialize, Serialize, Clone, Debug, JsonSchema)]
#[kube(group = "infra.example.com", version = "v1alpha1", kind = "Region", plural = "regions")]
pub struct RegionSpec {
    /// Availability zones.
    pub zones: u32,
}

fn cron_tab(name: &str, schedule: &str, tier: &str) -> CronTab {
    let mut ct = CronTab::new(name, CronTabSpec { schedule: schedule.into() });
    ct.metadata.labels = Some([("tier".to_string(), tier.to_string())].into());
    ct
}

on_both_servers! {
async fn derived_informers_sync_list_and_notify(server) {
    let client = server.client().unwrap();
    if let Some(real) = server.real() {
        real.create_namespace("ops").await.expect("create namespace");
    }
    server.register_crd(&serde_json::to_value(CronTab::crd()).unwrap()).await.unwrap();
    server.register_crd(&serde_json::to_value(Region::crd()).unwrap()).await.unwrap();
    let tabs = Api::<CronTab>::namespaced(client.clone(), "ops");
    for (name, tier) in [("nightly", "batch"), ("hourly", "batch"), ("ping", "web")] {
        tabs.create(&PostParams::default(), &cron_tab(name, "0 * * * *", tier)).await.unwrap();
    }
    let regions = Api::<Region>::all(client.clone());
    let region = regions
        .create(&PostParams::default(), &Region::new("eu-west", RegionSpec { zones: 3 }))
        .await
        .unwrap();
    // The last write; each resource's watch cache must reach it for the initial lists.
    let rv = region.metadata.resource_version.unwrap();
    for url in [tabs.resource_url(), regions.resource_url()] {
        server.wait_for_watch_cache(url, &rv).await.expect("watch cache");
    }

    let factory = SharedInformerFactory::new(client.clone(), Duration::ZERO);
    let cron_tabs = CronTabInformer::new(&factory);
    // Every user of CronTab in this factory shares one informer.
    let again = CronTabInformer::new(&factory);
    let (recorder, mut events) = Recorder::new();
    cron_tabs.informer().add_event_handler(recorder).unwrap();
    let region_informer = RegionInformer::new(&factory);
    region_informer.informer();
    factory.start();
    let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await;
    assert_eq!(synced.len(), 2, "one informer per type: {synced:?}");
    assert!(synced.values().all(|ok| *ok));
    assert_eq!(again.informer().get_indexer().len(), 3);
    if let Some(testkit) = server.testkit() {
        assert_eq!(testkit.request_count("list", "crontabs.stable.example.com"), 1);
    }

    let lister: CronTabLister = cron_tabs.lister();
    assert_eq!(lister.list(&Selector::default()).len(), 3);
    let ops: CronTabNamespaceLister = lister.cron_tabs("ops");
    assert_eq!(ops.get("nightly").unwrap().spec.schedule, "0 * * * *");
    assert!(lister.cron_tabs("elsewhere").get("nightly").is_none());
    assert_eq!(ops.list(&labels::parse("tier=batch").unwrap()).len(), 2);
    let region_lister: RegionLister = region_informer.lister();
    assert_eq!(region_lister.get("eu-west").unwrap().spec.zones, 3);

    for _ in 0..3 {
        assert!(matches!(next_event(&mut events).await, Event::Add(_, true)));
    }
    let created = tabs
        .create(&PostParams::default(), &cron_tab("weekly", "0 0 * * 0", "batch"))
        .await
        .unwrap();
    match next_event(&mut events).await {
        Event::Add(obj, false) => {
            assert_eq!(obj.metadata.resource_version, created.metadata.resource_version)
        }
        other => panic!("expected a live add, got {other:?}"),
    }
    let mut changed = created.clone();
    changed.spec.schedule = "0 1 * * 0".into();
    tabs.replace("weekly", &PostParams::default(), &changed).await.unwrap();
    match next_event(&mut events).await {
        Event::Update(old, new) => {
            assert_eq!(old.spec.schedule, "0 0 * * 0");
            assert_eq!(new.spec.schedule, "0 1 * * 0");
        }
        other => panic!("expected an update, got {other:?}"),
    }
    tabs.delete("weekly", &DeleteParams::default()).await.unwrap();
    assert!(matches!(next_event(&mut events).await, Event::Delete(gone) if !gone.is_tombstone()));
    assert!(ops.get("weekly").is_none());
    factory.shutdown().await;
    server.shutdown().await;
}
}
