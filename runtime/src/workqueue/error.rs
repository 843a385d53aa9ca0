//! Errors of the workqueue module.

/// Errors from building workqueue parts.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WorkQueueError {
    /// A token bucket was given a rate that is not a positive number of events per second.
    #[error("token bucket rate must be a positive number of events per second, got {qps}")]
    InvalidRate {
        /// The rejected rate.
        qps: f64,
    },
}

/// Result of workqueue constructors.
pub type Result<T, E = WorkQueueError> = std::result::Result<T, E>;
