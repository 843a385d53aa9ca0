//! How a dynamic or metadata factory is built: its constructors, and what only their
//! builder takes (a transform of whole objects).

use std::sync::Arc;
use std::time::Duration;

use kube::Client;

use super::builder::FactoryBuilder;
use super::generic::{Generic, GenericInformerFactory, GenericObject};
use super::informer_factory::InformerFactory;
use super::options::GenericSetup;
use crate::informer::Transform;
use crate::listwatch::TweakListParams;

/// Builds a [`DynamicSharedInformerFactory`](crate::dynamic::DynamicSharedInformerFactory)
/// or a [`MetadataSharedInformerFactory`](crate::dynamic::MetadataSharedInformerFactory);
/// get one from their `builder` function.
///
/// ```no_run
/// # use std::time::Duration;
/// # use kube::core::GroupVersionResource;
/// # use kube_informers_runtime::dynamic::DynamicSharedInformerFactory;
/// # #[allow(dead_code)]
/// # async fn doc(client: kube::Client) {
/// let factory = DynamicSharedInformerFactory::builder(client)
///     .name("team-a")
///     .default_resync(Duration::from_secs(0))
///     .namespace("prod")
///     .tweak_list_params(|lp| lp.label_selector = Some("team=a".into()))
///     .transform(|obj| obj.metadata.managed_fields = None)
///     .build();
/// let widgets = factory.for_resource(&GroupVersionResource::gvr("example.com", "v1", "widgets"));
/// factory.start();
/// # let _ = widgets;
/// # }
/// ```
pub type DynamicFactoryBuilder<K> = FactoryBuilder<GenericSetup<K>>;

impl<K: GenericObject> InformerFactory<Generic<K>> {
    /// A factory over all namespaces whose handlers resync every `default_resync` (zero:
    /// never) (client-go's `NewDynamicSharedInformerFactory` and
    /// `metadatainformer.NewSharedInformerFactory`).
    pub fn new(client: Client, default_resync: Duration) -> Self {
        Self::builder(client).default_resync(default_resync).build()
    }

    /// A factory limited to `namespace` (`None`: all) whose lists and watches go through
    /// `tweak` (client-go's `NewFilteredDynamicSharedInformerFactory` and
    /// `metadatainformer.NewFilteredSharedInformerFactory`).
    pub fn filtered(
        client: Client,
        default_resync: Duration,
        namespace: Option<String>,
        tweak: Option<TweakListParams>,
    ) -> Self {
        Self::builder(client).default_resync(default_resync).filter(namespace, tweak).build()
    }

    /// A builder for a factory with more options (a transform, reflector settings).
    pub fn builder(client: Client) -> DynamicFactoryBuilder<K> {
        DynamicFactoryBuilder::generic(client)
    }
}

impl<K> FactoryBuilder<GenericSetup<K>> {
    pub(crate) fn generic(client: Client) -> Self {
        Self::with_setup(client, GenericSetup { transform: None })
    }

    /// The namespace and tweak of the `filtered` constructors, as they come.
    pub(crate) fn filter(
        mut self,
        namespace: Option<String>,
        tweak: Option<TweakListParams>,
    ) -> Self {
        self.common.namespace = namespace;
        self.common.tweak = tweak;
        self
    }

    /// Mutate every object of every informer before it is stored (client-go's
    /// `SetTransform`), e.g. to drop `managedFields` or unread parts of `data`. A second
    /// call composes after the first.
    pub fn transform(mut self, transform: impl Fn(&mut K) + Send + Sync + 'static) -> Self
    where
        K: 'static,
    {
        let composed: Transform<K> = match self.setup.transform.take() {
            None => Arc::new(transform),
            Some(first) => Arc::new(move |obj: &mut K| {
                first(obj);
                transform(obj);
            }),
        };
        self.setup.transform = Some(composed);
        self
    }
}

impl<K: GenericObject> FactoryBuilder<GenericSetup<K>> {
    /// The factory.
    pub fn build(self) -> GenericInformerFactory<K> {
        GenericInformerFactory::from_parts(self.client, self.common, self.setup)
    }
}
