//! A real control plane for tests: etcd and kube-apiserver as child processes on loopback,
//! controller-runtime's envtest for Rust.
//!
//! [`RealApiServer`] is the fidelity half of the testkit: where
//! [`TestApiServer`](crate::TestApiServer) is fast and injects faults, this is the upstream
//! server itself, so what a test sees here is what a cluster does. The binaries come from `make real-server`
//! (built from Go modules into a cache folder), or from `KUBEBUILDER_ASSETS` when set, so
//! users who already have envtest's binaries need no Go.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use kube_informers_testkit::real::RealApiServer;
//! let server = RealApiServer::start().await?;
//! let version = server.client().apiserver_version().await?;
//! assert_eq!(version.major, "1");
//! server.shutdown().await;
//! # Ok(()) }
//! ```

mod assets;
mod crd;
mod etcd;
mod process;
mod proxy;
mod rbac;
mod seed;
mod watch_cache;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tokio::sync::Mutex;

pub use assets::{BIN_DIR_ENV, KUBEBUILDER_ASSETS_ENV, REAL_SERVER_VERSION, cache_dir};
pub use proxy::{FaultProxy, WATCH_PROGRESS_DISABLED};

use crate::error::{Error, Result};
use assets::Binaries;
use process::{START_ATTEMPTS, ServerProcess, free_port, port_taken};

/// The user name of [`RealApiServer::unprivileged_client`]: authenticated, in no group, so
/// RBAC denies it everything not granted to `system:authenticated`.
pub const UNPRIVILEGED_USER: &str = "unprivileged";

/// Configures a [`RealApiServer`] before it starts.
///
/// ```no_run
/// # async fn demo() -> kube_informers_testkit::Result<()> {
/// use std::time::Duration;
/// use kube_informers_testkit::real::RealApiServer;
/// let server = RealApiServer::builder()
///     .apiserver_arg("--feature-gates=WatchList=false")
///     .startup_timeout(Duration::from_secs(120))
///     .start()
///     .await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct RealApiServerBuilder {
    extra_apiserver_args: Vec<String>,
    apiserver_env: Vec<(String, String)>,
    startup_timeout: Duration,
}

impl Default for RealApiServerBuilder {
    fn default() -> Self {
        RealApiServerBuilder {
            extra_apiserver_args: Vec::new(),
            apiserver_env: Vec::new(),
            startup_timeout: Duration::from_secs(120),
        }
    }
}

impl RealApiServerBuilder {
    /// Adds a kube-apiserver flag (`--name=value`); a later flag of the same name wins.
    pub fn apiserver_arg(mut self, arg: impl Into<String>) -> Self {
        self.extra_apiserver_args.push(arg.into());
        self
    }

    /// Sets an environment variable of kube-apiserver, for example `GOMEMLIMIT=8GiB` to
    /// keep a server holding 100,000 objects from taking twice its live heap (Go's default
    /// `GOGC=100`) on a machine the clients under test share.
    pub fn apiserver_env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.apiserver_env.push((name.into(), value.into()));
        self
    }

    /// How long to wait for `/readyz` (default 120 s: a loaded 2-core machine needs 10–30 s).
    pub fn startup_timeout(mut self, timeout: Duration) -> Self {
        self.startup_timeout = timeout;
        self
    }

    /// Starts etcd, then kube-apiserver, and waits until the server is ready and its
    /// `default` namespace exists. A start that fails because another process took a port
    /// between picking it free and the server binding it is retried on new ports.
    pub async fn start(self) -> Result<RealApiServer> {
        let mut attempt = 1;
        loop {
            match self.clone().start_once().await {
                Err(err) if attempt < START_ATTEMPTS && port_taken(&err) => {
                    tracing::warn!(
                        attempt,
                        "a control-plane port was taken before its server bound it; starting again"
                    );
                    attempt += 1;
                }
                result => return result,
            }
        }
    }

    async fn start_once(self) -> Result<RealApiServer> {
        let binaries = Binaries::locate()?;
        let dir = tempfile::Builder::new()
            .prefix("kube-informers-real-")
            .tempdir()
            .map_err(|e| Error::Setup(format!("cannot create a temporary folder: {e}")))?;
        let etcd = etcd::Etcd::start(&binaries.etcd, dir.path())?;
        let port = free_port()?;
        let admin_token = random_token();
        let user_token = random_token();
        write_auth_files(
            dir.path(),
            &format!("https://127.0.0.1:{port}"),
            &admin_token,
            &user_token,
        )?;
        let mut args = apiserver_args(dir.path(), port, &etcd.client_url());
        args.extend(self.extra_apiserver_args);
        let server = RealApiServer {
            binaries,
            port,
            args,
            env: self.apiserver_env,
            etcd: Mutex::new(etcd),
            apiserver: Mutex::new(None),
            startup_timeout: self.startup_timeout,
            admin: None,
            unprivileged: None,
            seed_seq: std::sync::atomic::AtomicU64::new(0),
            dir,
        };
        server.start_apiserver().await?;
        server.with_clients().await
    }
}

