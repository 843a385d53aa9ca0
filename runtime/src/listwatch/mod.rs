//! Listing and watching one resource on the wire: the [`ListerWatcher`] interface a
//! reflector drives, and its implementations over `kube::Client`, typed or dynamic
//! ([`ApiListerWatcher`], with [`InformerScope`] choosing a typed resource's URLs) and
//! metadata-only ([`MetadataListerWatcher`]).
//!
//! Below the lister-watchers, and private to this module:
//!
//! - `wire`: sends a request built by `kube::core::Request`, turns an error response into
//!   `kube::Error::Api` as `kube::Client` does, and hands a body on chunk by chunk or
//!   line by line;
//! - `list_request`: sends one list request and decodes its body while it arrives;
//! - `gzip`: the gzip content encoding lists ask for, inflated while the body arrives;
//! - `list_stream`: decodes a list body while it arrives, item by item;
//! - `decode`: decodes one watch event from its line;
//! - `capacity`: decodes an object with every `Vec` at exactly its length, from a
//!   pre-scan of its bytes (serde_json alone leaves about 16 % of a Pod's heap unused);
//! - `heap_room`: grows glibc's per-thread heap ahead of a list's items, in large steps
//!   instead of a page per `mprotect` call;
//! - `managed_fields`: decodes an object without `metadata.managedFields`, used by both
//!   decoders when [`ApiListerWatcher::skip_managed_fields`] is set;
//! - `idle`: the time limit on a silent watch or list ([`WireError::Stalled`]), which
//!   [`ListerWatcher::list_page`] and the reflector's watches use;
//! - `skipped`: what is known of an object that does not decode ([`SkippedObject`]);
//! - `protobuf`: the protobuf wire format of the built-in types, decoded into the same
//!   types as JSON, for [`ApiListerWatcher::protobuf`].
//!
//! Nothing here knows about the reflector or the informers above it: this module only
//! sends requests and decodes what comes back.

mod api;
mod capacity;
mod decode;
mod gzip;
mod heap_room;
mod idle;
mod item;
mod json_input;
mod list_request;
mod list_stream;
mod lister_watcher;
mod managed_fields;
mod metadata;
mod protobuf;
mod scope;
mod skipped;
mod wire;

pub use api::ApiListerWatcher;
pub(crate) use idle::{IdleLimit, open_within};
pub(crate) use lister_watcher::tweaked;
pub use lister_watcher::{ListPage, ListerWatcher, TweakListParams, WatchStream};
pub use metadata::MetadataListerWatcher;
pub use scope::InformerScope;
pub(crate) use scope::filtered_lister_watcher;
pub use skipped::SkippedObject;
pub use wire::WireError;
pub(crate) use wire::causes;
