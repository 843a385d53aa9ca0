//! Building an informer for one resource type without a factory
//! (client-go's generated `NewFilteredXxxInformer`).

use std::fmt::Debug;
use std::sync::Arc;
use std::time::Duration;

use kube::{Client, Resource};
use serde::de::DeserializeOwned;

use super::shared_informer::SharedIndexInformer;
use crate::listwatch::{InformerScope, TweakListParams, filtered_lister_watcher};
use crate::store::Indexers;

/// An informer for `K` restricted to `namespace` (all namespaces when `None`, or when `K`
/// is cluster-scoped), with list parameters adjusted by `tweak`.
///
/// Prefer a factory's shared informer: each informer made here opens its own watch and
/// holds its own cache.
pub fn new_filtered_informer<K>(
    client: Client,
    namespace: Option<&str>,
    resync: Duration,
    indexers: Indexers<K>,
    tweak: Option<TweakListParams>,
) -> SharedIndexInformer<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    K::Scope: InformerScope,
{
    let lister_watcher = filtered_lister_watcher::<K>(client, namespace, tweak);
    SharedIndexInformer::new(Arc::new(lister_watcher), resync, indexers)
}
