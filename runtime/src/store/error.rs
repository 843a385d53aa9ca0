//! Errors of the store and its key functions.

/// Why an object has no store key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// The object has no `metadata.name` (or an empty one).
    #[error("object has no name (namespace {namespace:?})")]
    MissingName {
        /// The object's namespace, if it has one, to help find it.
        namespace: Option<String>,
    },
    /// A key string that is neither `name` nor `namespace/name`.
    #[error("unexpected key format: {key:?}")]
    InvalidKey {
        /// The key that could not be split.
        key: String,
    },
}

/// Errors of [`Indexer`](super::Indexer) operations.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// No indexer with this name was registered (client-go: "Index with name %s does not exist").
    #[error("index with name {0} does not exist")]
    IndexNotFound(String),
    /// [`Indexer::add_indexers`](super::Indexer::add_indexers) was given names that already
    /// exist (client-go: "indexer conflict").
    #[error("indexer conflict: {}", .0.join(", "))]
    IndexerConflict(Vec<String>),
    /// A [compact](super::Indexer::compact) store could not encode the object (its
    /// `Serialize` impl failed); the store is unchanged.
    #[error("cannot encode the object {key} for the compact store: {message}")]
    Encode {
        /// The object's store key.
        key: String,
        /// What failed (never the object's contents).
        message: String,
    },
    /// The object's key could not be computed.
    #[error("cannot compute the store key")]
    Key(#[from] KeyError),
}

/// Result of [`Indexer`](super::Indexer) operations.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;
