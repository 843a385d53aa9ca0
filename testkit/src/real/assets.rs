//! Finding the etcd and kube-apiserver binaries a [`RealApiServer`](super::RealApiServer)
//! runs.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The Kubernetes release `make real-server` builds (`realserver/go.mod` pins it; a unit test
/// keeps the two equal).
pub const REAL_SERVER_VERSION: &str = "v1.36.3";

/// Set by the Makefile to the folder `make real-server` built into; wins over everything else.
pub const BIN_DIR_ENV: &str = "KUBE_INFORMERS_REAL_SERVER_BIN";

/// controller-runtime envtest's convention: a folder holding `etcd` and `kube-apiserver`.
pub const KUBEBUILDER_ASSETS_ENV: &str = "KUBEBUILDER_ASSETS";

/// The two binaries of a control plane.
#[derive(Debug, Clone)]
pub(crate) struct Binaries {
    pub(crate) etcd: PathBuf,
    pub(crate) apiserver: PathBuf,
}

/// Where `make real-server` keeps its builds: `$XDG_CACHE_HOME/kube-informers/realserver`,
/// else `$HOME/.cache/kube-informers/realserver`. `current` there links to the newest build.
pub fn cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))?;
    Some(base.join("kube-informers").join("realserver"))
}

impl Binaries {
    /// Looks in `$KUBE_INFORMERS_REAL_SERVER_BIN`, then `$KUBEBUILDER_ASSETS`, then the cache
    /// folder's `current` build, and names every place it looked when none has both binaries.
    pub(crate) fn locate() -> Result<Binaries> {
        let mut tried = Vec::new();
        let candidates = [
            std::env::var_os(BIN_DIR_ENV).map(PathBuf::from),
            std::env::var_os(KUBEBUILDER_ASSETS_ENV).map(PathBuf::from),
            cache_dir().map(|dir| dir.join("current")),
        ];
        for dir in candidates.into_iter().flatten().filter(|d| !d.as_os_str().is_empty()) {
            match Binaries::in_dir(&dir) {
                Some(found) => return Ok(found),
                None => tried.push(dir.display().to_string()),
            }
        }
        Err(Error::RealServerMissing { tried })
    }

    fn in_dir(dir: &Path) -> Option<Binaries> {
        let etcd = dir.join("etcd");
        let apiserver = dir.join("kube-apiserver");
        (etcd.is_file() && apiserver.is_file()).then_some(Binaries { etcd, apiserver })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_matches_the_go_module_that_builds_it() {
        let go_mod = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../realserver/go.mod"),
        )
        .expect("realserver/go.mod");
        let pinned = go_mod
            .lines()
            .map(str::trim)
            .find_map(|line| line.strip_prefix("k8s.io/kubernetes "))
            .expect("go.mod requires k8s.io/kubernetes");
        assert_eq!(pinned.trim(), REAL_SERVER_VERSION);
    }

    #[test]
    fn a_folder_needs_both_binaries() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Binaries::in_dir(dir.path()).is_none());
        std::fs::write(dir.path().join("etcd"), "").unwrap();
        assert!(Binaries::in_dir(dir.path()).is_none());
        std::fs::write(dir.path().join("kube-apiserver"), "").unwrap();
        let found = Binaries::in_dir(dir.path()).unwrap();
        assert_eq!(found.apiserver, dir.path().join("kube-apiserver"));
    }
}
