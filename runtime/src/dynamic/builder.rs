//! Options of a dynamic or metadata informer factory.

use std::sync::Arc;
use std::time::Duration;

use kube::Client;
use kube::api::ListParams;

use super::factory::{FactoryOptions, GenericInformerFactory, MakeListerWatcher};
use crate::informer::Transform;
use crate::reflector::{ReflectorConfig, TweakListParams};

/// Builds a [`DynamicSharedInformerFactory`](super::DynamicSharedInformerFactory) or a
/// [`MetadataSharedInformerFactory`](super::MetadataSharedInformerFactory); get one from
/// their `builder` function.
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
#[must_use = "a builder does nothing until build() is called"]
pub struct DynamicFactoryBuilder<K> {
    client: Client,
    options: FactoryOptions<K>,
}

impl<K> DynamicFactoryBuilder<K> {
    pub(crate) fn new(client: Client, make_lister_watcher: MakeListerWatcher<K>) -> Self {
        Self {
            client,
            options: FactoryOptions {
                name: None,
                namespace: None,
                default_resync: Duration::ZERO,
                tweak: None,
                transform: None,
                reflector_config: ReflectorConfig::default(),
                make_lister_watcher,
            },
        }
    }

    /// The namespace and tweak of the `filtered` constructors, as they come.
    pub(crate) fn filter(
        mut self,
        namespace: Option<String>,
        tweak: Option<TweakListParams>,
    ) -> Self {
        self.options.namespace = namespace;
        self.options.tweak = tweak;
        self
    }

    /// Names every informer of the factory (client-go's informer name,
    /// `SharedIndexInformerOptions.Identifier`), so that informers of one resource from two
    /// factories are told apart; see [`SharedIndexInformer::set_name`](crate::SharedIndexInformer::set_name).
    ///
    /// An informer is then identified by this name and its resource: the `informer` field
    /// of its tracing span and the `informer` label of its Prometheus series, beside the
    /// `resource` label. Pick a few fixed, low-cardinality names (a team, a component),
    /// never one per object or per request.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.options.name = Some(name.into());
        self
    }

    /// The resync period of handlers that don't pick one (zero: never).
    pub fn default_resync(mut self, period: Duration) -> Self {
        self.options.default_resync = period;
        self
    }

    /// Watch only this namespace. Without discovery the namespace goes into every URL, as
    /// client-go's dynamic client does; resources found cluster-scoped by
    /// [`for_resource_discovered`](GenericInformerFactory::for_resource_discovered) are
    /// watched cluster-wide.
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.options.namespace = Some(namespace.into());
        self
    }

    /// Adjust the list and watch parameters of every informer (client-go's
    /// `TweakListOptionsFunc`).
    pub fn tweak_list_params(
        mut self,
        tweak: impl Fn(&mut ListParams) + Send + Sync + 'static,
    ) -> Self {
        self.options.tweak = Some(Arc::new(tweak));
        self
    }

    /// Mutate every object of every informer before it is stored (client-go's
    /// `SetTransform`), e.g. to drop `managedFields` or unread parts of `data`. A second
    /// call composes after the first.
    pub fn transform(mut self, transform: impl Fn(&mut K) + Send + Sync + 'static) -> Self
    where
        K: 'static,
    {
        let composed: Transform<K> = match self.options.transform.take() {
            None => Arc::new(transform),
            Some(first) => Arc::new(move |obj: &mut K| {
                first(obj);
                transform(obj);
            }),
        };
        self.options.transform = Some(composed);
        self
    }

    /// The reflector settings of every informer (page size, backoff, streaming lists).
    pub fn reflector_config(mut self, config: ReflectorConfig) -> Self {
        self.options.reflector_config = config;
        self
    }

    /// The factory.
    pub fn build(self) -> GenericInformerFactory<K> {
        GenericInformerFactory::from_options(self.client, self.options)
    }
}
