//! One handle over either server, so a test body runs unchanged against testkit (fast, with
//! faults) and against the real kube-apiserver (fidelity).

use std::fmt;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::real::RealApiServer;
use crate::seed::{SeedKind, SeedReport};
use crate::server::TestApiServer;

/// Which server a [`Cluster`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerKind {
    /// [`TestApiServer`]: in-process, in-memory.
    Testkit,
    /// [`RealApiServer`]: etcd and kube-apiserver as child processes.
    Real,
}

impl fmt::Display for ServerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ServerKind::Testkit => "testkit",
            ServerKind::Real => "real kube-apiserver",
        })
    }
}

/// A running API server of either kind.
///
/// ```no_run
/// # async fn demo() -> kube_informers_testkit::Result<()> {
/// use kube_informers_testkit::{Cluster, SeedKind, ServerKind};
/// for kind in [ServerKind::Testkit, ServerKind::Real] {
///     let cluster = Cluster::start(kind).await?;
///     cluster.seed(SeedKind::Pods, "prod", 100).await?;
///     let client = cluster.client()?;
///     // ... the same assertions against either server ...
///     cluster.shutdown().await;
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub enum Cluster {
    /// The testkit server.
    Testkit(TestApiServer),
    /// The real control plane (boxed: it is several times the size of the testkit handle).
    Real(Box<RealApiServer>),
}

impl Cluster {
    /// Starts a server of `kind` with default settings.
    pub async fn start(kind: ServerKind) -> Result<Cluster> {
        Ok(match kind {
            ServerKind::Testkit => Cluster::Testkit(TestApiServer::start().await?),
            ServerKind::Real => Cluster::Real(Box::new(RealApiServer::start().await?)),
        })
    }

    /// Which kind this is.
    pub fn kind(&self) -> ServerKind {
        match self {
            Cluster::Testkit(_) => ServerKind::Testkit,
            Cluster::Real(_) => ServerKind::Real,
        }
    }

    /// The testkit server, for its fault injection and request counts.
    pub fn testkit(&self) -> Option<&TestApiServer> {
        match self {
            Cluster::Testkit(server) => Some(server),
            Cluster::Real(_) => None,
        }
    }

    /// The real server, for kill/restart and compaction.
    pub fn real(&self) -> Option<&RealApiServer> {
        match self {
            Cluster::Real(server) => Some(server),
            Cluster::Testkit(_) => None,
        }
    }

    /// A `kube::Config` with full rights (testkit: no auth; real: the admin user).
    pub fn config(&self) -> Result<kube::Config> {
        match self {
            Cluster::Testkit(server) => server.config(),
            Cluster::Real(server) => Ok(server.config()),
        }
    }

    /// A client with full rights.
    pub fn client(&self) -> Result<kube::Client> {
        kube::Client::try_from(self.config()?).map_err(|e| Error::Client(e.to_string()))
    }

    /// A client whose access [`set_read_access`](Self::set_read_access) controls: on testkit
    /// the ordinary client (testkit denies per resource, whoever asks), on the real server
    /// the unprivileged user, whom RBAC denies what was not granted.
    pub fn restricted_client(&self) -> Result<kube::Client> {
        match self {
            Cluster::Testkit(server) => server.client(),
            Cluster::Real(server) => Ok(server.unprivileged_client()),
        }
    }

    /// Allows or denies (403) reading `resource` (`plural` or `plural.group`) to the
    /// [`restricted_client`](Self::restricted_client): testkit's `allow`/`deny`; RBAC grants
    /// on the real server. On the real server everything starts denied.
    pub async fn set_read_access(&self, resource: &str, allowed: bool) -> Result<()> {
        match (self, allowed) {
            (Cluster::Testkit(server), true) => {
                server.allow(resource);
                Ok(())
            }
            (Cluster::Testkit(server), false) => {
                server.deny(resource);
                Ok(())
            }
            (Cluster::Real(server), true) => server.grant_read(resource).await,
            (Cluster::Real(server), false) => server.revoke_read(resource).await,
        }
    }

    /// Seeds `count` generated objects into `namespace` (straight into storage on testkit,
    /// through the API on the real server: same names, labels and contents).
    pub async fn seed(&self, kind: SeedKind, namespace: &str, count: usize) -> Result<SeedReport> {
        match self {
            Cluster::Testkit(server) => server.seed().objects(kind, namespace, count),
            Cluster::Real(server) => server.seed(kind, namespace, count).await,
        }
    }

    /// Returns once a `resourceVersion="0"` list of `collection_path` (such as
    /// [`kube::Api::resource_url`]) shows every change up to `resource_version`, so an
    /// informer started now gets them in its initial list: at once on testkit, whose lists
    /// are always current; on the real server once its watch cache has caught up (see
    /// [`RealApiServer::wait_for_watch_cache`](crate::real::RealApiServer::wait_for_watch_cache)).
    pub async fn wait_for_watch_cache(
        &self,
        collection_path: &str,
        resource_version: &str,
    ) -> Result<()> {
        match self {
            Cluster::Testkit(_) => Ok(()),
            Cluster::Real(server) => {
                let version = resource_version.parse().map_err(|_| {
                    Error::Setup(format!("resourceVersion {resource_version:?} is not a number"))
                })?;
                server.wait_for_watch_cache(collection_path, version).await
            }
        }
    }

    /// Serves a CustomResourceDefinition (JSON): registered on testkit, created and awaited
    /// until Established on the real server.
    pub async fn register_crd(&self, crd: &Value) -> Result<()> {
        match self {
            Cluster::Testkit(server) => server.register_crd(crd).map(drop),
            Cluster::Real(server) => server.register_crd(crd).await,
        }
    }

    /// Makes every resourceVersion seen so far too old to resume from, so open watches that
    /// reconnect get `410 Gone` and informers relist: testkit compacts its history; the real
    /// server compacts etcd and restarts kube-apiserver (a fresh watch cache).
    pub async fn expire_history(&self) -> Result<()> {
        match self {
            Cluster::Testkit(server) => {
                server.compact();
                Ok(())
            }
            Cluster::Real(server) => {
                server.compact_etcd().await?;
                server.restart_apiserver().await
            }
        }
    }

    /// Stops the server and every process or task of it.
    pub async fn shutdown(self) {
        match self {
            Cluster::Testkit(server) => server.shutdown().await,
            Cluster::Real(server) => server.shutdown().await,
        }
    }
}
