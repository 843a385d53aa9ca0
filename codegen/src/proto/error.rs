//! Errors of the protobuf decoder generator.

use std::path::PathBuf;

/// Errors of reading the schema table and the k8s-openapi structs, and of emission.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file or directory could not be read.
    #[error("could not read {}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The schema table is not valid Rust.
    #[error("could not parse the schema table")]
    Parse(#[source] syn::Error),
    /// An item of the schema table does not have the shape `conformance/cmd/protoschema`
    /// writes.
    #[error("schema table: {item}: {problem}")]
    Malformed {
        /// The static (and field) concerned.
        item: String,
        /// What is wrong.
        problem: String,
    },
    /// A field or a `RESOURCES` entry names a message the schema table does not define.
    #[error("schema table: {item} refers to {referenced}, which it does not define")]
    UnknownMessage {
        /// The static that refers to it.
        item: String,
        /// The missing static.
        referenced: String,
    },
    /// A field the selection accepted cannot be emitted (a bug in the generator).
    #[error("{message}: field {json:?} cannot be emitted: {problem}")]
    Unsupported {
        /// The Go type of the message.
        message: String,
        /// The field's JSON name.
        json: String,
        /// Why.
        problem: String,
    },
}

/// Result of the protobuf decoder generator.
pub type Result<T, E = Error> = std::result::Result<T, E>;
