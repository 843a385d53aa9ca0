//! Walking one Kubernetes version module (`src/v1_37/`, say) for the files that declare
//! listable resources.

use std::path::{Path, PathBuf};

use super::error::{Error, Result};
use super::parse::{FoundResource, resources_in_impls, trait_impls};

/// Collects the listable resources of one version directory such as `src/v1_37`.
pub fn discover_version_dir(dir: &Path) -> Result<Vec<FoundResource>> {
    let mut found = Vec::new();
    let mut pending = vec![(dir.to_owned(), Vec::<String>::new())];
    while let Some((current, module)) = pending.pop() {
        for path in read_dir_sorted(&current)? {
            let Some(name) = path.file_name().and_then(|n| n.to_str()).map(str::to_owned) else {
                continue;
            };
            if path.is_dir() {
                let mut child = module.clone();
                child.push(name);
                pending.push((path, child));
            } else if name.ends_with(".rs") {
                let text = std::fs::read_to_string(&path)
                    .map_err(|source| Error::Io { path: path.clone(), source })?;
                // Any impl of the trait names it; most files are plain structs, and parsing
                // those is most of the time discovery would take.
                if !text.contains("ListableResource") {
                    continue;
                }
                let impls = trait_impls(&text)
                    .map_err(|source| Error::Parse { path: path.clone(), source })?;
                found.extend(resources_in_impls(&impls, &module, &path)?);
            }
        }
    }
    found.sort_by(|a, b| a.rust_path.cmp(&b.rust_path));
    Ok(found)
}

/// The entries of `dir`, sorted by path.
pub(super) fn read_dir_sorted(dir: &Path) -> Result<Vec<PathBuf>> {
    let io_error = |source| Error::Io { path: dir.to_owned(), source };
    let mut paths = std::fs::read_dir(dir)
        .map_err(io_error)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(io_error)?;
    paths.sort();
    Ok(paths)
}
