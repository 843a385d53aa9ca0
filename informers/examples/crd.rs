//! `#[derive(Informer)]` on a custom resource: the derive yields `FooInformer`, `FooLister`
//! and `FooNamespaceLister`, shared through the factory like the built-in kinds. Registers
//! the CRD in the built-in test API server, creates a few `Foo`s and lists them.
//!
//! ```sh
//! cargo run -p kube-informers --example crd
//! ```

use std::time::Duration;

use kube::api::{Api, PostParams};
use kube::{CustomResource, CustomResourceExt};
use kube_informers::{Informer, SharedInformerFactory, labels};
use kube_informers_testkit::TestApiServer;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The spec of `Foo`, a namespaced custom resource.
#[derive(CustomResource, Informer, Deserialize, Serialize, Clone, Debug, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Foo", namespaced)]
pub struct FooSpec {
    /// How many bars.
    pub bars: u32,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = TestApiServer::start().await?;
    server.register_crd(&serde_json::to_value(Foo::crd())?)?;
    let client = server.client()?;
    let foos: Api<Foo> = Api::namespaced(client.clone(), "default");
    for (name, bars, tier) in [("a", 1, "web"), ("b", 2, "web"), ("c", 3, "batch")] {
        let mut item = Foo::new(name, FooSpec { bars });
        item.metadata.labels = Some([("tier".to_string(), tier.to_string())].into());
        foos.create(&PostParams::default(), &item).await?;
    }

    let factory = SharedInformerFactory::new(client, Duration::ZERO);
    let informer = FooInformer::new(&factory);
    informer.informer(); // create it before start, as in client-go
    factory.start();
    factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await;

    let lister: FooLister = informer.lister();
    let web = lister.foos("default").list(&labels::parse("tier=web")?);
    println!("tier=web: {}", web.len());
    if let Some(c) = lister.foos("default").get("c") {
        println!("c has {} bars", c.spec.bars);
    }

    factory.shutdown().await;
    server.shutdown().await;
    Ok(())
}
