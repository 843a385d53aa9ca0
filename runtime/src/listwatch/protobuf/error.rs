//! The error of protobuf decoding, in two categories: the bytes are not a valid protobuf
//! message ([`Category::Wire`]), or a valid message does not decode into the Rust type
//! ([`Category::Data`], serde's errors), which a list skips as it skips a JSON item of the
//! wrong shape.

use std::fmt;

/// What went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Category {
    /// Malformed protobuf: truncated, a bad varint or wire type, invalid UTF-8, a bad envelope.
    Wire,
    /// A valid message whose value the type rejects.
    Data,
}

/// A protobuf decoding error.
#[derive(Debug)]
pub(crate) struct Error {
    category: Category,
    message: Box<str>,
}

impl Error {
    /// A malformed-input error.
    pub(crate) fn wire(message: impl fmt::Display) -> Self {
        Self { category: Category::Wire, message: message.to_string().into() }
    }

    pub(crate) fn category(&self) -> Category {
        self.category
    }

    /// As a `serde_json::Error`, the error type the lister-watchers report decoding
    /// failures with (`kube::Error::SerdeError`).
    pub(crate) fn into_json(self) -> serde_json::Error {
        serde::de::Error::custom(format_args!("protobuf: {self}"))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl serde::de::Error for Error {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Self { category: Category::Data, message: message.to_string().into() }
    }
}

/// The result of protobuf decoding.
pub(crate) type Result<T> = std::result::Result<T, Error>;
