//! What a factory applies to the informers it makes: the options every front-end takes,
//! and those of the typed and of the dynamic/metadata front-ends alone.

use std::any::TypeId;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use crate::informer::Transform;
use crate::listwatch::TweakListParams;
use crate::reflector::ReflectorConfig;
use crate::store::CompactConfig;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// What every factory applies to each informer it makes.
pub(crate) struct CommonOptions {
    /// The name of every informer of this factory, if any.
    pub(crate) name: Option<String>,
    pub(crate) namespace: Option<String>,
    pub(crate) default_resync: Duration,
    pub(crate) tweak: Option<TweakListParams>,
    pub(crate) reflector_config: ReflectorConfig,
    /// Lists ask for gzip (`false` after `disable_compression()`).
    pub(crate) compression: bool,
}

impl Default for CommonOptions {
    fn default() -> Self {
        Self {
            name: None,
            namespace: None,
            default_resync: Duration::ZERO,
            tweak: None,
            reflector_config: ReflectorConfig::default(),
            compression: true,
        }
    }
}

/// Mutates the metadata of every object of every informer of a factory before it is stored.
pub type MetadataTransform = Arc<dyn Fn(&mut ObjectMeta) + Send + Sync + 'static>;

/// What only a typed factory applies.
#[derive(Default)]
pub struct TypedOptions {
    pub(crate) custom_resync: HashMap<TypeId, Duration>,
    pub(crate) transform: Option<MetadataTransform>,
    /// Drop `metadata.managedFields`: while decoding for the informers this factory
    /// builds, after decoding for those built by an `informer_for_with` constructor.
    pub(crate) strip_managed_fields: bool,
    /// Ask for protobuf for the built-in types, JSON being the fallback.
    pub(crate) protobuf: bool,
    /// A compact store for every informer (`compact_store()`), unless `compact_for`
    /// says otherwise for its type.
    pub(crate) compact_store: Option<CompactConfig>,
    /// A compact store for one type's informer (`compact_store_for::<K>()`).
    pub(crate) compact_for: HashMap<TypeId, CompactConfig>,
}

impl TypedOptions {
    /// The compact-store configuration for the informer of `type_id`, if it gets one.
    pub(crate) fn compact_store_of(&self, type_id: TypeId) -> Option<CompactConfig> {
        self.compact_for.get(&type_id).or(self.compact_store.as_ref()).cloned()
    }
}

/// The options only a typed factory takes, for a factory of type `F`; set them through
/// [`TypedFactoryBuilder`](super::TypedFactoryBuilder).
pub struct TypedSetup<F> {
    pub(crate) options: TypedOptions,
    pub(crate) factory: PhantomData<fn() -> F>,
}

/// The options only a dynamic or metadata factory takes; set them through
/// [`DynamicFactoryBuilder`](super::DynamicFactoryBuilder).
pub struct GenericSetup<K> {
    pub(crate) transform: Option<Transform<K>>,
}
