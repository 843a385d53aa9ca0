//! The one factory builder: the options every front-end takes (client-go's
//! `SharedInformerOption`s), with `S` holding what only one front-end takes.

use std::sync::Arc;
use std::time::Duration;

use kube::Client;
use kube::api::ListParams;

use super::options::CommonOptions;
use crate::reflector::ReflectorConfig;

/// Builds a factory. Get one from the factory's `builder` function:
/// [`TypedFactoryBuilder`](super::TypedFactoryBuilder) for typed informers,
/// [`DynamicFactoryBuilder`](super::DynamicFactoryBuilder) for dynamic and metadata ones;
/// `S` holds the options of that kind of factory alone.
#[must_use = "a builder does nothing until build() is called"]
pub struct FactoryBuilder<S> {
    pub(crate) client: Client,
    pub(crate) common: CommonOptions,
    pub(crate) setup: S,
}

impl<S> FactoryBuilder<S> {
    pub(crate) fn with_setup(client: Client, setup: S) -> Self {
        Self { client, common: CommonOptions::default(), setup }
    }

    /// The resync period of handlers that don't pick one (zero: never).
    pub fn default_resync(mut self, period: Duration) -> Self {
        self.common.default_resync = period;
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
        self.common.name = Some(name.into());
        self
    }

    /// Watch only this namespace (client-go's `WithNamespace`). Typed informers of
    /// cluster-scoped resources are unaffected. A dynamic factory without discovery puts
    /// the namespace into every URL, as client-go's dynamic client does; resources found
    /// cluster-scoped by
    /// [`for_resource_discovered`](super::GenericInformerFactory::for_resource_discovered)
    /// are watched cluster-wide.
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.common.namespace = Some(namespace.into());
        self
    }

    /// Adjust the list and watch parameters of every informer, e.g. to add a label selector
    /// (client-go's `WithTweakListOptions`).
    pub fn tweak_list_params(
        mut self,
        tweak: impl Fn(&mut ListParams) + Send + Sync + 'static,
    ) -> Self {
        self.common.tweak = Some(Arc::new(tweak));
        self
    }

    /// The reflector settings of every informer (page size, backoff, streaming lists).
    pub fn reflector_config(mut self, config: ReflectorConfig) -> Self {
        self.common.reflector_config = config;
        self
    }

    /// Lists of every informer stop asking for gzip (client-go's `DisableCompression`,
    /// which it sets per client); see
    /// [`ApiListerWatcher::disable_compression`](crate::ApiListerWatcher::disable_compression).
    pub fn disable_compression(mut self) -> Self {
        self.common.compression = false;
        self
    }
}
