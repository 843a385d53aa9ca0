//! The API server a benchmark run measures against: the testkit CLI in its own process
//! (seeded by the CLI itself, updates applied by its bulk-update route), or a real
//! kube-apiserver + etcd (seeded through the API, updates applied by concurrent PATCHes).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures::{StreamExt, TryStreamExt};
use kube::Client;
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube_informers_testkit::SeedKind;
use kube_informers_testkit::real::RealApiServer;
use serde_json::{Value, json};

use crate::args::Args;
use crate::error::BoxError;

/// PATCHes in flight at once while the driver applies the event phase's updates to a real
/// server: enough to keep kube-apiserver busy on two cores, well under its default
/// max-mutating-requests-inflight (200).
const PATCH_CONCURRENCY: usize = 64;

/// kube-apiserver's `GOMEMLIMIT`: well above its live heap at 100,000 Pods, so that Go
/// collects before its heap doubles rather than all the time.
const APISERVER_MEMORY_LIMIT: &str = "7GiB";

/// The namespace the real server is seeded in.
const NAMESPACE: &str = "default";

/// The annotation the real-server event phase changes.
const TOUCH_ANNOTATION: &str = "bench.kube-informers.io/touch";

/// A running server; its processes end on drop.
pub(crate) enum Backend {
    /// `kube-informers-testkit serve`, seeded at start.
    Testkit {
        /// The server process, killed on drop.
        child: Child,
        /// Its kubeconfig file.
        kubeconfig: PathBuf,
    },
    /// kube-apiserver + etcd, seeded through the API.
    Real {
        /// The control plane (kills its processes on drop).
        server: Box<RealApiServer>,
        /// Names of the seeded Pods, the targets of the event phase.
        pods: Vec<String>,
        /// Next value of [`TOUCH_ANNOTATION`], so every update changes the object.
        touch: AtomicU64,
    },
}

