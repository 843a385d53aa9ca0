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
    /// A bulk update was rejected by the store.
    #[error("bulk update failed: {0}")]
    Bulk(String),
}

/// Result alias of the testkit library API.
pub type Result<T, E = Error> = std::result::Result<T, E>;
