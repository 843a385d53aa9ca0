//! `kube-informers-testkit serve`: run the in-memory API server as a process, for kubectl,
//! demos and benchmarks.
//!
//! ```text
//! kube-informers-testkit serve [--addr 127.0.0.1:0] [--seed pods=10000]... [--seed-namespace default]
//!                              [--kubeconfig PATH] [--token TOKEN | --no-auth]
//!                              [--bookmark-interval 1m | --bookmark-interval-ms 60000] [--history 10000]
//! ```
//!
//! Flags are parsed by clap (`--help` lists them); durations take humantime units.
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

use clap::{Args, Parser, Subcommand};
use kube_informers_testkit::{SeedKind, TestApiServer};

/// The in-memory Kubernetes API server of kube-informers-testkit, run as a process.
#[derive(Debug, Parser)]
#[command(name = "kube-informers-testkit", version, subcommand_required = true)]
#[command(arg_required_else_help = true)]
struct Cli {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Serves the API until SIGINT or SIGTERM, printing its URL, kubeconfig path and token.
    Serve(ServeArgs),
}

/// The flags of `serve`.
#[derive(Debug, Args)]
struct ServeArgs {
    /// The address to listen on; port 0 picks a free port.
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:0")]
    addr: SocketAddr,
    /// Seeds COUNT objects of KIND (pods, configmaps or deployments); repeatable.
    #[arg(long = "seed", value_name = "KIND=COUNT", value_parser = parse_seed)]
    seeds: Vec<(SeedKind, usize)>,
    /// The namespace the seeded objects go into.
    #[arg(long, value_name = "NS", default_value = "default")]
    seed_namespace: String,
    /// Writes the kubeconfig here (default: a temporary file, printed at start).
    #[arg(long, value_name = "PATH")]
    kubeconfig: Option<PathBuf>,
    /// The bearer token every request must carry (default: a random one, printed at start).
    #[arg(long, value_name = "TOKEN", conflicts_with = "no_auth")]
    token: Option<String>,
    /// Accepts requests without a bearer token (kubectl sends none over plain HTTP).
    #[arg(long)]
    no_auth: bool,
    /// Sends watch bookmarks this often (500ms, 1m30s; default: the server's own, 1m).
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    #[arg(conflicts_with = "bookmark_interval_ms")]
    bookmark_interval: Option<Duration>,
    /// The same as --bookmark-interval, in milliseconds.
    #[arg(long, value_name = "MS")]
    bookmark_interval_ms: Option<u64>,
    /// Watch events kept for resuming watches (default: the server's own, 10000).
    #[arg(long, value_name = "N")]
    history: Option<usize>,
}

impl ServeArgs {
    /// The bearer token to require: none with `--no-auth`, else `--token` or a random one.
    fn token(&self) -> Option<String> {
        match (&self.token, self.no_auth) {
            (_, true) => None,
            (Some(token), false) => Some(token.clone()),
            (None, false) => Some(random_token()),
        }
    }

    /// The bookmark interval from either flag.
    fn bookmark_interval(&self) -> Option<Duration> {
        self.bookmark_interval.or(self.bookmark_interval_ms.map(Duration::from_millis))
    }
}

fn random_token() -> String {
    (0..4).map(|_| format!("{:08x}", rand::random::<u32>())).collect()
}

/// Parses `--seed KIND=COUNT`.
fn parse_seed(spec: &str) -> Result<(SeedKind, usize), String> {
    let (kind, count) = spec.split_once('=').ok_or("expected KIND=COUNT, e.g. pods=100")?;
    let kind = SeedKind::parse(kind)
        .ok_or(format!("unknown kind {kind:?} (pods, configmaps or deployments)"))?;
    let count = count.parse().map_err(|e| format!("count {count:?}: {e}"))?;
    Ok((kind, count))
}

async fn serve(args: ServeArgs) -> Result<(), Box<dyn std::error::Error>> {
    let mut builder = TestApiServer::builder().addr(args.addr);
    if let Some(token) = args.token() {
        builder = builder.bearer_token(token);
    }
    if let Some(interval) = args.bookmark_interval() {
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
    // A bad command line prints clap's error and exits with 2; --help and --version exit 0.
    let Command::Serve(args) = Cli::parse().command;
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
    use clap::error::ErrorKind;

    use super::*;

    fn parse(args: &[&str]) -> Result<ServeArgs, clap::Error> {
        let argv = std::iter::once("kube-informers-testkit").chain(args.iter().copied());
        Cli::try_parse_from(argv).map(|cli| match cli.command {
            Command::Serve(args) => args,
        })
    }

    fn error(args: &[&str]) -> ErrorKind {
        parse(args).expect_err("rejected").kind()
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
            "--history",
            "200000",
        ])
        .expect("valid");
        assert_eq!(args.addr.port(), 8080);
        assert_eq!(args.seeds, vec![(SeedKind::Pods, 10), (SeedKind::ConfigMaps, 2)]);
        assert!(args.token().is_none());
        assert_eq!(args.kubeconfig, Some(PathBuf::from("/tmp/k")));
        assert_eq!(args.history, Some(200_000));
    }

    #[test]
    fn serve_defaults_to_a_random_token_on_a_free_local_port() {
        let args = parse(&["serve"]).expect("defaults");
        assert_eq!(args.addr, SocketAddr::from(([127, 0, 0, 1], 0)));
        assert_eq!(args.seed_namespace, "default");
        assert!(args.seeds.is_empty() && args.kubeconfig.is_none() && args.history.is_none());
        assert!(args.bookmark_interval().is_none());
        assert!(args.token().is_some_and(|t| t.len() == 32));
        let given = parse(&["serve", "--token", "secret"]).expect("token");
        assert_eq!(given.token().as_deref(), Some("secret"));
    }

    #[test]
    fn bookmark_interval_takes_a_duration_or_milliseconds() {
        let interval = |args: &[&str]| parse(args).expect("valid").bookmark_interval();
        assert_eq!(
            interval(&["serve", "--bookmark-interval", "1m30s"]),
            Some(Duration::from_secs(90))
        );
        assert_eq!(
            interval(&["serve", "--bookmark-interval-ms", "200"]),
            Some(Duration::from_millis(200))
        );
    }

    #[test]
    fn bad_command_lines_are_usage_errors() {
        assert_eq!(error(&["serve", "--seed", "widgets=1"]), ErrorKind::ValueValidation);
        assert_eq!(error(&["serve", "--seed", "pods"]), ErrorKind::ValueValidation);
        assert_eq!(error(&["serve", "--seed", "pods=-1"]), ErrorKind::ValueValidation);
        assert_eq!(error(&["serve", "--addr", "nowhere"]), ErrorKind::ValueValidation);
        assert_eq!(error(&["serve", "--bookmark-interval", "soon"]), ErrorKind::ValueValidation);
        assert_eq!(error(&["serve", "--token", "t", "--no-auth"]), ErrorKind::ArgumentConflict);
        assert_eq!(error(&["serve", "--bogus"]), ErrorKind::UnknownArgument);
        assert_eq!(error(&["launch"]), ErrorKind::InvalidSubcommand);
        assert_eq!(error(&[]), ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand);
        assert_eq!(parse(&["serve", "--history", "x"]).expect_err("bad").exit_code(), 2);
    }
}