impl Drop for Backend {
    fn drop(&mut self) {
        if let Backend::Testkit { child, .. } = self {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Seeding times of a real server (absent for testkit, which seeds in-process at start).
#[derive(Debug, Default, Clone)]
pub(crate) struct SeedTimes {
    /// `(kind, objects, wall seconds)` per seeded kind.
    pub(crate) kinds: Vec<(&'static str, usize, f64)>,
}

impl Backend {
    /// Starts the testkit CLI from `args.bin_dir`, seeded with the run's objects.
    pub(crate) fn start_testkit(args: &Args, dir: &Path) -> Result<Backend, BoxError> {
        let kubeconfig = dir.join("kubeconfig");
        let mut command = Command::new(args.bin_dir.join("kube-informers-testkit"));
        command.args(["serve", "--addr", "127.0.0.1:0", "--no-auth", "--history", "200000"]);
        command.arg("--kubeconfig").arg(&kubeconfig);
        if let Some(&pods) = args.pods.first().filter(|&&n| n > 0) {
            command.arg("--seed").arg(format!("pods={pods}"));
        }
        if args.configmaps > 0 {
            command.arg("--seed").arg(format!("configmaps={}", args.configmaps));
        }
        let mut child = command.stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn()?;
        let stdout = child.stdout.take().ok_or("server stdout")?;
        let mut backend = Backend::Testkit { child, kubeconfig };
        for line in BufReader::new(stdout).lines() {
            let line = line?;
            eprintln!("server: {line}");
            if line.starts_with("kubeconfig:") {
                return Ok(backend);
            }
        }
        if let Backend::Testkit { child, .. } = &mut backend {
            let _ = child.wait();
        }
        Err("the testkit server exited before it was ready".into())
    }

    /// Starts a real control plane and seeds it through the API (testkit's realistic Pod
    /// and ConfigMap templates, built client-side, POSTed with bounded concurrency).
    pub(crate) async fn start_real(args: &Args) -> Result<(Backend, SeedTimes), BoxError> {
        // At 100,000 Pods kube-apiserver's RSS reached 10 GB with Go's default GOGC=100,
        // beside a 10 GB client on a 24 GiB machine. Its own CPU is not measured.
        let server = RealApiServer::builder()
            .apiserver_env("GOMEMLIMIT", APISERVER_MEMORY_LIMIT)
            .start()
            .await?;
        let mut times = SeedTimes::default();
        let mut pods = Vec::new();
        for (kind, name, count) in [
            (SeedKind::Pods, "pods", args.pods.first().copied().unwrap_or(0)),
            (SeedKind::ConfigMaps, "configmaps", args.configmaps),
        ] {
            if count == 0 {
                continue;
            }
            let start = Instant::now();
            let report = server.seed(kind, NAMESPACE, count).await?;
            let wall = start.elapsed().as_secs_f64();
            eprintln!("seeded {count} {name} in {wall:.1} s ({:.0}/s)", count as f64 / wall);
            times.kinds.push((name, count, wall));
            if kind == SeedKind::Pods {
                pods = seeded_names(&report.names, "pod-")?;
            }
        }
        Ok((Backend::Real { server: Box::new(server), pods, touch: AtomicU64::new(0) }, times))
    }

    /// Seeds Pods on a real server until it holds `total` seeded ones, for the next round of
    /// a `--pods` list; the time it took goes into `times`.
    pub(crate) async fn seed_pods_up_to(
        &mut self,
        total: usize,
        times: &mut SeedTimes,
    ) -> Result<(), BoxError> {
        let Backend::Real { server, pods, .. } = self else {
            return Err("only a real server is seeded between rounds".into());
        };
        let more = total.saturating_sub(pods.len());
        if more == 0 {
            return Ok(());
        }
        let start = Instant::now();
        let report = server.seed(SeedKind::Pods, NAMESPACE, more).await?;
        let wall = start.elapsed().as_secs_f64();
        eprintln!("seeded {more} more pods in {wall:.1} s ({:.0}/s)", more as f64 / wall);
        times.kinds.push(("pods", more, wall));
        pods.extend(seeded_names(&report.names, "pod-")?);
        Ok(())
    }

    /// The kubeconfig every client process uses.
    pub(crate) fn kubeconfig(&self) -> PathBuf {
        match self {
            Backend::Testkit { kubeconfig, .. } => kubeconfig.clone(),
            Backend::Real { server, .. } => server.kubeconfig(),
        }
    }

    /// A client for the driver's own requests.
    pub(crate) async fn client(&self) -> Result<Client, BoxError> {
        match self {
            Backend::Testkit { kubeconfig, .. } => {
                let kubeconfig = Kubeconfig::read_from(kubeconfig)?;
                let options = KubeConfigOptions::default();
                let config = kube::Config::from_custom_kubeconfig(kubeconfig, &options).await?;
                Ok(Client::try_from(config)?)
            }
            Backend::Real { server, .. } => Ok(server.client()),
        }
    }

    /// Whether this is the real server.
    pub(crate) fn is_real(&self) -> bool {
        matches!(self, Backend::Real { .. })
    }

    /// Applies `events` Pod updates (one annotation change, one resourceVersion and one
    /// MODIFIED event each) and returns the wall time it took.
    ///
    /// testkit applies them itself (`POST /testkit/bulk-update`), so the phase measures the
    /// clients rather than the driver's requests; a real server has no such endpoint, so the
    /// driver sends one JSON merge patch per update, [`PATCH_CONCURRENCY`] in flight, going
    /// round the seeded Pods.
    pub(crate) async fn apply_updates(
        &self,
        client: &Client,
        events: usize,
    ) -> Result<Duration, BoxError> {
        let start = Instant::now();
        match self {
            Backend::Testkit { .. } => {
                let request = http::Request::post(format!(
                    "/testkit/bulk-update?resource=pods&namespace=default&count={events}"
                ))
                .body(Vec::new())?;
                let report: Value = serde_json::from_str(&client.request_text(request).await?)?;
                if report["updated"].as_u64() != Some(events as u64) {
                    return Err(
                        format!("bulk update applied {} of {events}", report["updated"]).into()
                    );
                }
            }
            Backend::Real { pods, touch, .. } => {
                if pods.is_empty() {
                    return Err("no seeded Pods to update".into());
                }
                let first = touch.fetch_add(events as u64, Ordering::Relaxed);
                futures::stream::iter(0..events as u64)
                    .map(|i| {
                        let n = first + i;
                        let name = &pods[(n % pods.len() as u64) as usize];
                        patch_pod(client.clone(), name, n)
                    })
                    .buffer_unordered(PATCH_CONCURRENCY)
                    .try_collect::<Vec<()>>()
                    .await?;
            }
        }
        Ok(start.elapsed())
    }
}

/// Sets [`TOUCH_ANNOTATION`] on one Pod to `value` with a JSON merge patch.
async fn patch_pod(client: Client, name: &str, value: u64) -> Result<(), BoxError> {
    let body = json!({"metadata": {"annotations": {TOUCH_ANNOTATION: value.to_string()}}});
    let request = http::Request::patch(format!("/api/v1/namespaces/{NAMESPACE}/pods/{name}"))
        .header(http::header::CONTENT_TYPE, "application/merge-patch+json")
        .body(body.to_string().into_bytes())?;
    // The answer is the whole Pod; read it but do not decode it.
    client.request_text(request).await?;
    Ok(())
}

/// The names `prefix{first}..=prefix{last}` of a seed report.
fn seeded_names(names: &Option<(String, String)>, prefix: &str) -> Result<Vec<String>, BoxError> {
    let (first, last) = names.as_ref().ok_or("the seed report names no objects")?;
    let index = |name: &str| -> Result<u64, BoxError> {
        Ok(name.strip_prefix(prefix).ok_or("unexpected seeded name")?.parse()?)
    };
    Ok((index(first)?..=index(last)?).map(|i| format!("{prefix}{i}")).collect())
}
