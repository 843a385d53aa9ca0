//! `kube-informers-testkit serve`: run the in-memory API server as a process, for kubectl,
//! demos and benchmarks.
//!
//! ```text
//! kube-informers-testkit serve [--addr 127.0.0.1:0] [--seed pods=10000]... [--seed-namespace default]
//!                              [--kubeconfig PATH] [--token TOKEN | --no-auth]
//!                              [--bookmark-interval-ms 60000] [--history 10000]
//! ```
//!
//! Besides the Kubernetes API, the server answers one admin route for benchmark drivers
//! (bearer token required like every request):
//! `POST /testkit/bulk-update?resource=pods&namespace=default&count=N` commits `N` updates
//! of existing objects server-side (see `TestApiServer::bulk_touch`) and answers
//! `{"updated":N,"objects":M,"firstResourceVersion":"..","lastResourceVersion":".."}`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use kube_informers_testkit::{SeedKind, TestApiServer};

const USAGE: &str = "usage: kube-informers-testkit serve [--addr 127.0.0.1:0] [--seed KIND=COUNT]... \
[--seed-namespace NS] [--kubeconfig PATH] [--token TOKEN | --no-auth] [--bookmark-interval-ms MS] [--history N]
KIND is pods, configmaps or deployments.";

/// Parsed command line of `serve`.
#[derive(Debug)]
struct ServeArgs {
    addr: SocketAddr,
    seeds: Vec<(SeedKind, usize)>,
    seed_namespace: String,
    kubeconfig: Option<PathBuf>,
    token: Option<String>,
    bookmark_interval: Option<Duration>,
    history: Option<usize>,
}

fn random_token() -> String {
    (0..4).map(|_| format!("{:08x}", rand::random::<u32>())).collect()
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<ServeArgs, String> {
    match args.next().as_deref() {
        Some("serve") => {}
        Some("--help" | "-h" | "help") | None => return Err(USAGE.to_string()),
        Some(other) => return Err(format!("unknown command {other:?}\n{USAGE}")),
    }
    let mut parsed = ServeArgs {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        seeds: Vec::new(),
        seed_namespace: "default".into(),
        kubeconfig: None,
        token: Some(random_token()),
        bookmark_interval: None,
        history: None,
    };
    while let Some(flag) = args.next() {
        let (flag, inline) = match flag.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (flag, None),
        };
        let mut value = |name: &str| {
            inline.clone().or_else(|| args.next()).ok_or(format!("{name} needs a value"))
        };
        match flag.as_str() {
            "--addr" => {
                parsed.addr = value("--addr")?.parse().map_err(|e| format!("--addr: {e}"))?
            }
            "--seed" => {
                let spec = value("--seed")?;
                let (kind, count) =
                    spec.split_once('=').ok_or(format!("--seed {spec:?}: expected KIND=COUNT"))?;
                let kind = SeedKind::parse(kind).ok_or(format!("--seed: unknown kind {kind:?}"))?;
                let count = count.parse().map_err(|e| format!("--seed count: {e}"))?;
                parsed.seeds.push((kind, count));
            }
            "--seed-namespace" => parsed.seed_namespace = value("--seed-namespace")?,
            "--kubeconfig" => parsed.kubeconfig = Some(PathBuf::from(value("--kubeconfig")?)),
            "--token" => parsed.token = Some(value("--token")?),
            "--no-auth" => parsed.token = None,
            "--bookmark-interval-ms" => {
                let ms: u64 = value("--bookmark-interval-ms")?
                    .parse()
                    .map_err(|e| format!("--bookmark-interval-ms: {e}"))?;
                parsed.bookmark_interval = Some(Duration::from_millis(ms));
            }
            "--history" => {
                parsed.history =
                    Some(value("--history")?.parse().map_err(|e| format!("--history: {e}"))?);
            }
            "--help" | "-h" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown flag {other:?}\n{USAGE}")),
        }
    }
    Ok(parsed)
}

async fn serve(args: ServeArgs) -> Result<(), Box<dyn std::error::Error>> {
    let mut builder = TestApiServer::builder().addr(args.addr);
    if let Some(token) = &args.token {
        builder = builder.bearer_token(token.clone());
    }
    if let Some(interval) = args.bookmark_interval {
        builder = builder.bookmark_interval(interval);
    }
    if let Some(history) = args.history {
        builder = builder.history_len(history);
    }
    let server = builder.start().await?;
    for (kind, count) in &args.seeds {
        let report = server.seed().objects(*kind, &args.seed_namespace, *count)?;
        println!("seeded {} {kind:?} into {}", report.count, args.seed_namespace);
    }
    let kubeconfig = match &args.kubeconfig {
        Some(path) => {
            server.write_kubeconfig(path)?;
            path.clone()
        }
        None => server.kubeconfig()?,
    };
    println!("listening on {}", server.url());
    println!("kubeconfig: {}", kubeconfig.display());
    if let Some(token) = server.token() {
        println!("token: {token}");
    }
    wait_for_signal().await;
    server.shutdown().await;
    Ok(())
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("cannot start the tokio runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(serve(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<ServeArgs, String> {
        parse_args(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn parses_serve_flags() {
        let args = parse(&[
            "serve",
            "--addr",
            "127.0.0.1:8080",
            "--seed",
            "pods=10",
            "--seed=configmaps=2",
            "--no-auth",
            "--kubeconfig",
            "/tmp/k",
        ])
        .expect("valid");
        assert_eq!(args.addr.port(), 8080);
        assert_eq!(args.seeds, vec![(SeedKind::Pods, 10), (SeedKind::ConfigMaps, 2)]);
        assert!(args.token.is_none());
        assert_eq!(args.kubeconfig, Some(PathBuf::from("/tmp/k")));
        assert!(parse(&["serve"]).expect("defaults").token.is_some_and(|t| t.len() == 32));
        assert!(parse(&["serve", "--seed", "widgets=1"]).is_err());
        assert!(parse(&["serve", "--bogus"]).is_err());
        assert!(parse(&[]).is_err());
    }
}
