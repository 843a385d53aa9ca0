//! The side-by-side benchmark (`make bench`, `make bench-real`): starts an API server (the
//! testkit CLI in its own process, or with `--server real` a real kube-apiserver + etcd),
//! runs each client mode in its own process, applies the event-phase updates, prints one
//! table per kind and writes the same data as JSON.
//!
//! ```text
//! bench_driver [--server testkit|real] [--pods 10000[,50000,...]] [--configmaps 50000] [--events 5000]
//!              [--out target/bench/results.json] [--modes ours,ours-strip,ours-compact,metadata,kube-rt]
//!              [--bin-dir target/release] [--client-go-bin PATH] [--repeat 1]
//! ```
//!
//! `ours-protobuf` is `ours` with the factory's `protobuf()` (the real server only: testkit
//! speaks JSON). Modes `client-go-protobuf` and `client-go-json` run the Go client of
//! `conformance/cmd/benchclient` (`--client-go-bin`); every other mode runs `bench_client`.
//! With `--repeat N` every mode runs N times (round-robin) and the table shows medians.
//! With several Pod counts (the real server only) the same server is measured at each, the
//! difference seeded between rounds, and a last table compares each mode's cost per object
//! at every count with its cost at the first. That table's first row, `pages`, is the
//! machine's: a process with no informer that receives the same list from the server and
//! writes as many fresh pages per object received as the typed informers fault in, run
//! once per turn beside the clients (`bench_client --mode pages`).
//! Last, issue 18's acceptance ratios that the run's modes decide, each met or missed
//! (`targets` in the JSON).

mod args;
mod error;
mod server;
mod table;
mod targets;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::Client;
use kube::api::Api;
use serde_json::{Value, json};

use args::{Args, parse_args};
use error::BoxError;
use server::{Backend, SeedTimes};

/// Modes of ours that run a second event round with ten handlers.
const TEN_HANDLER_MODES: [&str; 7] = [
    "ours",
    "ours-strip",
    "ours-protobuf",
    "ours-protobuf-strip",
    "ours-compact",
    "ours-compact-protobuf",
    "metadata",
];

/// One running client and its JSON lines.
struct ClientProcess {
    child: Child,
    stdin: ChildStdin,
    lines: std::io::Lines<BufReader<ChildStdout>>,
}

impl ClientProcess {
    fn spawn(
        args: &Args,
        kubeconfig: &Path,
        mode: &str,
        kind: &str,
        count: usize,
        events: usize,
    ) -> Result<Self, BoxError> {
        let program = if mode.starts_with("client-go") {
            args.client_go_bin.clone()
        } else {
            args.bin_dir.join("bench_client")
        };
        let mut child = Command::new(&program)
            .args(["--mode", mode, "--kind", kind, "--count", &count.to_string()])
            .args(["--events", &events.to_string()])
            .arg("--kubeconfig")
            .arg(kubeconfig)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("{}: {e}", program.display()))?;
        let stdin = child.stdin.take().ok_or("client stdin")?;
        let stdout = child.stdout.take().ok_or("client stdout")?;
        Ok(ClientProcess { child, stdin, lines: BufReader::new(stdout).lines() })
    }

    fn next(&mut self) -> Result<Value, BoxError> {
        let line = self.lines.next().ok_or("the client exited early")??;
        Ok(serde_json::from_str(&line)?)
    }

    fn go(&mut self) -> Result<(), BoxError> {
        writeln!(self.stdin, "go")?;
        self.stdin.flush()?;
        Ok(())
    }

    fn finish(mut self) -> Result<(), BoxError> {
        drop(self.stdin);
        let status = self.child.wait()?;
        if !status.success() {
            return Err(format!("client exited with {status}").into());
        }
        Ok(())
    }
}

/// Runs one client mode through its sync (and, for Pods, its event phase).
async fn run_client(
    args: &Args,
    backend: &Backend,
    kube: &Client,
    mode: &str,
    kind: &str,
    count: usize,
) -> Result<Value, BoxError> {
    let events = if kind == "pods" { args.events } else { 0 };
    let kubeconfig = backend.kubeconfig();
    let mut process = ClientProcess::spawn(args, &kubeconfig, mode, kind, count, events)?;
    let mut result = process.next()?;
    if result["cached"].as_u64() != Some(count as u64) {
        return Err(format!("{mode}: cached {} of {count}", result["cached"]).into());
    }
    let mut event_rounds = Vec::new();
    if events > 0 {
        loop {
            let ready = process.next()?;
            if ready["phase"] != "ready" {
                return Err(format!("{mode}: expected ready, got {ready}").into());
            }
            process.go()?;
            // Give the client a moment to read "go" and reset its counters before the first
            // update can reach it.
            tokio::time::sleep(Duration::from_millis(20)).await;
            let apply = backend.apply_updates(kube, events).await?;
            let mut done = process.next()?;
            done["apply_wall_s"] = json!(apply.as_secs_f64());
            let handlers = done["handlers"].as_u64();
            event_rounds.push(done);
            if handlers == Some(10) || !TEN_HANDLER_MODES.contains(&mode) {
                break;
            }
        }
    }
    process.finish()?;
    result["events"] = Value::Array(event_rounds);
    Ok(result)
}

