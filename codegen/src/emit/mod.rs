//! Emission: one `quote!`-built, prettyplease-formatted file per module, laid out like
//! client-go's informer-gen output.
//!
//! | client-go `informers/`              | `informers/src/generated/`            |
//! |-------------------------------------|---------------------------------------|
//! | `factory.go` group accessors        | `mod.rs`                              |
//! | `<group>/interface.go`              | `<group>/mod.rs`                      |
//! | `<group>/<version>/interface.go`    | `<group>/<version>/mod.rs`            |
//! | `<group>/<version>/<kind>.go` (+ lister) | `<group>/<version>/<kind>.rs`    |
//! | `generic.go`                        | `generic.rs`                          |
//!
//! `GROUPS.md`, the table of groups the crate docs include, is generated alongside.

mod attrs;
mod generic;
mod group;
mod render;
mod resource;
mod root;
mod version;

use crate::plan::Plan;

pub use render::{Error, GeneratedFile, HEADER, Result, render};

/// Emits every file of `plan`, sorted by path.
pub fn emit(plan: &Plan) -> Result<Vec<GeneratedFile>> {
    let mut files = vec![root::emit(plan)?, root::emit_groups_markdown(plan), generic::emit(plan)?];
    for group in &plan.groups {
        files.push(group::emit(group)?);
        for version in &group.versions {
            files.push(version::emit(group, version)?);
            for resource in &version.resources {
                files.push(resource::emit(group, version, resource)?);
            }
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}
