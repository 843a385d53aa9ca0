//! Writing the generated directory, or checking that it is current.
//!
//! The generated directory belongs to the generator entirely: any file in it that the
//! generator did not emit is extra, deleted by [`write()`] and reported by [`check()`].

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::emit::GeneratedFile;

/// Errors of writing and checking.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file or directory could not be read, written or removed.
    #[error("could not {action} {}", path.display())]
    Io {
        /// What was attempted.
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// Result of writing and checking.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// How one file on disk differs from what the generator emits.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Difference {
    /// The file exists with other contents.
    Stale(String),
    /// The generator emits the file but it does not exist.
    Missing(String),
    /// The file exists but the generator no longer emits it.
    Extra(String),
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Difference::Stale(path) => write!(f, "stale:   {path}"),
            Difference::Missing(path) => write!(f, "missing: {path}"),
            Difference::Extra(path) => write!(f, "extra:   {path}"),
        }
    }
}

/// Every difference between `dir` and `files`, sorted by path.
pub fn check(dir: &Path, files: &[GeneratedFile]) -> Result<Vec<Difference>> {
    let mut on_disk = existing_files(dir)?;
    let mut differences = Vec::new();
    for file in files {
        match on_disk.remove(&file.path) {
            None => differences.push(Difference::Missing(file.path.clone())),
            Some(path) => {
                let current = std::fs::read(&path).map_err(|source| Error::Io {
                    action: "read",
                    path,
                    source,
                })?;
                if current != file.contents.as_bytes() {
                    differences.push(Difference::Stale(file.path.clone()));
                }
            }
        }
    }
    differences.extend(on_disk.into_keys().map(Difference::Extra));
    differences.sort_by(|a, b| path_of(a).cmp(path_of(b)));
    Ok(differences)
}

fn path_of(difference: &Difference) -> &str {
    match difference {
        Difference::Stale(path) | Difference::Missing(path) | Difference::Extra(path) => path,
    }
}

/// Makes `dir` hold exactly `files`: writes what is missing or stale (leaving current files
/// untouched), deletes extra files and the directories they leave empty. Returns what it changed.
pub fn write(dir: &Path, files: &[GeneratedFile]) -> Result<Vec<Difference>> {
    let differences = check(dir, files)?;
    let by_path: BTreeMap<&str, &GeneratedFile> =
        files.iter().map(|f| (f.path.as_str(), f)).collect();
    for difference in &differences {
        match difference {
            Difference::Stale(path) | Difference::Missing(path) => {
                let target = dir.join(path);
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent).map_err(|source| Error::Io {
                        action: "create",
                        path: parent.to_owned(),
                        source,
                    })?;
                }
                let contents = &by_path[path.as_str()].contents;
                std::fs::write(&target, contents).map_err(|source| Error::Io {
                    action: "write",
                    path: target.clone(),
                    source,
                })?;
            }
            Difference::Extra(path) => {
                let target = dir.join(path);
                std::fs::remove_file(&target).map_err(|source| Error::Io {
                    action: "remove",
                    path: target.clone(),
                    source,
                })?;
                remove_empty_parents(dir, &target)?;
            }
        }
    }
    Ok(differences)
}

/// How the single file `root/relative` differs from `contents`, if it does (a file the
/// generator writes outside a directory it owns).
pub fn check_file(root: &Path, relative: &str, contents: &str) -> Result<Option<Difference>> {
    let path = root.join(relative);
    match std::fs::read(&path) {
        Ok(current) if current == contents.as_bytes() => Ok(None),
        Ok(_) => Ok(Some(Difference::Stale(relative.to_owned()))),
        Err(source) if source.kind() == std::io::ErrorKind::NotFound => {
            Ok(Some(Difference::Missing(relative.to_owned())))
        }
        Err(source) => Err(Error::Io { action: "read", path, source }),
    }
}

/// Writes the single file `root/relative` unless it is current; returns what it changed.
pub fn write_file(root: &Path, relative: &str, contents: &str) -> Result<Option<Difference>> {
    let difference = check_file(root, relative, contents)?;
    if difference.is_some() {
        let path = root.join(relative);
        std::fs::write(&path, contents).map_err(|source| Error::Io {
            action: "write",
            path,
            source,
        })?;
    }
    Ok(difference)
}

