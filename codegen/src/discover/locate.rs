//! Finding the k8s-openapi sources: the `src/` directory of the supported release the
//! workspace locks, read from `cargo metadata`.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::error::{Error, Result, SUPPORTED_K8S_OPENAPI};

/// Runs `cargo metadata` on the workspace of `manifest_path` and returns the `src/`
/// directory of the k8s-openapi package it locks.
pub fn locate_k8s_openapi(manifest_path: &Path) -> Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(manifest_path)
        .output()
        .map_err(Error::CargoMetadataSpawn)?;
    if !output.status.success() {
        return Err(Error::CargoMetadataFailed {
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        });
    }
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).map_err(Error::MetadataJson)?;
    k8s_openapi_src(&metadata)
}

/// Finds the `src/` directory of k8s-openapi `0.29.x` in `cargo metadata` output.
pub fn k8s_openapi_src(metadata: &serde_json::Value) -> Result<PathBuf> {
    let packages = metadata.get("packages").and_then(|p| p.as_array());
    let wanted_prefix = format!("{SUPPORTED_K8S_OPENAPI}.");
    packages
        .into_iter()
        .flatten()
        .filter(|p| p.get("name").and_then(|n| n.as_str()) == Some("k8s-openapi"))
        .filter(|p| {
            p.get("version").and_then(|v| v.as_str()).is_some_and(|v| v.starts_with(&wanted_prefix))
        })
        .find_map(|p| p.get("manifest_path").and_then(|m| m.as_str()))
        .and_then(|manifest| Path::new(manifest).parent().map(|dir| dir.join("src")))
        .ok_or(Error::K8sOpenapiNotLocked)
}
