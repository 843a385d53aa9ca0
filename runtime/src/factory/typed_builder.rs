//! What only the typed factory's builder takes: per-type resyncs, managed-fields
//! stripping, protobuf and a metadata transform.

use std::any::TypeId;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Client;

use super::builder::FactoryBuilder;
use super::options::{TypedOptions, TypedSetup};
use super::typed::TypedInformerFactory;
use crate::store::CompactConfig;

impl TypedInformerFactory {
    /// A factory over all namespaces whose handlers resync every `default_resync` (zero:
    /// never) (client-go's `NewSharedInformerFactory`).
    pub fn new(client: Client, default_resync: Duration) -> Self {
        Self::builder(client).default_resync(default_resync).build()
    }

    /// A builder for a factory with options (client-go's
    /// `NewSharedInformerFactoryWithOptions`).
    pub fn builder(client: Client) -> TypedFactoryBuilder<Self> {
        TypedFactoryBuilder::<Self>::new(client)
    }
}

/// Builds a typed factory; `F` is the factory type to build: the runtime's
/// [`TypedInformerFactory`], or the `kube-informers` crate's `SharedInformerFactory`,
/// which adds the generated accessors around it.
///
/// ```no_run
/// # use std::time::Duration;
/// # use kube_informers_runtime::TypedInformerFactory;
/// # #[allow(dead_code)]
/// # async fn doc(client: kube::Client) {
/// let factory = TypedInformerFactory::builder(client)
///     .name("team-a")
///     .default_resync(Duration::from_secs(0))
///     .namespace("prod")
///     .tweak_list_params(|lp| lp.label_selector = Some("team=a".into()))
///     .strip_managed_fields()
///     .protobuf()
///     .compact_store()
///     .build();
/// factory.start();
/// # }
/// ```
pub type TypedFactoryBuilder<F = TypedInformerFactory> = FactoryBuilder<TypedSetup<F>>;

impl<F: From<TypedInformerFactory>> FactoryBuilder<TypedSetup<F>> {
    /// A builder for a factory over `client`: all namespaces, no resync.
    pub fn new(client: Client) -> Self {
        Self::with_setup(
            client,
            TypedSetup { options: TypedOptions::default(), factory: PhantomData },
        )
    }

    /// A resync period for the informer of `K` only (client-go's `WithCustomResyncConfig`).
    pub fn custom_resync<K: 'static>(mut self, period: Duration) -> Self {
        self.setup.options.custom_resync.insert(TypeId::of::<K>(), period);
        self
    }

    /// Drop `metadata.managedFields` from every object before it is stored: it is often
    /// the largest part of an object and controllers rarely read it.
    ///
    /// The informers the factory builds skip the field while decoding list pages and
    /// watch events, so it is never built (see
    /// [`ApiListerWatcher::skip_managed_fields`](crate::ApiListerWatcher::skip_managed_fields));
    /// transforms see it as `None`. Informers made by an
    /// [`informer_for_with`](TypedInformerFactory::informer_for_with) constructor
    /// have it removed after decoding, before the transforms run.
    pub fn strip_managed_fields(mut self) -> Self {
        self.setup.options.strip_managed_fields = true;
        self
    }

    /// List and watch the built-in types in protobuf (`application/vnd.kubernetes.protobuf`,
    /// client-go's default wire format, cheaper to decode than JSON), JSON being the fallback.
    ///
    /// Every informer the factory builds for a type of the built-in schema table asks for
    /// protobuf, then JSON, and decodes each response as its `Content-Type` says (see
    /// [`ApiListerWatcher::protobuf`](crate::ApiListerWatcher::protobuf)); custom resources
    /// keep asking for JSON alone. The objects are the same as from JSON. Informers made by
    /// an [`informer_for_with`](TypedInformerFactory::informer_for_with) constructor are
    /// left as it builds them.
    ///
    /// client-go's clientset asks for protobuf by default; here JSON stays the default
    /// until protobuf has been run against more servers.
    pub fn protobuf(mut self) -> Self {
        self.setup.options.protobuf = true;
        self
    }

    /// Keep every informer's cache compact ([`Indexer::compact`](crate::store::Indexer::compact)
    /// with [`CompactConfig::default`]): each object encoded (JSON without managedFields,
    /// zstd with a dictionary trained per informer) and decoded on read, with a decoded
    /// cache of 16 MiB per informer for hot keys (issue 18). About 0.1-1 KB per Pod instead
    /// of 40 KB; a cold `lister.get` costs a decode (about 20 µs for a Pod), a lister's
    /// `list(selector)` decodes the objects it returns (labels are kept beside the encoded
    /// bytes and checked first), and a `list()` of everything decodes everything.
    ///
    /// Listers, indexers, handlers and tombstones work as with the typed cache, with the
    /// differences [`Indexer::compact`](crate::store::Indexer::compact) lists; objects are
    /// compared by value, never by `Arc::ptr_eq`. It implies
    /// [`strip_managed_fields`](Self::strip_managed_fields) for the informers the factory
    /// builds (the compact cache cannot keep the field, so handlers do not see it either).
    ///
    /// An informer with a compact cache applies each list as it decodes, object by object
    /// ([`DeltaFifo::start_replace`](crate::fifo::DeltaFifo::start_replace)), so that no
    /// list is ever held decoded whole: its peak memory stays near what it stores. The
    /// price: a relist is not applied in one transaction, and a lister may see it part
    /// applied until the list ends (new states of some objects, deleted ones still there).
    /// An [`informer_for_with`](TypedInformerFactory::informer_for_with) constructor finds
    /// the setting in [`InformerOptions::compact_store`](super::InformerOptions::compact_store)
    /// and chooses.
    pub fn compact_store(self) -> Self {
        self.compact_store_config(CompactConfig::default())
    }

    /// [`compact_store`](Self::compact_store) with `config` (the decoded cache's budget,
    /// the dictionary, the zstd level).
    pub fn compact_store_config(mut self, config: CompactConfig) -> Self {
        self.setup.options.compact_store = Some(config);
        self
    }

    /// A compact cache for the informer of `K` only, with `config` (overriding
    /// [`compact_store_config`](Self::compact_store_config) for `K`): as
    /// [`custom_resync`](Self::custom_resync) is to the default resync.
    pub fn compact_store_for<K: 'static>(mut self, config: CompactConfig) -> Self {
        self.setup.options.compact_for.insert(TypeId::of::<K>(), config);
        self
    }

    /// Mutate the metadata of every object before it is stored (client-go's
    /// `WithTransform`, restricted to what every type has). A second call composes after
    /// the first.
    pub fn transform_metadata(
        mut self,
        transform: impl Fn(&mut ObjectMeta) + Send + Sync + 'static,
    ) -> Self {
        self.setup.options.transform = Some(match self.setup.options.transform.take() {
            None => Arc::new(transform),
            Some(first) => Arc::new(move |meta: &mut ObjectMeta| {
                first(meta);
                transform(meta);
            }),
        });
        self
    }

    /// The factory.
    pub fn build(self) -> F {
        F::from(TypedInformerFactory::from_parts(self.client, self.common, self.setup.options))
    }
}
