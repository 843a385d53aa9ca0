//! The typed factory: the runtime's shared informer factory plus the generated group
//! accessors (`apps()`, `core()`, …) and `for_resource`.

use std::ops::Deref;
use std::time::Duration;

use kube_informers_runtime::factory::SharedInformerFactoryBuilder;

/// Hands out one shared informer per resource type, through client-go's typed accessors:
/// `factory.apps().v1().deployments()` (client-go's `informers.SharedInformerFactory`).
///
/// Everything else (`start`, `wait_for_cache_sync`, `shutdown`, `informer_for`, …) comes
/// from the runtime's factory it dereferences to. Cloning is cheap; every clone is the same
/// factory.
///
/// ```no_run
/// # use std::time::Duration;
/// # async fn doc(client: kube::Client) {
/// let factory = kube_informers::SharedInformerFactory::new(client, Duration::ZERO);
/// let pods = factory.core().v1().pods().informer();
/// factory.start();
/// factory.wait_for_cache_sync().await;
/// # let _ = pods;
/// # }
/// # let _ = doc;
/// ```
#[derive(Clone)]
pub struct SharedInformerFactory(kube_informers_runtime::SharedInformerFactory);

impl SharedInformerFactory {
    /// A factory over all namespaces whose handlers resync every `default_resync` (zero:
    /// never) (client-go's `NewSharedInformerFactory`).
    pub fn new(client: kube::Client, default_resync: Duration) -> Self {
        Self(kube_informers_runtime::SharedInformerFactory::new(client, default_resync))
    }

    /// A builder for a factory with options: namespace, list tweak, custom resyncs
    /// (client-go's `NewSharedInformerFactoryWithOptions`).
    pub fn builder(client: kube::Client) -> SharedInformerFactoryBuilder<Self> {
        SharedInformerFactoryBuilder::new(client)
    }
}

impl Deref for SharedInformerFactory {
    type Target = kube_informers_runtime::SharedInformerFactory;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl From<kube_informers_runtime::SharedInformerFactory> for SharedInformerFactory {
    fn from(core: kube_informers_runtime::SharedInformerFactory) -> Self {
        Self(core)
    }
}
