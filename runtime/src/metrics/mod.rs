//! What informers and work queues have done, as numbers.
//!
//! Always available, without any feature: every [`SharedIndexInformer`](crate::SharedIndexInformer)
//! counts its list and watch requests, watch events by type and relists in a
//! [`ReflectorStats`], and [`SharedIndexInformer::stats`](crate::SharedIndexInformer::stats)
//! returns them with the handlers' pending notifications, the last synced resource version
//! and how long the informer took to sync ([`InformerStats`]). Counting is a relaxed
//! atomic increment per request or event; nothing is computed until read.
//!
// The module link resolves only when the module is built; without the feature the name is
// plain text, so `cargo doc` builds with and without it.
#![cfg_attr(
    feature = "metrics",
    doc = "With the `metrics` feature, [`prometheus`] exports those numbers and the work queues'"
)]
#![cfg_attr(
    not(feature = "metrics"),
    doc = "With the `metrics` feature, `metrics::prometheus` exports those numbers and the work queues'"
)]
//! metrics through [`prometheus-client`](https://docs.rs/prometheus-client).
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//! use futures::future::BoxFuture;
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kube::api::{ListParams, WatchParams};
//! use kube::core::{ObjectList, TypeMeta};
//! use kube_informers_runtime::listwatch::{ListerWatcher, WatchStream};
//! use kube_informers_runtime::{SharedIndexInformer, store::Indexers};
//! use tokio_util::sync::CancellationToken;
//!
//! /// Lists nothing, then watches forever.
//! struct Empty;
//! impl ListerWatcher<ConfigMap> for Empty {
//!     fn list<'a>(&'a self, _: &'a ListParams) -> BoxFuture<'a, kube::Result<ObjectList<ConfigMap>>> {
//!         let list = ObjectList { types: TypeMeta::list::<ConfigMap>(), metadata: Default::default(), items: vec![] };
//!         Box::pin(async move { Ok(list) })
//!     }
//!     fn watch<'a>(&'a self, _: &'a WatchParams, _: &'a str) -> BoxFuture<'a, kube::Result<WatchStream<ConfigMap>>> {
//!         Box::pin(async { Ok(Box::pin(futures::stream::pending()) as WatchStream<ConfigMap>) })
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let informer = SharedIndexInformer::new(Arc::new(Empty), Duration::ZERO, Indexers::default());
//! let cancel = CancellationToken::new();
//! let run = tokio::spawn({
//!     let (informer, cancel) = (informer.clone(), cancel.clone());
//!     async move { informer.run(cancel).await }
//! });
//! assert!(informer.wait_for_sync().await);
//!
//! let stats = informer.stats();
//! assert_eq!(stats.reflector.list_requests, 1);
//! assert_eq!(stats.reflector.relists(), 0);
//! assert!(stats.has_synced && stats.sync_duration.is_some());
//! cancel.cancel();
//! run.await.unwrap();
//! # }
//! ```

mod instrument;
mod stats;

pub(crate) use stats::InformerStatsCells;
pub use stats::{EventCounts, InformerStats, ReflectorCounts, ReflectorStats};

#[cfg(feature = "metrics")]
pub mod prometheus;
