//! The protobuf decoders of `runtime/src/listwatch/protobuf/generated/direct.rs`: one
//! `impl Fields` per k8s-openapi struct that assigns each protobuf field, by number,
//! straight into the struct, for the latest Kubernetes version only.
//!
//! 1. [`schema`]: read the schema table (`generated/schema.rs`, from client-go's Go types);
//! 2. [`structs`]: scan the latest k8s-openapi module for each struct's fields and their
//!    JSON names;
//! 3. [`select`]: map each message to its struct, keep those whose every field can be
//!    assigned ([`arms`]) and whose every nested message is kept;
//! 4. [`emit`]: write the file.

pub mod arms;
pub mod emit;
mod error;
pub mod schema;
pub mod select;
pub mod structs;

#[cfg(test)]
mod emit_tests;
#[cfg(test)]
mod tests;

use std::path::Path;

use crate::model::KubeVersion;

pub use error::{Error, Result};

/// The schema table, relative to the workspace root.
pub const SCHEMA_PATH: &str = "runtime/src/listwatch/protobuf/generated/schema.rs";

/// The generated file, relative to the workspace root.
pub const OUTPUT_PATH: &str = "runtime/src/listwatch/protobuf/generated/direct.rs";

/// The generated file and what went into it.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The file's contents.
    pub contents: String,
    /// The schema table read.
    pub schema: schema::Schema,
    /// Which messages got a decoder, and why the others did not.
    pub selection: select::Selection,
}

impl Generated {
    /// One line of counts: messages emitted and skipped (by reason), kinds decoded.
    pub fn summary(&self) -> String {
        use select::Skip;
        let skipped = &self.selection.skipped;
        let count = |wanted: fn(&Skip) -> bool| skipped.values().filter(|s| wanted(s)).count();
        format!(
            "{} messages emitted, {} decoded by hand, {} skipped ({} without a struct, {} tuple structs, {} without \
             Default, {} with an unsupported field, {} needing a skipped message); {} of {} \
             listable kinds decode directly",
            self.selection.emitted.len(),
            self.selection.by_hand.len(),
            skipped.len(),
            count(|s| matches!(s, Skip::NoStruct(_) | Skip::UnknownPackage)),
            count(|s| matches!(s, Skip::TupleStruct(_))),
            count(|s| matches!(s, Skip::NoDefault(_))),
            count(|s| matches!(s, Skip::Unsupported { .. })),
            count(|s| matches!(s, Skip::Needs(_))),
            self.decoded_resources(),
            self.schema.resources.len(),
        )
    }

    /// Each message skipped for a reason of its own (not a missing struct, not a skipped
    /// message it needs), in table order, with the reason.
    pub fn notable_skips(&self) -> impl Iterator<Item = (&str, &select::Skip)> {
        self.schema.messages.iter().filter_map(|message| {
            let skip = self.selection.skipped.get(&message.ident)?;
            let notable = !matches!(skip, select::Skip::NoStruct(_) | select::Skip::Needs(_));
            notable.then_some((message.name.as_str(), skip))
        })
    }

    /// The `RESOURCES` entries whose message got a decoder.
    pub fn decoded_resources(&self) -> usize {
        let emitted = &self.selection.emitted;
        self.schema.resources.iter().filter(|r| emitted.contains_key(&r.message)).count()
    }
}

/// Generates `direct.rs` from the schema table at `schema_path` and the k8s-openapi
/// version module `version_dir` (such as `src/v1_37`) of Kubernetes `latest`.
pub fn generate(schema_path: &Path, version_dir: &Path, latest: KubeVersion) -> Result<Generated> {
    let source = std::fs::read_to_string(schema_path)
        .map_err(|source| Error::Io { path: schema_path.to_owned(), source })?;
    let schema = schema::parse_schema(&source)?;
    let structs = structs::scan_version_dir(version_dir)?;
    let selection = select::select(&schema, &structs);
    let contents = emit::render(&schema, &structs, &selection, latest)?;
    Ok(Generated { contents, schema, selection })
}
