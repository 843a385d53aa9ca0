//! The in-place JSON decoders of `runtime/src/listwatch/in_place/generated/decoders.rs`: one
//! `impl Fields` per k8s-openapi struct of the latest Kubernetes version whose
//! `Deserialize` impl fills each field from one JSON key, matching each key to its field
//! and decoding the value straight into it.
//!
//! The structs come from the same scan as the protobuf decoders' ([`proto::structs`]).
//! Every field is decoded by a seed chosen from its type alone ([`seed`]): a struct (or
//! `Option` or `Vec` of one) with an impl of its own is decoded in place, anything else
//! through its `Deserialize`, so no struct depends on another getting an impl.

pub mod emit;
pub mod seed;

use std::path::Path;

use crate::model::KubeVersion;
use crate::proto::{Result, structs};
use seed::eligible;

/// The generated file, relative to the workspace root.
pub const OUTPUT_PATH: &str = "runtime/src/listwatch/in_place/generated/decoders.rs";

/// The generated file and what went into it.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The file's contents.
    pub contents: String,
    /// How many structs got an impl.
    pub structs: usize,
    /// How many listable kinds decode in place.
    pub listable: usize,
}

/// Generates the file from the k8s-openapi module of Kubernetes `latest` at `version_dir`.
pub fn generate(version_dir: &Path, latest: KubeVersion) -> Result<Generated> {
    let found = structs::scan_version_dir(version_dir)?;
    let contents = emit::render(&found, latest);
    let eligible = || found.by_path.values().filter(|s| eligible(s));
    Ok(Generated {
        contents,
        structs: eligible().count(),
        listable: eligible().filter(|s| s.listable).count(),
    })
}
