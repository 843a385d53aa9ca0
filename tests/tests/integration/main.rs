//! Integration tests of `kube-informers-tests`, in one binary: each module is one area.
//! One binary links the dependencies once, which keeps CI's build time and disk use down.

mod conformance_client_go;
mod crd_derive;
mod dynamic_metadata;
mod dynamic_remove;
mod dynamic_sync;
mod dynamic_sync_map;
mod erased_lister;
mod informer_bookmarks;
mod informer_compact_store;
mod informer_late_handler;
mod informer_missed_deletes;
mod informer_pagination;
mod informer_rbac;
mod informer_relist_reuse;
mod informer_shutdown;
mod informer_streaming;
mod informer_sync;
mod list_compression;
mod protobuf_wire;
mod reliability_bad_input;
mod reliability_chaos;
mod reliability_handlers;
mod reliability_load;
mod reliability_panics;
mod reliability_poison;
mod reliability_secrets;
mod reliability_soak;
mod reliability_stall;
mod typed_informers;
mod watch_wire;
