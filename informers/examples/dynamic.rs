//! A dynamic informer: watch any GroupVersionResource as `DynamicObject`s, without a Rust
//! type for it (client-go's `dynamicinformer.NewDynamicSharedInformerFactory` +
//! `ForResource` + `dynamiclister`). Runs against `KUBECONFIG`'s cluster when set, else the
//! built-in test API server seeded with ConfigMaps.
//!
//! ```sh
//! cargo run -p kube-informers --example dynamic
//! ```

use std::time::Duration;

use kube_informers::{DynamicSharedInformerFactory, GroupVersionResource, Selector, labels};
use kube_informers_testkit::TestApiServer;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (client, server) = match std::env::var_os("KUBECONFIG") {
        Some(_) => (kube::Client::try_default().await?, None),
        None => {
            let server = TestApiServer::start().await?;
            server.seed().config_maps("default", 50)?;
            server.seed().config_maps("kube-system", 10)?;
            (server.client()?, Some(server))
        }
    };

    let factory = DynamicSharedInformerFactory::new(client, Duration::ZERO);
    let gvr = GroupVersionResource::gvr("", "v1", "configmaps");
    let config_maps = factory.for_resource(&gvr);
    config_maps.informer(); // create it before start, as in client-go
    factory.start();
    let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await;
    println!("synced: {synced:?}");

    let lister = config_maps.lister();
    println!("configmaps cached: {}", lister.list(&Selector::default()).len());
    println!("in default: {}", lister.by_namespace("default").list(&Selector::default()).len());
    let app3 = labels::parse("app=app-3")?;
    for cm in lister.by_namespace("default").list(&app3) {
        println!("app=app-3: {}", cm.metadata.name.as_deref().unwrap_or_default());
    }

    factory.shutdown().await;
    if let Some(server) = server {
        server.shutdown().await;
    }
    Ok(())
}