/// etcd and kube-apiserver, running until [`shutdown`](Self::shutdown) or drop (both kill
/// every process: a test that panics leaves none behind).
///
/// The server listens on `https://127.0.0.1:<free port>` with a self-signed certificate from
/// `--cert-dir`, authenticates bearer tokens from a token file, and authorizes with RBAC. The
/// ServiceAccount admission plugin is off (no controller-manager creates `default`
/// service accounts), so Pods can be created directly.
#[derive(Debug)]
pub struct RealApiServer {
    binaries: Binaries,
    port: u16,
    args: Vec<String>,
    /// kube-apiserver's environment beside ours ([`RealApiServerBuilder::apiserver_env`]).
    env: Vec<(String, String)>,
    etcd: Mutex<etcd::Etcd>,
    apiserver: Mutex<Option<ServerProcess>>,
    startup_timeout: Duration,
    admin: Option<kube::Config>,
    unprivileged: Option<kube::Config>,
    /// Next index for seeded object names.
    seed_seq: std::sync::atomic::AtomicU64,
    // Last: dropped after the processes that use it.
    dir: tempfile::TempDir,
}

impl RealApiServer {
    /// Starts a control plane with default settings.
    pub async fn start() -> Result<RealApiServer> {
        RealApiServerBuilder::default().start().await
    }

    /// A builder for extra kube-apiserver flags and the startup timeout.
    pub fn builder() -> RealApiServerBuilder {
        RealApiServerBuilder::default()
    }

    /// The base URL, e.g. `https://127.0.0.1:40123`.
    pub fn url(&self) -> String {
        format!("https://127.0.0.1:{}", self.port)
    }

    /// The kubeconfig written at start: context `admin` (current, group `system:masters`)
    /// and context `unprivileged` ([`UNPRIVILEGED_USER`]).
    pub fn kubeconfig(&self) -> PathBuf {
        self.dir.path().join("kubeconfig")
    }

    /// A `kube::Config` for the admin user; tweak it and build a client with
    /// `kube::Client::try_from(config)`.
    pub fn config(&self) -> kube::Config {
        self.admin.clone().expect("set at start")
    }

    /// A `kube::Client` for the admin user (group `system:masters`: RBAC allows everything).
    pub fn client(&self) -> kube::Client {
        kube::Client::try_from(self.config()).expect("a config that loaded once builds a client")
    }

    /// A `kube::Client` for [`UNPRIVILEGED_USER`]: RBAC answers 403 until a test grants it
    /// a role.
    pub fn unprivileged_client(&self) -> kube::Client {
        let config = self.unprivileged.clone().expect("set at start");
        kube::Client::try_from(config).expect("a config that loaded once builds a client")
    }

    /// SIGKILLs kube-apiserver (etcd keeps running). Clients see refused connections until
    /// [`start_apiserver`](Self::start_apiserver).
    pub async fn kill_apiserver(&self) {
        if let Some(mut process) = self.apiserver.lock().await.take() {
            process.kill().await;
        }
    }

    /// Starts kube-apiserver again on the same port, over the same etcd, and waits until it
    /// is ready. Like a real restart, its watch cache starts empty: watches resumed from a
    /// resource version older than its first list get `410 Gone`.
    pub async fn start_apiserver(&self) -> Result<()> {
        let mut slot = self.apiserver.lock().await;
        if slot.is_some() {
            return Ok(());
        }
        let log = self.dir.path().join("kube-apiserver.log");
        *slot = Some(ServerProcess::spawn(
            "kube-apiserver",
            &self.binaries.apiserver,
            &self.args,
            &self.env,
            log,
        )?);
        drop(slot);
        self.wait_ready().await
    }

    /// [`kill_apiserver`](Self::kill_apiserver) then [`start_apiserver`](Self::start_apiserver).
    pub async fn restart_apiserver(&self) -> Result<()> {
        self.kill_apiserver().await;
        self.start_apiserver().await
    }

    /// Starts a [`FaultProxy`] in front of this server: its clients can be partitioned from
    /// the server, or see streaming lists refused or without their end bookmark.
    pub async fn fault_proxy(&self) -> Result<FaultProxy> {
        FaultProxy::start(self.client()).await
    }

    /// Compacts etcd up to its current revision and returns that revision. Lists and watches
    /// that must read older revisions from etcd then get `410 Gone`; the apiserver's watch
    /// cache still serves what it holds until it restarts.
    pub async fn compact_etcd(&self) -> Result<i64> {
        self.etcd.lock().await.compact().await
    }

    /// The last lines kube-apiserver logged, for a failing test's message.
    pub async fn apiserver_log_tail(&self) -> String {
        match &*self.apiserver.lock().await {
            Some(process) => process.log_tail(),
            None => String::from("(kube-apiserver is not running)"),
        }
    }

    /// Kills kube-apiserver, then etcd, and removes their data.
    pub async fn shutdown(self) {
        self.kill_apiserver().await;
        self.etcd.lock().await.kill().await;
    }