/// The sync figures a table shows, each the median of its runs.
const MEDIAN_FIELDS: [&str; 7] = [
    "sync_wall_s",
    "cpu_s",
    "sys_s",
    "minor_faults",
    "peak_rss_bytes",
    "steady_rss_bytes",
    "steady_rss_per_object",
];

/// One mode's row from its runs: the run with the median CPU (its event rounds too), with
/// each of [`MEDIAN_FIELDS`] replaced by that field's own median and every run's value kept
/// under `runs`, in the order the runs ran (run `i` of every mode went round together, so
/// [`targets`] can pair them). Every run's event rounds are kept there too (`runs.events`),
/// so that two modes' event phases can be paired run by run as well.
fn median_row(runs: Vec<Value>) -> Value {
    let cpu = |row: &Value| row["cpu_s"].as_f64().unwrap_or(f64::NAN);
    let mut by_cpu: Vec<&Value> = runs.iter().collect();
    by_cpu.sort_by(|a, b| cpu(a).total_cmp(&cpu(b)));
    let mut row = by_cpu[by_cpu.len() / 2].clone();
    let mut all = serde_json::Map::new();
    for field in MEDIAN_FIELDS {
        let in_order: Vec<Option<f64>> = runs.iter().map(|r| r[field].as_f64()).collect();
        let mut values: Vec<f64> = in_order.iter().flatten().copied().collect();
        values.sort_by(f64::total_cmp);
        if let Some(median) = values.get(values.len() / 2) {
            row[field] = json!(median);
        }
        all.insert(field.into(), json!(in_order));
    }
    all.insert("events".into(), runs.iter().map(|run| run["events"].clone()).collect());
    row["runs"] = Value::Object(all);
    row
}

/// How many objects of `kind` the server holds, in every namespace: counted page by page,
/// so that the driver does not hold 100,000 objects' metadata (managedFields included) at once.
async fn object_count(kube: &Client, kind: &str) -> Result<usize, BoxError> {
    let mut params = kube::api::ListParams::default().limit(500);
    let mut count = 0;
    loop {
        let (items, token) = match kind {
            "pods" => {
                let page = Api::<Pod>::all(kube.clone()).list_metadata(&params).await?;
                (page.items.len(), page.metadata.continue_)
            }
            _ => {
                let page = Api::<ConfigMap>::all(kube.clone()).list_metadata(&params).await?;
                (page.items.len(), page.metadata.continue_)
            }
        };
        count += items;
        match token {
            Some(token) if !token.is_empty() => params = params.continue_token(&token),
            _ => return Ok(count),
        }
    }
}

/// The machine's row, one run: `bench_client --mode pages` lists every object as the
/// informers do, decodes none, and writes as many fresh pages per object as the typed
/// informers fault in; the row's CPU is its writing thread's.
fn run_pages(args: &Args, kubeconfig: &Path, kind: &str, count: usize) -> Result<Value, BoxError> {
    eprintln!("running pages (the machine's row) for {count} {kind} (load {:.2})", load_average());
    let mut process = ClientProcess::spawn(args, kubeconfig, "pages", kind, count, 0)?;
    let line = process.next()?;
    process.finish()?;
    Ok(line)
}

/// The machine's 1-minute load average, from `/proc/loadavg`.
fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse().ok()))
        .unwrap_or(f64::NAN)
}

/// One round: every mode (each `args.repeat` times) syncing the `seeded` objects of
/// `kind`, after the floor; prints the round's table and returns it as JSON.
async fn run_round(
    args: &Args,
    backend: &Backend,
    kube: &Client,
    kind: &str,
    seeded: usize,
) -> Result<Value, BoxError> {
    // A real server holds objects of its own beside the seeded ones (a kube-root-ca.crt
    // ConfigMap per namespace): every client syncs all of them.
    let count = if backend.is_real() { object_count(kube, kind).await? } else { seeded };
    if kind == "configmaps" && !backend.is_real() {
        let _ = Api::<ConfigMap>::all(kube.clone()).list(&Default::default()).await?;
    }
    let kubeconfig = backend.kubeconfig();
    let mut floor_process = ClientProcess::spawn(args, &kubeconfig, "floor", kind, count, 0)?;
    let floor = floor_process.next()?;
    floor_process.finish()?;
    // Repetitions go round every mode in turn, so a noisy minute hits all of them alike.
    // Each turn starts one mode later than the one before, so that no mode always runs
    // right after the same one: on a VM, a client that follows a large one gets memory the
    // host still backs and faults more cheaply (tests/BENCH.md).
    let modes = args.modes.len();
    let mut runs: Vec<Vec<Value>> = vec![Vec::new(); modes];
    // With several Pod counts, the machine's row of the scale table: fresh pages written as
    // the list arrives, once per turn, so that it samples the same minutes as the clients.
    let scaling = kind == "pods" && args.pods.len() > 1;
    let mut machine = Vec::new();
    for repetition in 1..=args.repeat {
        if scaling {
            machine.push(run_pages(args, &kubeconfig, kind, count)?);
        }
        for at in (0..modes).map(|i| (i + repetition - 1) % modes) {
            let mode = &args.modes[at];
            eprintln!(
                "running {mode} on {count} {kind}, run {repetition} of {} (load {:.2})",
                args.repeat,
                load_average()
            );
            runs[at].push(run_client(args, backend, kube, mode, kind, count).await?);
        }
    }
    let rows: Vec<Value> = runs.into_iter().map(median_row).collect();
    let mut round = table::print_table(kind, &floor, &rows);
    if scaling {
        round["machine"] = table::per_object(&median_row(machine), count as f64);
    }
    if args.repeat > 1 {
        println!(
            "(each sync figure is the median of {} runs; events from the median-CPU run)",
            args.repeat
        );
    }
    Ok(round)
}

