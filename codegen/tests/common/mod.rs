//! The real k8s-openapi model the workspace locks, shared by the integration tests.
// Each test crate uses a subset of these helpers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use codegen::model::{ApiResource, KubeVersion, Model};

pub(crate) fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_owned()
}

pub(crate) fn real_model() -> Model {
    let src = codegen::discover::locate_k8s_openapi(&workspace_root().join("Cargo.toml")).unwrap();
    codegen::discover::discover(&src).unwrap()
}

/// The k8s-openapi module of `model`'s latest Kubernetes version (such as `src/v1_37`).
pub(crate) fn latest_version_dir(model: &Model) -> PathBuf {
    let src = codegen::discover::locate_k8s_openapi(&workspace_root().join("Cargo.toml")).unwrap();
    src.join(format!("v1_{}", model.latest().unwrap().minor))
}

pub(crate) fn find<'a>(
    model: &'a Model,
    group: &str,
    version: &str,
    kind: &str,
) -> &'a ApiResource {
    model
        .resources
        .iter()
        .find(|r| r.group == group && r.version == version && r.kind == kind)
        .unwrap_or_else(|| panic!("{group}/{version} {kind} not discovered"))
}

pub(crate) fn minors(versions: &std::collections::BTreeSet<KubeVersion>) -> Vec<u32> {
    versions.iter().map(|v| v.minor).collect()
}

/// How many impls a generated decoders file holds inside its version gates; panics on an
/// item outside them or on a gate whose body is not Rust.
pub(crate) fn impls_inside_gates(contents: &str) -> usize {
    let file: syn::File = syn::parse_file(contents).unwrap();
    let mut impls = 0;
    for item in &file.items {
        let syn::Item::Macro(gate) = item else { panic!("an item outside the version gates") };
        let body: syn::File = gate.mac.parse_body().unwrap();
        impls += body.items.iter().filter(|i| matches!(i, syn::Item::Impl(_))).count();
    }
    impls
}

/// Fails unless the file at `path` (from the workspace root) holds `contents`.
pub(crate) fn assert_committed(path: &str, contents: &str) {
    let difference = codegen::output::check_file(&workspace_root(), path, contents).unwrap();
    assert_eq!(difference, None, "run `cargo run -p codegen`");
}

/// Fails unless every type a generated `decoder` looks up is a listable resource of the
/// model's latest version; how many it looks up.
pub(crate) fn decoders_are_listable(model: &Model, contents: &str) -> usize {
    let latest = model.latest().unwrap();
    let resources: Vec<String> = model.resources_in(latest).map(|r| r.rust_path_string()).collect();
    let mut checked = 0;
    for line in contents.lines() {
        let Some(rest) = line.trim().strip_prefix("if id == TypeId::of::<") else { continue };
        let ty = rest.split('>').next().unwrap_or_default();
        assert!(resources.iter().any(|r| r == ty), "{ty} is not a listable resource in {latest}");
        checked += 1;
    }
    checked
}
