//! The side-by-side benchmark (`make bench`): starts the testkit API server in its own
//! process, runs each `bench_client` mode in its own process, applies the event-phase
//! updates, prints one table and writes the same data as JSON.
//!
//! ```text
//! bench_driver [--pods 10000] [--configmaps 50000] [--events 5000] [--out target/bench/results.json]
//!              [--modes ours,ours-strip,metadata,kube-rt] [--bin-dir target/release]
//! ```

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::Client;
use kube::api::Api;
use kube::config::{KubeConfigOptions, Kubeconfig};
use serde_json::{Value, json};

type BoxError = Box<dyn std::error::Error>;

struct Args {
    pods: usize,
    configmaps: usize,
    events: usize,
    out: PathBuf,
    modes: Vec<String>,
    bin_dir: PathBuf,
}

fn parse_args() -> Result<Args, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut args = Args {
        pods: 10_000,
        configmaps: 50_000,
        events: 5_000,
        out: PathBuf::from("target/bench/results.json"),
        modes: ["ours", "ours-strip", "metadata", "kube-rt"].map(String::from).to_vec(),
        bin_dir: exe.parent().map(Path::to_path_buf).unwrap_or_default(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        let number = |v: String| v.parse::<usize>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--pods" => args.pods = number(value()?)?,
            "--configmaps" => args.configmaps = number(value()?)?,
            "--events" => args.events = number(value()?)?,
            "--out" => args.out = PathBuf::from(value()?),
            "--modes" => args.modes = value()?.split(',').map(String::from).collect(),
            "--bin-dir" => args.bin_dir = PathBuf::from(value()?),
            other => return Err(format!("unknown flag {other:?}")),
        }
    }
    Ok(args)
}

