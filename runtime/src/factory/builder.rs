//! Options of a [`SharedInformerFactory`](super::SharedInformerFactory)
//! (client-go's `SharedInformerOption`s).

use std::any::TypeId;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Client;
use kube::api::ListParams;

use super::{FactoryOptions, SharedInformerFactory};
use crate::reflector::ReflectorConfig;

/// Mutates the metadata of every object of every informer of a factory before it is stored.
pub type MetadataTransform = Arc<dyn Fn(&mut ObjectMeta) + Send + Sync + 'static>;

/// Builds a factory; `F` is the factory type to build (the core factory, or the typed one
/// of the `kube-informers` crate, which wraps it).
///
/// ```no_run
/// # use std::time::Duration;
/// # use kube_informers_runtime::SharedInformerFactory;
/// # #[allow(dead_code)]
/// # async fn doc(client: kube::Client) {
/// let factory: SharedInformerFactory = SharedInformerFactory::builder(client)
///     .name("team-a")
///     .default_resync(Duration::from_secs(0))
///     .namespace("prod")
///     .tweak_list_params(|lp| lp.label_selector = Some("team=a".into()))
///     .strip_managed_fields()
///     .build();
/// factory.start();
/// # }
/// ```
#[must_use = "a builder does nothing until build() is called"]
pub struct SharedInformerFactoryBuilder<F = SharedInformerFactory> {
    client: Client,
    options: FactoryOptions,
    _factory: PhantomData<fn() -> F>,
}

impl<F: From<SharedInformerFactory>> SharedInformerFactoryBuilder<F> {
    /// A builder for a factory over `client`: all namespaces, no resync.
    pub fn new(client: Client) -> Self {
        Self {
            client,
            options: FactoryOptions {
                name: None,
                namespace: None,
                default_resync: Duration::ZERO,
                custom_resync: HashMap::new(),
                tweak: None,
                transform: None,
                strip_managed_fields: false,
                reflector_config: ReflectorConfig::default(),
            },
            _factory: PhantomData,
        }
    }

    /// The resync period of handlers that don't pick one (zero: never).
    pub fn default_resync(mut self, period: Duration) -> Self {
        self.options.default_resync = period;
        self
    }

    /// Names every informer of the factory (client-go's informer name,
    /// `SharedIndexInformerOptions.Identifier`), so that informers of one type from two
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

    /// Watch only this namespace (client-go's `WithNamespace`). Cluster-scoped resources
    /// are unaffected.
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.options.namespace = Some(namespace.into());
        self
    }

    /// Adjust the list and watch parameters of every informer, e.g. to add a label selector
    /// (client-go's `WithTweakListOptions`).
    pub fn tweak_list_params(
        mut self,
        tweak: impl Fn(&mut ListParams) + Send + Sync + 'static,
    ) -> Self {
        self.options.tweak = Some(Arc::new(tweak));
        self
    }

    /// A resync period for the informer of `K` only (client-go's `WithCustomResyncConfig`).
    pub fn custom_resync<K: 'static>(mut self, period: Duration) -> Self {
        self.options.custom_resync.insert(TypeId::of::<K>(), period);
        self
    }

    /// Drop `metadata.managedFields` from every object before it is stored: it is often
    /// the largest part of an object and controllers rarely read it.
    ///
    /// The informers the factory builds skip the field while decoding list pages and
    /// watch events, so it is never built (see
    /// [`ApiListerWatcher::skip_managed_fields`](crate::reflector::ApiListerWatcher::skip_managed_fields));
    /// transforms see it as `None`. Informers made by an
    /// [`informer_for_with`](super::SharedInformerFactory::informer_for_with) constructor
    /// have it removed after decoding, before the transforms run.
    pub fn strip_managed_fields(mut self) -> Self {
        self.options.strip_managed_fields = true;
        self
    }

    /// Mutate the metadata of every object before it is stored (client-go's
    /// `WithTransform`, restricted to what every type has). A second call composes after
    /// the first.
    pub fn transform_metadata(
        mut self,
        transform: impl Fn(&mut ObjectMeta) + Send + Sync + 'static,
    ) -> Self {
        self.options.transform = Some(match self.options.transform.take() {
            None => Arc::new(transform),
            Some(first) => Arc::new(move |meta: &mut ObjectMeta| {
                first(meta);
                transform(meta);
            }),
        });
        self
    }

    /// The reflector settings of every informer (page size, backoff, streaming lists).
    pub fn reflector_config(mut self, config: ReflectorConfig) -> Self {
        self.options.reflector_config = config;
        self
    }

    /// The factory.
    pub fn build(self) -> F {
        F::from(SharedInformerFactory::from_options(self.client, self.options))
    }
}
