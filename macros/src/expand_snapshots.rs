//! Expansion snapshots: the derive's output for sample inputs, formatted with prettyplease
//! and compared with `tests/snapshots/*.expanded.rs`.
//!
//! They live in the crate because a proc-macro crate exports nothing but its macros, so an
//! integration test could not call the expansion. `UPDATE_SNAPSHOTS=1` writes the files;
//! without it a missing or different snapshot fails the test.

use std::path::PathBuf;

use syn::{DeriveInput, parse_quote};

use crate::expand;

fn check_snapshot(name: &str, input: DeriveInput) {
    let tokens = expand::derive(&input);
    let file: syn::File = match syn::parse2(tokens.clone()) {
        Ok(file) => file,
        Err(error) => panic!("the expansion of {name} is not a Rust file ({error}):\n{tokens}"),
    };
    let actual = prettyplease::unparse(&file);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.expanded.rs"));
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &actual)
            .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!("reading {}: {e}; run with UPDATE_SNAPSHOTS=1 to create it", path.display())
    });
    if expected != actual {
        panic!(
            "the expansion of {name} differs from {}; review it and run with \
             UPDATE_SNAPSHOTS=1 to accept it\n{}",
            path.display(),
            line_diff(&expected, &actual)
        );
    }
}

/// The lines that differ, `-` from the snapshot and `+` from this run, with line numbers.
fn line_diff(expected: &str, actual: &str) -> String {
    let (expected, actual): (Vec<_>, Vec<_>) =
        (expected.lines().collect(), actual.lines().collect());
    let mut diff = String::new();
    for line in 0..expected.len().max(actual.len()) {
        let (old, new) = (expected.get(line), actual.get(line));
        if old != new {
            if let Some(old) = old {
                diff.push_str(&format!("{:>4} - {old}\n", line + 1));
            }
            if let Some(new) = new {
                diff.push_str(&format!("{:>4} + {new}\n", line + 1));
            }
        }
    }
    diff
}

#[test]
fn namespaced_custom_resource() {
    check_snapshot(
        "namespaced_crd",
        parse_quote! {
            #[kube(
                group = "example.com",
                version = "v1",
                kind = "CronTab",
                namespaced,
                shortname = "ct",
                status = "CronTabStatus",
                printcolumn = r#"{"name":"Schedule", "type":"string", "jsonPath":".spec.schedule"}"#,
                crates(kube_core = ::kube::core)
            )]
            #[serde(rename_all = "camelCase")]
            pub struct CronTabSpec {
                pub schedule: String,
            }
        },
    );
}

#[test]
fn cluster_scoped_custom_resource() {
    check_snapshot(
        "cluster_scoped_crd",
        parse_quote! {
            #[kube(group = "example.com", version = "v1alpha1", kind = "ClusterPolicy", root = "Policy")]
            pub(crate) struct PolicySpec {
                pub rules: Vec<String>,
            }
        },
    );
}

#[test]
fn hand_written_root_type() {
    check_snapshot(
        "hand_written",
        parse_quote! {
            #[informer(group = "", version = "v1", kind = "Pod", plural = "pods", namespaced)]
            pub struct MyPod {
                metadata: ObjectMeta,
            }
        },
    );
}

#[test]
fn line_diff_names_the_changed_lines() {
    assert_eq!(line_diff("a\nb\nc", "a\nx\nc\nd"), "   2 - b\n   2 + x\n   4 + d\n");
}
