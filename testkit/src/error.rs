//! Errors of the testkit library API (not of the served API, which answers `Status`).

/// What can go wrong when starting or driving a [`TestApiServer`](crate::TestApiServer).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Binding the listening socket failed.
    #[error("cannot bind the listening socket")]
    Bind(#[source] std::io::Error),
    /// Writing the kubeconfig failed.
    #[error("cannot write the kubeconfig")]
    Kubeconfig(#[source] std::io::Error),
    /// Building the `kube::Client` failed.
    #[error("cannot build a kube client: {0}")]
    Client(String),
    /// Setting up the server's initial state failed.
    #[error("cannot set up the server: {0}")]
    Setup(String),
    /// The CRD object lacks group, names or versions.
    #[error("the CRD object has no spec.group, spec.names or spec.versions")]
    InvalidCrd,
    /// The resource is not served.
    #[error("unknown resource {0:?}")]
    UnknownResource(String),
    /// A seeded object was rejected (e.g. a duplicate name).
    #[error("seeding failed: {0}")]
    Seed(String),
    /// Neither `make real-server`'s cache, `KUBE_INFORMERS_REAL_SERVER_BIN` nor
    /// `KUBEBUILDER_ASSETS` holds `etcd` and `kube-apiserver`.
    #[error(
        "no etcd and kube-apiserver binaries found (looked in: {}); run `make real-server` or set KUBEBUILDER_ASSETS",
        tried.join(", ")
    )]
    RealServerMissing {
        /// Every folder looked in.
        tried: Vec<String>,
    },
    /// A control-plane process could not be started.
    #[error("cannot start {name}")]
    RealServerStart {
        /// `etcd` or `kube-apiserver`.
        name: &'static str,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A control-plane process exited on its own.
    #[error("{name} exited ({status}); its log ends with:\n{log_tail}")]
    RealServerExited {
        /// `etcd` or `kube-apiserver`.
        name: &'static str,
        /// Its exit status.
        status: String,
        /// The last lines it logged.
        log_tail: String,
    },
    /// kube-apiserver did not become ready in time.
    #[error("kube-apiserver is not ready: {what}; its log ends with:\n{log_tail}")]
    RealServerNotReady {
        /// What did not happen.
        what: String,
        /// The last lines it logged.
        log_tail: String,
    },
    /// A request to etcd failed.
    #[error("etcd request failed: {0}")]
    Etcd(String),
    /// A bulk update was rejected by the store.
    #[error("bulk update failed: {0}")]
    Bulk(String),
}

/// Result alias of the testkit library API.
pub type Result<T, E = Error> = std::result::Result<T, E>;
