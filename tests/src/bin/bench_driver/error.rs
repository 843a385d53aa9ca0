//! The driver's error type.

/// Errors of the driver.
pub(crate) type BoxError = Box<dyn std::error::Error>;
