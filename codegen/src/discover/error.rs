//! Errors of discovery, and the k8s-openapi release line discovery supports (which
//! [`Error::K8sOpenapiNotLocked`] names).

use std::path::PathBuf;

use crate::model::KubeVersion;

/// The k8s-openapi release line this generator understands (`0.29.x`).
pub const SUPPORTED_K8S_OPENAPI: &str = "0.29";

/// Errors of discovery.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `cargo metadata` could not be started.
    #[error("could not run `cargo metadata`")]
    CargoMetadataSpawn(#[source] std::io::Error),
    /// `cargo metadata` exited unsuccessfully.
    #[error("`cargo metadata` failed: {stderr}")]
    CargoMetadataFailed {
        /// What cargo printed on stderr.
        stderr: String,
    },
    /// `cargo metadata` printed something that is not the expected JSON.
    #[error("`cargo metadata` printed unexpected JSON")]
    MetadataJson(#[source] serde_json::Error),
    /// The workspace does not depend on a supported k8s-openapi.
    #[error("the workspace does not lock k8s-openapi {SUPPORTED_K8S_OPENAPI}.x")]
    K8sOpenapiNotLocked,
    /// A file or directory could not be read.
    #[error("could not read {}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A k8s-openapi source file is not valid Rust.
    #[error("could not parse {}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: syn::Error,
    },
    /// The source directory has no `v1_*` version modules.
    #[error("no v1_* version directories under {}", .0.display())]
    NoVersions(PathBuf),
    /// An `impl Resource` block lacks an item the generator needs or has an unexpected one.
    #[error("{}: `impl Resource for {ty}`: {problem}", path.display())]
    MalformedResource {
        /// The file.
        path: PathBuf,
        /// The implementing type.
        ty: String,
        /// What is wrong.
        problem: String,
    },
    /// The same group/version/kind differs between two Kubernetes versions.
    #[error(
        "{kind} ({api_version}) has {what} {first:?} in Kubernetes {first_version} but {second:?} in {second_version}"
    )]
    Inconsistent {
        /// The kind.
        kind: String,
        /// Its `apiVersion`.
        api_version: String,
        /// Which property differs.
        what: &'static str,
        /// The value seen first.
        first: String,
        /// The Kubernetes version it was seen in.
        first_version: KubeVersion,
        /// The value seen later.
        second: String,
        /// The Kubernetes version it was seen in.
        second_version: KubeVersion,
    },
}

/// Result of discovery.
pub type Result<T, E = Error> = std::result::Result<T, E>;