async fn run(args: Args) -> Result<(), BoxError> {
    let dir = std::env::temp_dir().join(format!("kube-informers-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let started = Instant::now();
    let load_at_start = load_average();
    let (mut backend, mut seed_times) = if args.server == "real" {
        Backend::start_real(&args).await?
    } else {
        (Backend::start_testkit(&args, &dir)?, SeedTimes::default())
    };
    eprintln!("server ready after {:.1} s", started.elapsed().as_secs_f64());
    let kube = backend.client().await?;
    if !backend.is_real() {
        // Warm the server (its first list renders every object once).
        let _ = Api::<Pod>::all(kube.clone()).list(&Default::default()).await?;
    }
    let mut rounds = Vec::new();
    for &pods in args.pods.iter().filter(|&&n| n > 0) {
        if backend.is_real() {
            backend.seed_pods_up_to(pods, &mut seed_times).await?;
        }
        rounds.push(run_round(&args, &backend, &kube, "pods", pods).await?);
    }
    if args.configmaps > 0 {
        rounds.push(run_round(&args, &backend, &kube, "configmaps", args.configmaps).await?);
    }
    table::print_scale(&rounds);
    let targets = targets::decide(&rounds);
    let seeding: Vec<Value> = seed_times
        .kinds
        .iter()
        .map(|(kind, count, wall)| json!({"kind": kind, "count": count, "wall_s": wall}))
        .collect();
    for (kind, count, wall) in &seed_times.kinds {
        println!(
            "seeded {count} {kind} through the API in {wall:.1} s ({:.0}/s)",
            *count as f64 / wall
        );
    }
    let load_at_end = load_average();
    println!("load average (1 min): {load_at_start:.2} at the start, {load_at_end:.2} at the end");
    if let Some(parent) = args.out.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let results = json!({
        "server": args.server,
        "events": args.events,
        "repeat": args.repeat,
        "total_wall_s": started.elapsed().as_secs_f64(),
        "load_average": {"start": load_at_start, "end": load_at_end},
        "seeding": seeding,
        "rounds": rounds,
        "targets": targets,
    });
    std::fs::write(&args.out, serde_json::to_string_pretty(&results)?)?;
    println!("\nwrote {} ({:.0} s in all)", args.out.display(), started.elapsed().as_secs_f64());
    drop(backend);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

fn main() -> std::process::ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(error) => {
            eprintln!("bench_driver: {error}");
            return std::process::ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("bench_driver: runtime: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(args)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("bench_driver: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_holds_each_fields_median_and_keeps_the_runs_in_the_order_they_ran() {
        let runs = vec![
            json!({"cpu_s": 3.0, "sys_s": 0.1, "peak_rss_bytes": 10.0, "events": ["third"]}),
            json!({"cpu_s": 1.0, "sys_s": 0.3, "peak_rss_bytes": 30.0, "events": ["first"]}),
            json!({"cpu_s": 2.0, "sys_s": 0.2, "peak_rss_bytes": 20.0, "events": ["second"]}),
        ];
        let row = median_row(runs);
        assert_eq!(row["cpu_s"], json!(2.0));
        assert_eq!(row["sys_s"], json!(0.2));
        assert_eq!(row["peak_rss_bytes"], json!(20.0));
        // The other figures (here the events) are the median-CPU run's.
        assert_eq!(row["events"], json!(["second"]));
        assert_eq!(row["runs"]["cpu_s"], json!([3.0, 1.0, 2.0]));
        assert_eq!(row["runs"]["peak_rss_bytes"], json!([10.0, 30.0, 20.0]));
        assert_eq!(row["runs"]["events"], json!([["third"], ["first"], ["second"]]));
        // A field no run reported stays absent from the row and null in each run.
        assert!(row["sync_wall_s"].is_null());
        assert_eq!(row["runs"]["sync_wall_s"], json!([null, null, null]));
    }
}
