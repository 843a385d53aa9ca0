//! The driver's command line: which server, how many objects, which client modes, where
//! the binaries and the results are.

use std::path::{Path, PathBuf};

/// The driver's command line.
pub(crate) struct Args {
    /// `testkit` (default) or `real`.
    pub(crate) server: String,
    /// Pods to seed and sync, one round per count (0: skip the Pod round). More than one
    /// count (`--pods 10000,100000`, increasing; the real server only) measures the same
    /// server at each size in turn, seeding the difference between rounds.
    pub(crate) pods: Vec<usize>,
    /// ConfigMaps to seed and sync (0: skip the ConfigMap round).
    pub(crate) configmaps: usize,
    /// Pod updates per event round.
    pub(crate) events: usize,
    /// Where the JSON results go.
    pub(crate) out: PathBuf,
    /// Client modes, in the order they run.
    pub(crate) modes: Vec<String>,
    /// Folder of `bench_client` and `kube-informers-testkit`.
    pub(crate) bin_dir: PathBuf,
    /// The Go client-go bench client (`conformance/cmd/benchclient`).
    pub(crate) client_go_bin: PathBuf,
    /// Runs of every mode; the table shows the medians.
    pub(crate) repeat: usize,
}

/// Parses the process's arguments; defaults fill in every flag not given.
pub(crate) fn parse_args() -> Result<Args, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let bin_dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut args = Args {
        server: "testkit".into(),
        pods: vec![10_000],
        configmaps: 50_000,
        events: 5_000,
        out: PathBuf::from("target/bench/results.json"),
        modes: Vec::new(),
        client_go_bin: bin_dir.join("benchclient"),
        bin_dir,
        repeat: 1,
    };
    let mut modes = None;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        let number = |v: String| v.parse::<usize>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--server" => args.server = value()?,
            "--pods" => {
                args.pods =
                    value()?.split(',').map(|v| number(v.to_string())).collect::<Result<_, _>>()?
            }
            "--configmaps" => args.configmaps = number(value()?)?,
            "--events" => args.events = number(value()?)?,
            "--out" => args.out = PathBuf::from(value()?),
            "--modes" => modes = Some(value()?.split(',').map(String::from).collect()),
            "--bin-dir" => args.bin_dir = PathBuf::from(value()?),
            "--client-go-bin" => args.client_go_bin = PathBuf::from(value()?),
            "--repeat" => args.repeat = number(value()?)?.max(1),
            other => return Err(format!("unknown flag {other:?}")),
        }
    }
    let default_modes: &[&str] = match args.server.as_str() {
        "testkit" => &["ours", "ours-strip", "ours-compact", "metadata", "kube-rt"],
        "real" => &[
            "ours",
            "ours-strip",
            "ours-protobuf",
            "ours-compact",
            "ours-compact-protobuf",
            "metadata",
            "kube-rt",
            "client-go-protobuf",
            "client-go-json",
        ],
        other => return Err(format!("--server {other:?}: expected testkit or real")),
    };
    if args.pods.windows(2).any(|pair| pair[0] >= pair[1]) {
        return Err(format!("--pods {:?}: the counts must increase", args.pods));
    }
    if args.pods.len() > 1 && args.server != "real" {
        return Err(
            "--pods with several counts needs --server real (testkit seeds once, at start)".into(),
        );
    }
    args.modes = modes.unwrap_or_else(|| default_modes.iter().map(|m| m.to_string()).collect());
    Ok(args)
}
