//! Prometheus metrics through [`prometheus-client`](https://docs.rs/prometheus-client)
//! (feature `metrics`).
//!
//! - [`InformerCollector`] exports informers' [`InformerStats`](super::InformerStats),
//!   read at scrape time, for a whole [`TypedInformerFactory`](crate::TypedInformerFactory)
//!   ([`register_factory`]), a dynamic factory or single informers.
//! - [`WorkQueueMetricsProvider`] records client-go's work queue metrics
//!   (`workqueue_depth`, `workqueue_adds_total`, …) for every named queue built with it.
//!
//! Serve the registry's text exposition from your `/metrics` handler with
//! [`prometheus_client::encoding::text::encode`]; the controller example does. The
//! `prometheus_client` crate is re-exported here, so the registry you pass is always of the
//! version this crate records into.

mod informer;
mod workqueue;

pub use prometheus_client;

pub use informer::{InformerCollector, register_factory, resource_label};
pub use workqueue::WorkQueueMetricsProvider;
