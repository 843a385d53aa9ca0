//! The demo's error type.

/// Any error that ends the demo, with its message.
pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync>;
