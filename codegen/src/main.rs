//! `cargo run -p codegen` regenerates `informers/src/generated/`, then the protobuf
//! decoders `runtime/src/listwatch/protobuf/generated/direct.rs` and the in-place JSON
//! decoders `runtime/src/listwatch/in_place/generated/decoders.rs`;
//! `cargo run -p codegen -- --check` fails, naming every stale, missing or extra file, when
//! they are not current.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use codegen::model::KubeVersion;
use codegen::{discover, emit, in_place, output, plan, proto};

fn main() -> ExitCode {
    let mut check = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--check" => check = true,
            "-h" | "--help" => {
                println!("usage: cargo run -p codegen [-- --check]");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("codegen: unknown argument {other:?} (try --help)");
                return ExitCode::from(2);
            }
        }
    }
    match run(check) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(err) => {
            eprintln!("codegen: error: {err}");
            let mut source = std::error::Error::source(err.as_ref());
            while let Some(cause) = source {
                eprintln!("  caused by: {cause}");
                source = cause.source();
            }
            ExitCode::FAILURE
        }
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_owned).unwrap_or_default()
}

/// Returns whether the generated directory and file are (now) current.
fn run(check: bool) -> Result<bool, Box<dyn std::error::Error>> {
    let root = workspace_root();
    let src = discover::locate_k8s_openapi(&root.join("Cargo.toml"))?;
    let model = discover::discover(&src)?;
    let plan = plan::Plan::new(&model)?;
    let files = emit::emit(&plan)?;

    let latest = model.latest().ok_or("k8s-openapi ships no Kubernetes version")?;
    let listable = model.resources_in(latest).count();
    let informers =
        plan.resources().filter(|(_, _, r)| r.resource.kube_versions.contains(&latest)).count();
    println!(
        "codegen: k8s-openapi at {}: Kubernetes {}..={}; in {latest} (latest): {listable} listable resources, \
         {informers} watchable with informers; {} resources across all versions, {} files",
        src.display(),
        model.earliest().map(|v| v.to_string()).unwrap_or_default(),
        latest,
        plan.resources().count(),
        files.len(),
    );
    for skipped in &plan.not_watchable {
        println!(
            "codegen: no informer for {} ({}): cannot be watched",
            skipped.kind,
            skipped.api_version()
        );
    }

    let dir = root.join("informers/src/generated");
    if check {
        let differences = output::check(&dir, &files)?;
        for difference in &differences {
            eprintln!("codegen: {difference}");
        }
        if differences.is_empty() {
            println!("codegen: {} is current", dir.display());
        } else {
            eprintln!(
                "codegen: {} differences; run `cargo run -p codegen` (or `make generate`)",
                differences.len()
            );
        }
        let decoders = run_decoders(&root, &src, latest, check)?;
        Ok(differences.is_empty() && decoders)
    } else {
        let changed = output::write(&dir, &files)?;
        for difference in &changed {
            match difference {
                output::Difference::Extra(path) => println!("codegen: removed {path}"),
                output::Difference::Stale(path) | output::Difference::Missing(path) => {
                    println!("codegen: wrote   {path}")
                }
            }
        }
        println!("codegen: wrote {} ({} files changed)", dir.display(), changed.len());
        run_decoders(&root, &src, latest, check)
    }
}

/// Generates the protobuf and the in-place JSON decoders of Kubernetes `latest` and writes
/// or checks their files; returns whether both are (now) current.
fn run_decoders(
    root: &Path,
    src: &Path,
    latest: KubeVersion,
    check: bool,
) -> Result<bool, Box<dyn std::error::Error>> {
    let version_dir = src.join(format!("v1_{}", latest.minor));
    let direct = proto::generate(&root.join(proto::SCHEMA_PATH), &version_dir, latest)?;
    println!("codegen: protobuf decoders for Kubernetes {latest}: {}", direct.summary());
    for (go_name, skip) in direct.notable_skips() {
        println!("codegen: no protobuf decoder for {go_name}: {skip}");
    }
    let direct_current = settle(root, proto::OUTPUT_PATH, &direct.contents, check)?;
    let in_place = in_place::generate(&version_dir, latest)?;
    println!(
        "codegen: in-place JSON decoders for Kubernetes {latest}: {} structs, {} listable kinds",
        in_place.structs, in_place.listable
    );
    let in_place_current = settle(root, in_place::OUTPUT_PATH, &in_place.contents, check)?;
    Ok(direct_current && in_place_current)
}

/// Checks (`check`) or writes the generated file at `path`; whether it is (now) current.
fn settle(
    root: &Path,
    path: &str,
    contents: &str,
    check: bool,
) -> Result<bool, Box<dyn std::error::Error>> {
    if check {
        let difference = output::check_file(root, path, contents)?;
        match &difference {
            Some(difference) => {
                eprintln!("codegen: {difference}; run `cargo run -p codegen` (or `make generate`)")
            }
            None => println!("codegen: {path} is current"),
        }
        Ok(difference.is_none())
    } else {
        match output::write_file(root, path, contents)? {
            Some(_) => println!("codegen: wrote   {path}"),
            None => println!("codegen: {path} is current"),
        }
        Ok(true)
    }
}