fn remove_empty_parents(root: &Path, file: &Path) -> Result<()> {
    let mut current = file.parent();
    while let Some(dir) = current {
        if dir == root || !dir.starts_with(root) {
            break;
        }
        let is_empty = std::fs::read_dir(dir)
            .map_err(|source| Error::Io { action: "read", path: dir.to_owned(), source })?
            .next()
            .is_none();
        if !is_empty {
            break;
        }
        std::fs::remove_dir(dir).map_err(|source| Error::Io {
            action: "remove",
            path: dir.to_owned(),
            source,
        })?;
        current = dir.parent();
    }
    Ok(())
}

/// Files under `dir` by `/`-separated relative path; none when `dir` does not exist.
fn existing_files(dir: &Path) -> Result<BTreeMap<String, PathBuf>> {
    let mut files = BTreeMap::new();
    if !dir.exists() {
        return Ok(files);
    }
    let mut pending = vec![dir.to_owned()];
    while let Some(current) = pending.pop() {
        let entries = std::fs::read_dir(&current).map_err(|source| Error::Io {
            action: "read",
            path: current.clone(),
            source,
        })?;
        for entry in entries {
            let path = entry
                .map_err(|source| Error::Io { action: "read", path: current.clone(), source })?
                .path();
            if path.is_dir() {
                pending.push(path);
            } else if let Ok(relative) = path.strip_prefix(dir) {
                let key = relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                files.insert(key, path);
            }
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, contents: &str) -> GeneratedFile {
        GeneratedFile { path: path.into(), contents: contents.into() }
    }

    #[test]
    fn write_creates_then_check_is_clean() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("generated");
        let files = [file("mod.rs", "a"), file("apps/v1/deployment.rs", "b")];
        let written = write(&out, &files).unwrap();
        assert_eq!(
            written,
            [
                Difference::Missing("apps/v1/deployment.rs".into()),
                Difference::Missing("mod.rs".into())
            ]
        );
        assert_eq!(std::fs::read_to_string(out.join("apps/v1/deployment.rs")).unwrap(), "b");
        assert_eq!(check(&out, &files).unwrap(), []);
        // Idempotent: a second write changes nothing.
        assert_eq!(write(&out, &files).unwrap(), []);
    }

    #[test]
    fn check_names_every_stale_missing_and_extra_file() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[file("mod.rs", "old"), file("gone/v1/x.rs", "x"), file("keep.rs", "k")],
        )
        .unwrap();
        let wanted = [file("mod.rs", "new"), file("keep.rs", "k"), file("apps/mod.rs", "m")];
        let differences = check(dir.path(), &wanted).unwrap();
        assert_eq!(
            differences,
            [
                Difference::Missing("apps/mod.rs".into()),
                Difference::Extra("gone/v1/x.rs".into()),
                Difference::Stale("mod.rs".into()),
            ]
        );
        assert_eq!(differences[1].to_string(), "extra:   gone/v1/x.rs");
    }

    #[test]
    fn write_deletes_extra_files_and_their_empty_directories() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &[file("mod.rs", "a"), file("gone/v1/x.rs", "x")]).unwrap();
        write(dir.path(), &[file("mod.rs", "a")]).unwrap();
        assert!(!dir.path().join("gone").exists());
        assert!(dir.path().join("mod.rs").exists());
        assert_eq!(check(dir.path(), &[file("mod.rs", "a")]).unwrap(), []);
    }

    #[test]
    fn a_single_file_is_missing_then_current_then_stale() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            write_file(dir.path(), "direct.rs", "a").unwrap(),
            Some(Difference::Missing("direct.rs".into()))
        );
        assert_eq!(std::fs::read_to_string(dir.path().join("direct.rs")).unwrap(), "a");
        assert_eq!(check_file(dir.path(), "direct.rs", "a").unwrap(), None);
        assert_eq!(write_file(dir.path(), "direct.rs", "a").unwrap(), None);
        assert_eq!(
            check_file(dir.path(), "direct.rs", "b").unwrap(),
            Some(Difference::Stale("direct.rs".into()))
        );
    }

    #[test]
    fn a_missing_directory_means_every_file_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let differences = check(&dir.path().join("absent"), &[file("mod.rs", "a")]).unwrap();
        assert_eq!(differences, [Difference::Missing("mod.rs".into())]);
    }
}