    async fn with_clients(mut self) -> Result<RealApiServer> {
        self.admin = Some(load_config(&self.kubeconfig(), "admin").await?);
        self.unprivileged = Some(load_config(&self.kubeconfig(), "unprivileged").await?);
        // `/readyz` passes before the bootstrap controller creates `default`.
        let client = self.client();
        let deadline = Instant::now() + self.startup_timeout;
        loop {
            let request = http::Request::get("/api/v1/namespaces/default").body(Vec::new());
            let request = request.map_err(|e| Error::Client(e.to_string()))?;
            if client.request_text(request).await.is_ok() {
                return Ok(self);
            }
            if Instant::now() > deadline {
                return Err(self.not_ready("the default namespace never appeared").await);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Polls `/readyz` as the admin until it answers 200. The client is built once the
    /// apiserver has written its self-signed certificate, which the kubeconfig trusts.
    async fn wait_ready(&self) -> Result<()> {
        let deadline = Instant::now() + self.startup_timeout;
        let mut client = None;
        loop {
            if let Some(process) = self.apiserver.lock().await.as_mut() {
                process.check_alive()?;
            }
            self.etcd.lock().await.check_alive()?;
            if client.is_none() && self.certificate().is_file() {
                let config = load_config(&self.kubeconfig(), "admin").await?;
                client =
                    Some(kube::Client::try_from(config).map_err(|e| Error::Client(e.to_string()))?);
            }
            if let Some(client) = &client {
                let request = http::Request::get("/readyz").body(Vec::new());
                let request = request.map_err(|e| Error::Client(e.to_string()))?;
                if client.request_text(request).await.is_ok() {
                    return Ok(());
                }
            }
            if Instant::now() > deadline {
                return Err(self.not_ready("/readyz did not pass").await);
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// The apiserver's self-signed serving certificate (and the CA that signed it).
    fn certificate(&self) -> PathBuf {
        self.dir.path().join("certs").join("apiserver.crt")
    }

    async fn not_ready(&self, what: &str) -> Error {
        Error::RealServerNotReady {
            what: format!("{what} within {:?}", self.startup_timeout),
            log_tail: self.apiserver_log_tail().await,
        }
    }
}

/// The flags envtest passes, adapted: loopback only, token auth, RBAC, no ServiceAccount
/// admission (nothing creates the `default` service accounts it requires).
fn apiserver_args(dir: &Path, port: u16, etcd_url: &str) -> Vec<String> {
    let path = |name: &str| dir.join(name).display().to_string();
    vec![
        format!("--etcd-servers={etcd_url}"),
        format!("--cert-dir={}", path("certs")),
        format!("--secure-port={port}"),
        "--bind-address=127.0.0.1".into(),
        "--advertise-address=127.0.0.1".into(),
        format!("--token-auth-file={}", path("tokens.csv")),
        "--authorization-mode=RBAC".into(),
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local".into(),
        format!("--service-account-key-file={}", path("sa.pub")),
        format!("--service-account-signing-key-file={}", path("sa.key")),
        "--service-cluster-ip-range=10.0.0.0/24".into(),
        "--allow-privileged=true".into(),
        "--disable-admission-plugins=ServiceAccount".into(),
        "--profiling=false".into(),
    ]
}

/// The token file, the service-account signing key and the kubeconfig.
fn write_auth_files(dir: &Path, url: &str, admin_token: &str, user_token: &str) -> Result<()> {
    let write = |name: &str, text: String| {
        std::fs::write(dir.join(name), text)
            .map_err(|e| Error::Setup(format!("cannot write {name}: {e}")))
    };
    write(
        "tokens.csv",
        format!(
            "{admin_token},admin,admin-uid,\"system:masters\"\n{user_token},{UNPRIVILEGED_USER},unprivileged-uid\n"
        ),
    )?;
    let key = rcgen::KeyPair::generate()
        .map_err(|e| Error::Setup(format!("cannot generate the service-account key: {e}")))?;
    write("sa.key", key.serialize_pem())?;
    write("sa.pub", key.public_key_pem())?;
    // The apiserver writes its self-signed certificate (and the CA that signed it) here;
    // see RealApiServer::certificate.
    let ca = dir.join("certs").join("apiserver.crt");
    write("kubeconfig", crate::kubeconfig::render_tls(url, &ca, admin_token, user_token))?;
    Ok(())
}

async fn load_config(kubeconfig: &Path, context: &str) -> Result<kube::Config> {
    let text = std::fs::read_to_string(kubeconfig).map_err(Error::Kubeconfig)?;
    let parsed =
        kube::config::Kubeconfig::from_yaml(&text).map_err(|e| Error::Client(e.to_string()))?;
    let options =
        kube::config::KubeConfigOptions { context: Some(context.to_owned()), ..Default::default() };
    kube::Config::from_custom_kubeconfig(parsed, &options)
        .await
        .map_err(|e| Error::Client(e.to_string()))
}

/// 32 hex digits from the thread RNG: tokens only need to be unguessable by other local users.
fn random_token() -> String {
    use rand::Rng;
    let mut rng = rand::rng();
    (0..4).map(|_| format!("{:08x}", rng.random::<u32>())).collect()
}
