//! An in-memory Kubernetes API server over real HTTP on loopback, with fault injection
//! and bulk seeding, for testing informers and controllers without a cluster.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kube::{Api, api::PostParams};
//! use kube_informers_testkit::TestApiServer;
//!
//! let server = TestApiServer::start().await?;
//! let api: Api<ConfigMap> = Api::namespaced(server.client()?, "default");
//! let mut cm = ConfigMap::default();
//! cm.metadata.name = Some("a".into());
//! api.create(&PostParams::default(), &cm).await?;
//! assert_eq!(server.request_count("create", "configmaps"), 1);
//! server.shutdown().await;
//! # Ok(()) }
//! ```
//!
//! See the crate README for which kube-apiserver behaviours are modelled.
#![forbid(unsafe_code)]

mod api;
mod bulk;
mod cluster;
mod discovery;
mod dry_run;
mod error;
mod faults;
mod kubeconfig;
mod listener;
mod media;
mod object;
pub mod real;
mod resources;
mod scoped_tracing;
pub mod seed;
mod selector;
mod server;
mod status;
mod store;
mod table;
mod template;

pub use bulk::{BulkTouchReport, TOUCH_ANNOTATION};
pub use cluster::{Cluster, ServerKind};
pub use error::{Error, Result};
pub use faults::handle::Faults;
pub use faults::injected::{InjectedFailure, Malformed};
pub use resources::{ResourceInfo, Scope};
pub use scoped_tracing::scoped_subscribers_see_every_callsite;
pub use seed::{SeedKind, SeedReport, Seeder};
pub use server::{TestApiServer, TestApiServerBuilder};