/// The testkit server process; killed on drop.
struct Server {
    child: Child,
    kubeconfig: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_server(args: &Args, dir: &Path) -> Result<Server, BoxError> {
    let kubeconfig = dir.join("kubeconfig");
    let mut command = Command::new(args.bin_dir.join("kube-informers-testkit"));
    command.args(["serve", "--addr", "127.0.0.1:0", "--no-auth", "--history", "200000"]);
    command.arg("--kubeconfig").arg(&kubeconfig);
    if args.pods > 0 {
        command.arg("--seed").arg(format!("pods={}", args.pods));
    }
    if args.configmaps > 0 {
        command.arg("--seed").arg(format!("configmaps={}", args.configmaps));
    }
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn()?;
    let stdout = child.stdout.take().ok_or("server stdout")?;
    let mut server = Server { child, kubeconfig };
    for line in BufReader::new(stdout).lines() {
        let line = line?;
        eprintln!("server: {line}");
        if line.starts_with("kubeconfig:") {
            return Ok(server);
        }
    }
    let _ = server.child.wait();
    Err("the testkit server exited before it was ready".into())
}

/// One running client and its JSON lines.
struct ClientProcess {
    child: Child,
    stdin: ChildStdin,
    lines: std::io::Lines<BufReader<ChildStdout>>,
}

impl ClientProcess {
    fn spawn(
        args: &Args,
        server: &Server,
        mode: &str,
        kind: &str,
        count: usize,
        events: usize,
    ) -> Result<Self, BoxError> {
        let mut child = Command::new(args.bin_dir.join("bench_client"))
            .args(["--mode", mode, "--kind", kind, "--count", &count.to_string()])
            .args(["--events", &events.to_string()])
            .arg("--kubeconfig")
            .arg(&server.kubeconfig)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
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

async fn kube_client(kubeconfig: &Path) -> Result<Client, BoxError> {
    let kubeconfig = Kubeconfig::read_from(kubeconfig)?;
    let config =
        kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default()).await?;
    Ok(Client::try_from(config)?)
}

/// Has the server apply `events` updates itself (testkit's `POST /testkit/bulk-update`: one
/// annotation change, one resourceVersion and one MODIFIED event per update), so the event
/// phase measures the clients rather than the driver's HTTP requests; returns the wall time.
async fn apply_updates(client: &Client, events: usize) -> Result<Duration, BoxError> {
    let start = Instant::now();
    let request = http::Request::post(format!(
        "/testkit/bulk-update?resource=pods&namespace=default&count={events}"
    ))
    .body(Vec::new())?;
    let report: Value = serde_json::from_str(&client.request_text(request).await?)?;
    if report["updated"].as_u64() != Some(events as u64) {
        return Err(format!("bulk update applied {} of {events}", report["updated"]).into());
    }
    Ok(start.elapsed())
}

/// Runs one client mode through its sync (and, for Pods, its event phase).
async fn run_client(
    args: &Args,
    server: &Server,
    kube: &Client,
    mode: &str,
    kind: &str,
    count: usize,
) -> Result<Value, BoxError> {
    let events = if kind == "pods" { args.events } else { 0 };
    let mut process = ClientProcess::spawn(args, server, mode, kind, count, events)?;
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
            let apply = apply_updates(kube, events).await?;
            let mut done = process.next()?;
            done["apply_wall_s"] = json!(apply.as_secs_f64());
            let handlers = done["handlers"].as_u64();
            event_rounds.push(done);
            if handlers == Some(10) || mode == "kube-rt" {
                break;
            }
        }
    }
    process.finish()?;
    result["events"] = Value::Array(event_rounds);
    Ok(result)
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

fn mb(bytes: f64) -> String {
    format!("{:.0} MB", bytes / 1e6)
}

/// Prints one round's table and returns it as JSON.
fn print_table(kind: &str, floor: &Value, rows: &[Value]) -> Value {
    let kube_rt = rows.iter().find(|r| r["mode"] == "kube-rt");
    let ratio = |row: &Value, field: &str| match kube_rt {
        Some(base) => num(&row[field]) / num(&base[field]),
        None => f64::NAN,
    };
    let floor_cpu = num(&floor["decode_cpu_s"]);
    println!();
    println!(
        "== {kind}: {} objects, list body {} (floor: serde_json decode {:.3} s wall, {:.2} s CPU, decoded heap ≈ {:.1} KB/object)",
        floor["count"],
        mb(num(&floor["body_bytes"])),
        num(&floor["decode_wall_s"]),
        num(&floor["decode_cpu_s"]),
        num(&floor["decoded_heap_per_object"]) / 1e3,
    );
    println!(
        "{:<11} {:>9} {:>8} {:>9} {:>10} {:>9} {:>9} | {:>6} {:>6} {:>6} {:>6} | {:>9} {:>9} {:>9} {:>8}",
        "client",
        "sync wall",
        "CPU",
        "peak RSS",
        "steady RSS",
        "KB/obj",
        "CPU/floor",
        "wall×",
        "CPU×",
        "peak×",
        "stdy×",
        "ev 1h",
        "ev 10h",
        "apply",
        "µs/ev 1h",
    );
    let mut table = Vec::new();
    for row in rows {
        let events = row["events"].as_array().cloned().unwrap_or_default();
        let ev = |handlers: u64| {
            events
                .iter()
                .find(|e| e["handlers"].as_u64() == Some(handlers))
                .map(|e| num(&e["wall_s"]))
        };
        let fmt_ev = |v: Option<f64>| v.map(|s| format!("{s:.3} s")).unwrap_or("-".into());
        let apply = events.first().map(|e| num(&e["apply_wall_s"]));
        let cpu = num(&row["cpu_s"]);
        println!(
            "{:<11} {:>7.3} s {:>6.2} s {:>9} {:>10} {:>9.1} {:>9.2} | {:>6.2} {:>6.2} {:>6.2} {:>6.2} | {:>9} {:>9} {:>9} {:>8}",
            row["mode"].as_str().unwrap_or("?"),
            num(&row["sync_wall_s"]),
            cpu,
            mb(num(&row["peak_rss_bytes"])),
            mb(num(&row["steady_rss_bytes"])),
            num(&row["steady_rss_per_object"]) / 1e3,
            cpu / floor_cpu,
            ratio(row, "sync_wall_s"),
            ratio(row, "cpu_s"),
            ratio(row, "peak_rss_bytes"),
            ratio(row, "steady_rss_bytes"),
            fmt_ev(ev(1)),
            fmt_ev(ev(10)),
            fmt_ev(apply),
            events
                .first()
                .map(|e| format!("{:.0}", num(&e["cpu_us_per_event"])))
                .unwrap_or("-".into()),
        );
        let mut entry = row.clone();
        entry["cpu_over_floor"] = json!(cpu / floor_cpu);
        entry["vs_kube_runtime"] = json!({
            "sync_wall": ratio(row, "sync_wall_s"),
            "cpu": ratio(row, "cpu_s"),
            "peak_rss": ratio(row, "peak_rss_bytes"),
            "steady_rss": ratio(row, "steady_rss_bytes"),
        });
        table.push(entry);
    }
    println!(
        "(×: ours / kube-runtime from this run; ev: time from the first update sent until 1 / 10 handlers (kube-rt: its store) saw all; apply: time the server took to apply the updates (bulk); µs/ev: client CPU per event with one handler)"
    );
    json!({"kind": kind, "floor": floor, "clients": table})
}

async fn run(args: Args) -> Result<(), BoxError> {
    let dir = std::env::temp_dir().join(format!("kube-informers-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let started = Instant::now();
    let server = start_server(&args, &dir)?;
    eprintln!("server ready after {:.1} s", started.elapsed().as_secs_f64());
    let kube = kube_client(&server.kubeconfig).await?;
    // Warm the server (its first list renders every object once).
    let _ = Api::<Pod>::all(kube.clone()).list(&Default::default()).await?;
    let mut rounds = Vec::new();
    for (kind, count) in [("pods", args.pods), ("configmaps", args.configmaps)] {
        if count == 0 {
            continue;
        }
        if kind == "configmaps" {
            let _ = Api::<ConfigMap>::all(kube.clone()).list(&Default::default()).await?;
        }
        let mut floor_process = ClientProcess::spawn(&args, &server, "floor", kind, count, 0)?;
        let floor = floor_process.next()?;
        floor_process.finish()?;
        let mut rows = Vec::new();
        for mode in &args.modes {
            eprintln!("running {mode} on {count} {kind}");
            let row = run_client(&args, &server, &kube, mode, kind, count).await?;
            rows.push(row);
        }
        rounds.push(print_table(kind, &floor, &rows));
    }
    if let Some(parent) = args.out.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let results = json!({
        "events": args.events,
        "total_wall_s": started.elapsed().as_secs_f64(),
        "rounds": rounds,
    });
    std::fs::write(&args.out, serde_json::to_string_pretty(&results)?)?;
    println!("\nwrote {} ({:.0} s in all)", args.out.display(), started.elapsed().as_secs_f64());
    drop(server);
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
