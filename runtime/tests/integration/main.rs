//! Integration tests of `kube-informers-runtime`, in one binary: each module is one area.
//! One binary links the dependencies once, which keeps CI's build time and disk use down.

mod dynamic_factory;
mod dynamic_lister;
mod fifo_delta_fifo;
mod fifo_pop;
mod fifo_proptest;
mod handler_filtering;
mod handler_funcs;
mod handler_overflow;
mod informer_names;
mod informer_resync;
mod labels_matching;
mod labels_parse;
mod lister_generic;
mod metrics_informer_stats;
mod metrics_prometheus;
mod processor_delivery;
mod processor_lifecycle;
mod processor_panic_log;
mod processor_resync;
mod reflector_api_lister_watcher;
mod reflector_backoff;
mod reflector_cancel;
mod reflector_decode;
mod reflector_list;
mod reflector_resync;
mod reflector_streaming;
mod reflector_support;
mod reflector_watch;
mod store_concurrency;
mod store_indexer;
mod workqueue_delaying;
mod workqueue_metrics;
mod workqueue_queue;
mod workqueue_rate_limiter;
mod workqueue_rate_limiting;
