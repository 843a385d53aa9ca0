//! What [`parse`](super::parse) reports for a selector that is not valid kubectl syntax.

/// A selector string that is not valid kubectl syntax. Positions are byte offsets into the
/// parsed string, starting at 0.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// A token where the grammar allows something else.
    #[error("found {found} at position {position}, expected {expected}")]
    UnexpectedToken {
        /// Where the token starts.
        position: usize,
        /// The token, quoted, or `end of string`.
        found: String,
        /// What the grammar allows there.
        expected: &'static str,
    },
    /// A label key that is not a qualified name.
    #[error("invalid label key {key:?} at position {position}: {reason}")]
    InvalidKey {
        /// Where the key starts.
        position: usize,
        /// The key.
        key: String,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// A label value that Kubernetes would not store.
    #[error("invalid value {value:?} for label key {key:?} at position {position}: {reason}")]
    InvalidValue {
        /// Where the value starts.
        position: usize,
        /// The key it is compared with.
        key: String,
        /// The value.
        value: String,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// `>` or `<`: apimachinery's numeric comparisons, which `kube::core::Expression` lacks.
    #[error(
        "operator '{operator}' at position {position} is not supported: \
         label selectors here have no numeric comparisons"
    )]
    UnsupportedOperator {
        /// Where the operator is.
        position: usize,
        /// The operator.
        operator: &'static str,
    },
}

/// The result of parsing a selector.
pub type Result<T, E = ParseError> = std::result::Result<T, E>;
